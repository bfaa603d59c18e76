import { AggregateReport } from './aggregate-report';
import { PackedRecordList } from './packed-records';
import { deliveryResult } from './failure-report';
import {
  AggregateRecordsAdded,
  aggregateReportEvents,
  aggregateReportKey,
  chunkRecords,
  RECORDS_PER_CHUNK,
  SEED_EVENT_NAME,
} from './report.events';
import { reportRecipient } from '../application/smtp-intake';

const report = (records: number): AggregateReport => ({
  kind: 'aggregate',
  org_name: 'Google.com',
  email: 'noreply@google.com',
  report_id: '42',
  begin: '2024-06-13T00:00:00.000Z',
  end: '2024-06-13T23:59:59.000Z',
  policy: { domain: 'example.com', p: 'none' },
  records: PackedRecordList.of(
    Array.from({ length: records }, (_, i) => ({
      source_ip: `192.0.2.${i % 250}`,
      count: 2,
      disposition: 'none',
      dkim: i % 2 ? 'pass' : 'fail',
      spf: i % 3 ? 'fail' : 'pass',
      header_from: 'example.com',
      dkim_results: [],
      spf_results: [],
    })),
  ),
});

describe('aggregate report events', () => {
  it('given a report of 2,500 records, makes a header and three chunks covering every record once', () => {
    const events = aggregateReportEvents(
      report(2500),
      'k',
      { zone: 'example.com', account_id: 7 },
      '2024-06-14T00:00:00.000Z',
      'smtp',
    );
    expect(events.map((e) => e.type)).toEqual([
      'DmarcAggregateReportReceived',
      'DmarcAggregateRecordsAdded',
      'DmarcAggregateRecordsAdded',
      'DmarcAggregateRecordsAdded',
    ]);
    const chunks = events.slice(1).map((e) => e.data as AggregateRecordsAdded['data']);
    expect(chunks.map((c) => [c.offset, chunkRecords(c).length])).toEqual([
      [0, RECORDS_PER_CHUNK],
      [1000, 1000],
      [2000, 500],
    ]);
    expect(chunks.flatMap((c) => chunkRecords(c))).toEqual(report(2500).records.toArray());
    // DMARC passes when either aligned result passed: i odd (dkim) or i % 3 == 0 (spf).
    const passing = Array.from({ length: 2500 }, (_, i) => i % 2 === 1 || i % 3 === 0).filter(Boolean).length * 2;
    expect(events[0].data).toMatchObject({
      zone: 'example.com',
      account_id: 7,
      record_count: 2500,
      message_count: 5000,
      passing_count: passing,
      chunk_count: 3,
      source: 'smtp',
    });
  });

  it('given a report without records, makes only the header', () => {
    expect(
      aggregateReportEvents(report(0), 'k', { zone: 'example.com', account_id: 1 }, 'now', 'admin').map((e) => e.type),
    ).toEqual(['DmarcAggregateReportReceived']);
  });

  it('keys a report by reporter and report id whatever the letter case, and apart from other reporters', () => {
    const base = report(1);
    expect(aggregateReportKey(base)).toBe(
      aggregateReportKey({ ...base, org_name: 'google.com ', email: 'NoReply@google.com' }),
    );
    expect(aggregateReportKey(base)).not.toBe(aggregateReportKey({ ...base, org_name: 'fred.com' }));
    expect(aggregateReportKey(base)).not.toBe(aggregateReportKey({ ...base, report_id: '43' }));
  });

  it('publishes the seed event names for the report facts, not for record chunks', () => {
    expect(SEED_EVENT_NAME).toEqual({
      DmarcAggregateReportReceived: 'dmarc.report.received',
      DmarcFailureReportReceived: 'dmarc.report.received',
      TlsReportReceived: 'tls.report.received',
      DmarcAggregateRecordsAdded: null,
    });
  });
});

describe('failure report delivery results (RFC 6591)', () => {
  it.each([
    ['delivered', 'delivered'],
    ['Reject', 'reject'],
    ['smg-policy-action', 'policy'],
    ['quarantined', 'spam'],
    ['something-else', 'other'],
    ['', null],
  ])('%s → %s', (raw, expected) => expect(deliveryResult(raw)).toBe(expected));
});

describe('report mailboxes', () => {
  it.each([
    ['dmarc-rua@example.com', { expect: 'aggregate', zone: 'example.com' }],
    ['DMARC-RUF@Example.COM', { expect: 'failure', zone: 'example.com' }],
    ['tls-rpt+example.org@intake.example.net', { expect: 'tls', zone: 'example.org' }],
    ['postmaster@example.com', null],
    ['dmarc-rua', null],
  ])('%s', (address, expected) => expect(reportRecipient(address)).toEqual(expected));
});
