import { AggregateRecord, dmarcPassed } from '../../dmarc-reports/domain/aggregate-report';
import { TlsPolicyResult } from '../../dmarc-reports/domain/tls-report';

/**
 * Per-chunk aggregates of DMARC aggregate records (projected by
 * `projections/dmarc-report-stats.projection.ts`): a report's 1,000-record chunk folded
 * into counts, so summaries and sources read one small document per chunk and day
 * instead of every row. Pure: the projection stores what `chunkStats` returns, the read
 * side folds documents with `foldStats`/`foldSources`.
 */
export type Counts = Record<string, number>;

export interface SourceStat {
  ip: string;
  /** Envelope (SPF) domain when reported, else the header From domain. */
  sending_domain: string;
  messages: number;
  passing: number;
}

export interface ChunkStats {
  messages: number;
  passing: number;
  disposition: Counts;
  dkim: Counts;
  spf: Counts;
  sources: SourceStat[];
}

const bump = (counts: Counts, key: string, n: number) => {
  const k = key || 'none';
  counts[k] = (counts[k] ?? 0) + n;
};

export function chunkStats(records: readonly AggregateRecord[]): ChunkStats {
  const out: ChunkStats = { messages: 0, passing: 0, disposition: {}, dkim: {}, spf: {}, sources: [] };
  const sources = new Map<string, SourceStat>();
  for (const r of records) {
    const passed = dmarcPassed(r);
    out.messages += r.count;
    if (passed) out.passing += r.count;
    bump(out.disposition, r.disposition, r.count);
    bump(out.dkim, r.dkim, r.count);
    bump(out.spf, r.spf, r.count);
    const sendingDomain = r.envelope_from ?? r.spf_results[0]?.domain ?? r.header_from;
    const key = `${r.source_ip}\u0000${sendingDomain}`;
    const s = sources.get(key) ?? { ip: r.source_ip, sending_domain: sendingDomain, messages: 0, passing: 0 };
    s.messages += r.count;
    if (passed) s.passing += r.count;
    sources.set(key, s);
  }
  out.sources = [...sources.values()];
  return out;
}

const addCounts = (into: Counts, from: Counts) => {
  for (const [k, n] of Object.entries(from)) into[k] = (into[k] ?? 0) + n;
};

/** Share of passing messages, 4 decimals; null without messages. */
export const passRate = (passing: number, messages: number): number | null =>
  messages > 0 ? Math.round((passing / messages) * 10_000) / 10_000 : null;

export interface DayStats {
  date: string;
  messages: number;
  passing: number;
  pass_rate: number | null;
}

/** The DMARC summary totals and the daily series (every day of the window, oldest first, zero days included). */
export function foldStats(docs: Iterable<ChunkStats & { day: string }>, days: string[]) {
  const totals = { messages: 0, passing: 0, disposition: {} as Counts, dkim: {} as Counts, spf: {} as Counts };
  const byDay = new Map(days.map((d) => [d, { date: d, messages: 0, passing: 0 }]));
  for (const d of docs) {
    totals.messages += d.messages;
    totals.passing += d.passing;
    addCounts(totals.disposition, d.disposition);
    addCounts(totals.dkim, d.dkim);
    addCounts(totals.spf, d.spf);
    const day = byDay.get(d.day);
    if (day) {
      day.messages += d.messages;
      day.passing += d.passing;
    }
  }
  return {
    ...totals,
    pass_rate: passRate(totals.passing, totals.messages),
    daily: [...byDay.values()].map((d): DayStats => ({ ...d, pass_rate: passRate(d.passing, d.messages) })),
  };
}

/** Per source address: messages, passing and the sending domains seen from it. */
export function foldSources(docs: Iterable<{ sources: SourceStat[] }>) {
  const byIp = new Map<
    string,
    { ip: string; messages: number; passing: number; domains: Map<string, { messages: number; passing: number }> }
  >();
  for (const d of docs) {
    for (const s of d.sources) {
      const ip = byIp.get(s.ip) ?? { ip: s.ip, messages: 0, passing: 0, domains: new Map() };
      ip.messages += s.messages;
      ip.passing += s.passing;
      const dom = ip.domains.get(s.sending_domain) ?? { messages: 0, passing: 0 };
      dom.messages += s.messages;
      dom.passing += s.passing;
      ip.domains.set(s.sending_domain, dom);
      byIp.set(s.ip, ip);
    }
  }
  return [...byIp.values()].sort((a, b) => b.messages - a.messages || (a.ip < b.ip ? -1 : 1));
}

/** The UTC dates of the `days` days ending today, oldest first. */
export function windowDays(now: Date, days: number): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, i) =>
    new Date(today - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10),
  );
}

/** What the TLS-RPT summary reads of a report (a `tls_reports` document, projections/tls-reports.projection.ts). */
export interface TlsReportTotals {
  begin: string;
  successful_sessions: number;
  failed_sessions: number;
  policies: TlsPolicyResult[];
}

/** TLS-RPT summary over a window's reports (one document per report, already totalled at ingestion). */
export function foldTls(reports: Iterable<TlsReportTotals>, days: string[]) {
  let succeeded = 0;
  let failed = 0;
  const failureTypes: Counts = {};
  const policyTypes: Counts = {};
  const senders = new Map<string, { sending_mta_ip: string; failed_sessions: number; result_types: Set<string> }>();
  const byDay = new Map(days.map((d) => [d, { date: d, successful_sessions: 0, failed_sessions: 0 }]));
  let count = 0;
  for (const r of reports) {
    count++;
    succeeded += r.successful_sessions;
    failed += r.failed_sessions;
    const day = byDay.get(r.begin.slice(0, 10));
    if (day) {
      day.successful_sessions += r.successful_sessions;
      day.failed_sessions += r.failed_sessions;
    }
    for (const p of r.policies) {
      bump(policyTypes, p.policy_type, p.successful_sessions + p.failed_sessions);
      for (const f of p.failure_details) {
        bump(failureTypes, f.result_type, f.failed_session_count);
        if (!f.sending_mta_ip) continue;
        const s = senders.get(f.sending_mta_ip) ?? {
          sending_mta_ip: f.sending_mta_ip,
          failed_sessions: 0,
          result_types: new Set<string>(),
        };
        s.failed_sessions += f.failed_session_count;
        s.result_types.add(f.result_type);
        senders.set(f.sending_mta_ip, s);
      }
    }
  }
  const total = succeeded + failed;
  return {
    reports: count,
    successful_sessions: succeeded,
    failed_sessions: failed,
    success_rate: passRate(succeeded, total),
    failure_types: Object.entries(failureTypes)
      .map(([result_type, sessions]) => ({ result_type, failed_sessions: sessions }))
      .sort((a, b) => b.failed_sessions - a.failed_sessions),
    failing_senders: [...senders.values()]
      .sort((a, b) => b.failed_sessions - a.failed_sessions || (a.sending_mta_ip < b.sending_mta_ip ? -1 : 1))
      .slice(0, 100)
      .map((s) => ({
        sending_mta_ip: s.sending_mta_ip,
        failed_sessions: s.failed_sessions,
        result_types: [...s.result_types].sort(),
      })),
    policy_types: Object.entries(policyTypes).map(([policy_type, sessions]) => ({ policy_type, sessions })),
    daily: [...byDay.values()],
  };
}
