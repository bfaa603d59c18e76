import { AggregateRecord } from '../../dmarc-reports/domain/aggregate-report';
import { rowJson, rowNetworkJson, rowObject, rowTailJson, sourceIpOf } from './report-row-json';

const minimal: AggregateRecord = {
  source_ip: '192.0.2.1',
  count: 10,
  disposition: 'none',
  dkim: 'pass',
  spf: 'fail',
  header_from: 'example.com',
  dkim_results: [{ domain: 'example.com', result: 'pass' }],
  spf_results: [],
};

const full: AggregateRecord = {
  source_ip: '2001:db8::1',
  count: 3,
  disposition: 'quarantine',
  dkim: 'fail',
  spf: 'fail',
  reasons: [{ type: 'forwarded', comment: 'via "list" \\ relay é' }],
  header_from: 'exämple.com',
  envelope_from: 'bounce.example.net',
  envelope_to: 'not-shown.example',
  dkim_results: [{ domain: 'example.com', selector: 's1', result: 'fail' }],
  spf_results: [{ domain: 'bounce.example.net', scope: 'mfrom', result: 'softfail' }],
};

describe('report row JSON pieces', () => {
  it.each([
    ['only the required fields', minimal, { country: 'ZZ', asn: 'Unknown', as_org: 'Unknown' }],
    [
      'every optional field, quotes, backslashes and non-ASCII text',
      full,
      { country: 'US', asn: 'AS15169', as_org: 'Google "LLC"' },
    ],
  ])('concatenated, they are the JSON of the row object, field for field and in order (%s)', (_, record, net) => {
    const json = rowJson(7, JSON.stringify(record.source_ip), rowNetworkJson(net), rowTailJson(record));
    expect(json).toBe(JSON.stringify(rowObject(7, record, net)));
    expect(Object.keys(JSON.parse(json))).toEqual([
      'index',
      'source_ip',
      'country',
      'network',
      'count',
      'disposition',
      'dkim',
      'spf',
      'header_from',
      'envelope_from',
      'reasons',
      'dkim_results',
      'spf_results',
    ]);
  });

  it('shows absent optional fields as null or an empty list, and never the envelope_to the API does not serve', () => {
    const row = JSON.parse(
      rowJson(
        0,
        JSON.stringify(minimal.source_ip),
        rowNetworkJson({ country: 'ZZ', asn: 'Unknown', as_org: 'Unknown' }),
        rowTailJson(minimal),
      ),
    );
    expect(row).toMatchObject({
      envelope_from: null,
      reasons: [],
      dkim_results: [{ domain: 'example.com', selector: null, result: 'pass' }],
    });
    expect(JSON.parse(`{${rowTailJson(full).slice(1)}`)).not.toHaveProperty('envelope_to');
  });

  it('reads the address back from its JSON string, escapes included', () => {
    expect(sourceIpOf('"192.0.2.1"')).toBe('192.0.2.1');
    expect(sourceIpOf(JSON.stringify('odd\n"value"'))).toBe('odd\n"value"');
  });
});
