import { gzipSync } from 'node:zlib';
import { generatedAggregateReport } from '../../../test/support/dmarc-samples';
import { AggregateReport } from '../domain/aggregate-report';
import { ReportRefused } from '../domain/report-refusal';
import { ParsedReport, ReportParser } from './report-parser';
import * as unpack from './unpack';
import { gunzipStreaming } from './unpack';

/**
 * A gzip'd report declaring more than 1 MiB is parsed while it inflates. Whatever it
 * gives must be what the one-shot path gives for the same XML: the same report, or the
 * same refusal (the one-shot path runs again over the bytes when streaming fails).
 */
const parser = new ReportParser(4 * 1024 * 1024);

const outcome = async (raw: Buffer): Promise<ParsedReport | { refused: string; message: string }> => {
  try {
    return await parser.parse(raw);
  } catch (e) {
    if (e instanceof ReportRefused) return { refused: e.reason, message: e.message };
    throw e;
  }
};

/** A report of `records` records (~380 bytes each), so 3,000 or more declare over 1 MiB. */
const large = (records: number, edit: (xml: string) => string = (x) => x): Buffer =>
  Buffer.from(edit(generatedAggregateReport(records, { reportId: 'big' }).toString()));

describe('large gzip reports, parsed while they inflate', () => {
  it('give the same report as the XML itself, multi-byte characters across inflated pieces included', async () => {
    const xml = large(5000, (x) =>
      x.replace(/<header_from>example\.com<\/header_from>/g, (m, at: number) =>
        at % 3 === 0 ? '<header_from>é€.example</header_from>' : m,
      ),
    );
    expect(gzipSync(xml).readUInt32LE(gzipSync(xml).length - 4)).toBeGreaterThan(1024 * 1024);
    const fromXml = await outcome(xml);
    const oneShot = jest.spyOn(unpack, 'gunzipLimited');
    try {
      expect(await outcome(gzipSync(xml))).toEqual(fromXml);
      // Streamed: the content never inflated whole.
      expect(oneShot).not.toHaveBeenCalled();
    } finally {
      oneShot.mockRestore();
    }
    expect((fromXml as AggregateReport).records).toHaveLength(5000);
  });

  it('are repaired as the XML is when only stray "<" make them not well-formed', async () => {
    const xml = large(4000, (x) =>
      x.replace('<header_from>example.com</header_from>', '<header_from>bad<xml.net</header_from>'),
    );
    const oneShot = jest.spyOn(unpack, 'gunzipLimited');
    let fromGzip;
    try {
      fromGzip = await outcome(gzipSync(xml));
      // The repair needs the whole text: the one-shot path ran.
      expect(oneShot).toHaveBeenCalledTimes(1);
    } finally {
      oneShot.mockRestore();
    }
    expect(fromGzip).toEqual(await outcome(xml));
    expect((fromGzip as AggregateReport).records.toArray()[0].header_from).toBe('bad<xml.net');
  });

  it('are refused for the same reason and with the same message as the XML', async () => {
    const cases = [
      large(4000, (x) =>
        x.replace('<source_ip>10.0.11.183</source_ip><count>', '<source_ip>10.0.11.183</source_ip><count>x'),
      ),
      large(4000, (x) => x.replace('</feedback>', '<!DOCTYPE x></feedback>')),
      large(4000, (x) => x.replace('</feedback>', '')),
      large(4000, (x) => x.replace('<policy_published><domain>example.com</domain>', '<policy_published>')),
    ];
    for (const xml of cases) {
      const fromXml = await outcome(xml);
      expect(fromXml).toHaveProperty('refused');
      expect(await outcome(gzipSync(xml))).toEqual(fromXml);
    }
  });

  it('over the limit: too_large (or a bomb), not whatever the XML cut there would have been', async () => {
    expect(await outcome(gzipSync(large(12_000)))).toMatchObject({ refused: 'too_large' });
    expect(
      await outcome(gzipSync(Buffer.concat([Buffer.from('<feedback>'), Buffer.alloc(5 * 1024 * 1024, 0x20)]))),
    ).toMatchObject({ refused: 'decompression_bomb' });
  });

  it('not XML inside, or corrupt: refused as the one-shot path refuses them', async () => {
    expect(await outcome(gzipSync(Buffer.alloc(2 * 1024 * 1024, 'x')))).toMatchObject({ refused: 'unsupported' });
    const corrupt = gzipSync(large(4000));
    corrupt[Math.floor(corrupt.length / 2)] ^= 0xff;
    expect(await outcome(corrupt)).toMatchObject({
      refused: 'malformed',
      message: expect.stringMatching(/^gzip content is corrupt/),
    });
  });
});

describe('gunzipStreaming', () => {
  const content = large(3000);
  const gz = gzipSync(content);

  it('hands over the content in pieces that add up to it', async () => {
    const pieces: Buffer[] = [];
    await gunzipStreaming(gz, (p) => pieces.push(p), 32 * 1024 * 1024);
    expect(pieces.length).toBeGreaterThan(1);
    expect(Buffer.concat(pieces).equals(content)).toBe(true);
  });

  it('stops at the limit, and when the sink throws', async () => {
    let seen = 0;
    await expect(gunzipStreaming(gz, (p) => (seen += p.length), 100_000)).rejects.toMatchObject({
      reason: 'too_large',
    });
    expect(seen).toBeLessThanOrEqual(100_000);
    let calls = 0;
    await expect(
      gunzipStreaming(gz, () => {
        calls += 1;
        throw new Error('enough');
      }),
    ).rejects.toThrow('enough');
    expect(calls).toBe(1);
  });
});
