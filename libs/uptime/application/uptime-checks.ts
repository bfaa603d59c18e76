import { Inject, Injectable } from '@nestjs/common';
import { EVENT_STORE, EventStore } from '../../eventstore/event-store.port';
import { CLOCK, Clock } from '../../shared/clock';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import { CheckFact, checkSeries, CHECK_WINDOW_SHAPE, CheckWindow, incidentsOf, windowStart } from '../domain/checks';
import { CheckRecorded, uptimeStream } from '../domain/uptime.events';
import { UptimeQueries } from './uptime.queries';

/** Checks read per request at most: 24 h at one check every 5 s. A denser window says `complete: false`. */
export const MAX_CHECKS_READ = 17_280;
const PAGE = 1000;

/**
 * The minute-level series and incidents of one monitored host, from its raw checks (the
 * uptime stream, kept 31 days, contract §15): the read model keeps hourly and daily
 * buckets only, and incidents need each check's order.
 */
@Injectable()
export class UptimeChecks {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly queries: UptimeQueries,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Checks since `since`, oldest first; newest pages first, stopping at the window's start or the cap. */
  private async since(domainId: number, since: number): Promise<{ checks: CheckFact[]; complete: boolean }> {
    const newestFirst: CheckFact[] = [];
    let from: number | undefined;
    for (;;) {
      const page = await this.store.readStream(uptimeStream(domainId), {
        direction: 'backwards',
        fromRevision: from,
        maxCount: PAGE,
      });
      for (const e of page) {
        if (e.type !== 'CheckRecorded') continue;
        const d = (e as unknown as CheckRecorded).data;
        if (Date.parse(d.checked_at) < since) return { checks: newestFirst.reverse(), complete: true };
        newestFirst.push({
          at: d.checked_at,
          is_up: d.is_up,
          response_time_ms: d.response_time_ms,
          error: d.error,
          port: d.port ?? null,
        });
        if (newestFirst.length >= MAX_CHECKS_READ) return { checks: newestFirst.reverse(), complete: false };
      }
      const last = page.at(-1);
      if (page.length < PAGE || !last || last.revision === 0) return { checks: newestFirst.reverse(), complete: true };
      from = last.revision - 1;
    }
  }

  async checks(accountId: number, domainId: number, window: CheckWindow) {
    const record = await this.queries.domain(accountId, domainId); // 404 for a missing or foreign host
    const now = this.clock.now();
    const { checks, complete } = await this.since(domainId, windowStart(window, now));
    return {
      domain_id: record.domain_id,
      fqdn: record.fqdn,
      window,
      bucket_seconds: CHECK_WINDOW_SHAPE[window].bucketSeconds,
      /** The ports a check tries, in order (UPTIME_CHECK_PORTS). */
      ports: this.config.uptimeCheckPorts,
      /** The port that answered the last check, or the last one tried when it failed. */
      last_port: checks.at(-1)?.port ?? null,
      points: checkSeries(checks, window, now),
      incidents: incidentsOf(checks, now),
      /** False when the window held more checks than one answer reads (MAX_CHECKS_READ): the oldest part is missing. */
      complete,
    };
  }
}
