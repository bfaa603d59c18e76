import { AggregateRecordsAdded, ReportEvent, ReportRetentionApplied } from '../libs/dmarc-reports/domain/report.events';
import { packRecords } from '../libs/dmarc-reports/domain/packed-records';
import { project } from '../libs/projection-engine/projection-harness';
import { blockLines, DMARC_REPORT_ROW_BLOCKS, rowsHeld } from './dmarc-report-row-blocks';
import { DMARC_REPORTS, dmarcReportsProjection } from './dmarc-reports.projection';
import {
  aggregateRecord,
  aggregateReportReceived,
  OWNER,
  readFromVersion1,
  retentionApplied,
} from './report-events.fixture';

const passing = aggregateRecord('192.0.2.1', 10, 'pass', 'fail');
const failing = aggregateRecord('198.51.100.2', 3, 'fail', 'fail', 'bounce.example.net');

describe('dmarc_reports projection', () => {
  it('given two aggregate reports and a retention run between them: the newer report with its totals and its rows in one block, each row as the API JSON; replaying changes nothing', async () => {
    const h = await project<ReportEvent | ReportRetentionApplied>(dmarcReportsProjection, [
      ...aggregateReportReceived('old', '2026-01-10T00:00:00.000Z', [failing]),
      ...aggregateReportReceived('new', '2026-03-01T00:00:00.000Z', [passing, failing]),
      retentionApplied('2026-02-01T00:00:00.000Z'),
    ]);
    const reports = [
      {
        _id: 'new',
        id: 'new',
        zone: 'example.com',
        account_id: 7,
        org_name: 'Google.com',
        email: 'noreply@google.com',
        report_id: 'id-new',
        begin: '2026-03-01T00:00:00.000Z',
        end: '2026-03-01T23:59:59.000Z',
        generator: null,
        policy: { domain: 'example.com', p: 'quarantine', pct: 50 },
        record_count: 2,
        message_count: 13,
        passing_count: 10,
        received_at: '2026-03-05T08:00:00.000Z',
        source: 'smtp',
      },
    ];
    // Each row from `count` on, exactly as the API sends it (absent optional fields as null / []).
    const rows = [
      {
        _id: 'new:b0',
        report_key: 'new',
        zone: 'example.com',
        begin: '2026-03-01T00:00:00.000Z',
        block: 0,
        source_ips: '"192.0.2.1"\n"198.51.100.2"',
        tails:
          ',"count":10,"disposition":"none","dkim":"pass","spf":"fail","header_from":"example.com","envelope_from":null,"reasons":[],' +
          '"dkim_results":[{"domain":"example.com","selector":"s1","result":"pass"}],"spf_results":[]}\n' +
          ',"count":3,"disposition":"quarantine","dkim":"fail","spf":"fail","header_from":"example.com","envelope_from":"bounce.example.net","reasons":[],' +
          '"dkim_results":[{"domain":"example.com","selector":"s1","result":"fail"}],"spf_results":[]}',
      },
    ];
    expect(await h.documents(DMARC_REPORTS)).toEqual(reports);
    expect(await h.documents(DMARC_REPORT_ROW_BLOCKS)).toEqual(rows);
    await h.replayed();
    expect(await h.documents(DMARC_REPORTS)).toEqual(reports);
    expect(await h.documents(DMARC_REPORT_ROW_BLOCKS)).toEqual(rows);
    await h.close();
  });

  const slice = (offset: number, count: number): AggregateRecordsAdded => ({
    type: 'DmarcAggregateRecordsAdded',
    data: {
      report_key: 'big',
      zone: OWNER.zone,
      begin: '2026-03-01T00:00:00.000Z',
      offset,
      ...packRecords(
        Array.from({ length: count }, (_, i) =>
          aggregateRecord(`10.0.${(offset + i) >> 8}.${(offset + i) & 255}`, offset + i + 1, 'pass', 'fail'),
        ),
      ),
    },
  });

  it('given slices not aligned on blocks (0-149, 150-249): rows in blocks of 100, the shared block merged, every row at its index; replaying changes nothing', async () => {
    const h = await project<ReportEvent>(dmarcReportsProjection, [
      ...aggregateReportReceived('big', '2026-03-01T00:00:00.000Z', []),
      slice(0, 150),
      slice(150, 100),
    ]);
    const check = async () => {
      const blocks = await h.documents(DMARC_REPORT_ROW_BLOCKS);
      expect(blocks.map((b) => [b._id, b.block, blockLines(b.tails).length])).toEqual([
        ['big:b0', 0, 100],
        ['big:b1', 1, 100],
        ['big:b2', 2, 50],
      ]);
      expect(rowsHeld(blocks)).toBe(250);
      // Row 149 (end of the first slice) and 150 (start of the second) sit side by side in block 1.
      const [ips, tails] = [blockLines(blocks[1].source_ips), blockLines(blocks[1].tails)];
      expect(ips[49]).toBe('"10.0.0.149"');
      expect(tails[49]).toMatch(/^,"count":150,/);
      expect(ips[50]).toBe('"10.0.0.150"');
      expect(tails[50]).toMatch(/^,"count":151,/);
      expect(blockLines(blocks[2].source_ips)[49]).toBe('"10.0.0.249"');
    };
    await check();
    await h.replayed();
    await check();
    await h.close();
  });

  it('given a slice arriving ahead of the one before it: the gap is held as empty lines, filled when the slice arrives', async () => {
    const h = await project<ReportEvent>(dmarcReportsProjection, [
      ...aggregateReportReceived('big', '2026-03-01T00:00:00.000Z', []),
      slice(60, 20),
    ]);
    const [ahead] = await h.documents(DMARC_REPORT_ROW_BLOCKS);
    expect(
      blockLines(ahead.tails)
        .slice(0, 60)
        .every((t) => t === ''),
    ).toBe(true);
    expect(blockLines(ahead.tails)).toHaveLength(80);
    expect(rowsHeld([ahead])).toBe(20);
    await h.close();
    const filled = await project<ReportEvent>(dmarcReportsProjection, [
      ...aggregateReportReceived('big', '2026-03-01T00:00:00.000Z', []),
      slice(60, 20),
      slice(0, 60),
    ]);
    const [block] = await filled.documents(DMARC_REPORT_ROW_BLOCKS);
    expect(rowsHeld([block])).toBe(80);
    expect(blockLines(block.source_ips).map((ip) => Number(JSON.parse(ip).split('.')[3]))).toEqual(
      Array.from({ length: 80 }, (_, i) => i),
    );
    await filled.close();
  });

  it('given a retention run: the blocks of reports that started before the cutoff are deleted with the reports', async () => {
    const h = await project<ReportEvent | ReportRetentionApplied>(dmarcReportsProjection, [
      ...aggregateReportReceived('big', '2026-03-01T00:00:00.000Z', []),
      slice(0, 250),
      ...aggregateReportReceived('kept', '2026-05-01T00:00:00.000Z', [passing]),
      retentionApplied('2026-04-01T00:00:00.000Z'),
    ]);
    expect((await h.documents(DMARC_REPORT_ROW_BLOCKS)).map((b) => b._id)).toEqual(['kept:b0']);
    expect((await h.documents(DMARC_REPORTS)).map((r) => r._id)).toEqual(['kept']);
    await h.close();
  });
});

describe('dmarc_reports projection over events stored before version 2', () => {
  it('a report whose chunks hold records as objects (version 1) gives the same rows as one stored packed', async () => {
    const events = aggregateReportReceived('r', '2026-03-01T00:00:00.000Z', [
      passing,
      failing,
      { ...passing, reasons: [{ type: 'forwarded' }], envelope_to: 'example.org' },
    ]);
    const packed = await project<ReportEvent>(dmarcReportsProjection, events);
    const old = await project<ReportEvent>(dmarcReportsProjection, readFromVersion1(events));
    const blocks = await packed.documents(DMARC_REPORT_ROW_BLOCKS);
    expect(rowsHeld(blocks)).toBe(3);
    expect(blockLines(blocks[0].tails)[2]).toContain('forwarded');
    expect(await old.documents(DMARC_REPORT_ROW_BLOCKS)).toEqual(blocks);
    expect(await old.documents(DMARC_REPORTS)).toEqual(await packed.documents(DMARC_REPORTS));
    await packed.close();
    await old.close();
  });
});
