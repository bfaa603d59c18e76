import { DomainEventUnion, domainStream } from '../../domains/domain/domain.events';
import { EventStore, RecordedEvent } from '../../eventstore/event-store.port';
import { upcast } from '../../eventstore/upcasters';
import { AggregateReportReceived, TlsReportReceived } from '../../dmarc-reports/domain/report.events';
import { AlertRaised, AlertResolved } from '../../email-auth-alerts/domain/alert.events';
import { applyHostEvent, applyZoneEvent, HostFields, NO_HOST, ZoneRecords } from '../../history/domain/record-changes';
import { CheckRecorded } from '../../uptime/domain/uptime.events';
import { ZoneEvent } from '../../zones/domain/zone.events';
import { CertificateExpiring } from '../domain/certificate-expiry.process-manager';
import { CertificateView, foldCertificateEvents } from '../domain/certificate-view';
import {
  accountInData,
  alertData,
  dmarcReportData,
  tlsReportData,
  uptimeData,
  uptimeTransition,
} from '../domain/source-events';

/** What a source event becomes: the webhook event type and its `data`; null when it is no news (a check that changed nothing). */
export interface BuiltPayload {
  type: string;
  data: unknown;
}

/** Subjects folded so far (zone records, host fields) kept per stream; beyond this many, the least recent is folded again when next needed. */
const SUBJECT_CACHE_SIZE = 2_000;

interface Folded<S> {
  revision: number;
  state: S;
}

/**
 * Turns a source event into its webhook `data` (contract §19). Record and host changes are
 * the history's folds (libs/history/domain/record-changes.ts) applied to the subject's own
 * stream up to the event: the before-state comes from the event store, which every
 * process reads the same, so a payload built again after a crash is the same payload.
 * The folded subjects are cached, so following a busy zone reads each event once.
 */
export class PayloadBuilder {
  private readonly zones = new Map<string, Folded<ZoneRecords>>();
  private readonly hosts = new Map<string, Folded<HostFields>>();
  private readonly fqdns = new Map<number, string | null>();

  constructor(private readonly store: EventStore) {}

  /** The account of a source event: its data's, or (certificate steps) its certificate's. */
  async accountOf(event: RecordedEvent): Promise<number | null> {
    const inData = accountInData(event.data);
    if (inData !== null) return inData;
    if (event.type === 'CertificateIssued' || event.type === 'IssuanceFailed')
      return (await this.certificate(event))?.account_id ?? null;
    return null;
  }

  async build(event: RecordedEvent): Promise<BuiltPayload | null> {
    switch (event.type) {
      case 'ZoneImported':
      case 'ZoneRRsetsChanged':
      case 'ZoneDeleted': {
        const e = { type: event.type, data: event.data } as ZoneEvent;
        const records = await this.foldTo(
          this.zones,
          event,
          () => new Map(),
          (s, prior) => (applyZoneEvent(s, prior as ZoneEvent), s),
        );
        const changes = applyZoneEvent(records.state, e);
        records.revision = event.revision;
        return changes.length
          ? { type: 'zone.changed', data: { zone: (e.data as { name: string }).name, changes } }
          : null;
      }
      case 'DomainAddressesChanged': {
        const e = { type: event.type, data: event.data } as DomainEventUnion;
        const host = await this.foldTo(
          this.hosts,
          event,
          () => ({ ...NO_HOST }),
          (s, prior) => applyHostEvent(s, prior as DomainEventUnion).host,
        );
        const { host: after, changes } = applyHostEvent(host.state, e);
        host.state = after;
        host.revision = event.revision;
        return changes.length ? { type: 'ddns.host.address_changed', data: { fqdn: e.data.fqdn, changes } } : null;
      }
      case 'CheckRecorded': {
        const check = event.data as CheckRecorded['data'];
        const [previous] =
          event.revision > 0
            ? await this.store.readStream(event.streamId, { fromRevision: event.revision - 1, maxCount: 1 })
            : [];
        const type = uptimeTransition((previous?.data as CheckRecorded['data'] | undefined) ?? null, check);
        return type ? { type, data: uptimeData(check, await this.fqdnOf(check.domain_id)) } : null;
      }
      case 'CertificateIssued':
      case 'IssuanceFailed': {
        const view = await this.certificate(event);
        if (!view) return null;
        const { account_id: _a, ...data } = view;
        return { type: event.type === 'CertificateIssued' ? 'certificate.issued' : 'certificate.failed', data };
      }
      case 'CertificateExpiring': {
        const d = (event.data as CertificateExpiring['data']).certificate;
        return { type: 'certificate.expiring', data: d };
      }
      case 'DmarcAggregateReportReceived':
        return { type: 'dmarc.report.received', data: dmarcReportData(event.data as AggregateReportReceived['data']) };
      case 'TlsReportReceived':
        return { type: 'tls.report.received', data: tlsReportData(event.data as TlsReportReceived['data']) };
      case 'AlertRaised':
      case 'AlertResolved': {
        const e = { type: event.type, data: event.data } as AlertRaised | AlertResolved;
        return {
          type: e.type === 'AlertRaised' ? 'email_auth.alert.raised' : 'email_auth.alert.resolved',
          data: alertData(e),
        };
      }
      default:
        return null;
    }
  }

  /**
   * The subject's state just before `event`: the cached fold carried on through the events
   * of its stream in between (all of them after a restart or an eviction).
   */
  private async foldTo<S>(
    cache: Map<string, Folded<S>>,
    event: RecordedEvent,
    initial: () => S,
    apply: (s: S, prior: { type: string; data: unknown }) => S,
  ): Promise<Folded<S>> {
    let folded = cache.get(event.streamId);
    if (!folded || folded.revision >= event.revision) folded = { revision: -1, state: initial() };
    if (folded.revision < event.revision - 1) {
      const between = await this.store.readStream(event.streamId, {
        fromRevision: folded.revision + 1,
        maxCount: event.revision - 1 - folded.revision,
      });
      for (const raw of between) {
        const r = upcast(raw);
        folded.state = apply(folded.state, { type: r.type, data: r.data });
        folded.revision = r.revision;
      }
    }
    cache.delete(event.streamId);
    cache.set(event.streamId, folded);
    if (cache.size > SUBJECT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    return folded;
  }

  private async fqdnOf(domainId: number): Promise<string | null> {
    if (!this.fqdns.has(domainId)) {
      const [created] = await this.store.readStream(domainStream(domainId), { maxCount: 1 });
      this.fqdns.set(domainId, (created?.data as { fqdn?: string } | undefined)?.fqdn ?? null);
      if (this.fqdns.size > SUBJECT_CACHE_SIZE) this.fqdns.delete(this.fqdns.keys().next().value!);
    }
    return this.fqdns.get(domainId)!;
  }

  /** The certificate as it stood right after `event` (its stream up to the event's revision). */
  private async certificate(event: RecordedEvent): Promise<CertificateView | null> {
    return foldCertificateEvents(
      (await this.store.readStream(event.streamId, { maxCount: event.revision + 1 })).map(upcast),
    );
  }
}
