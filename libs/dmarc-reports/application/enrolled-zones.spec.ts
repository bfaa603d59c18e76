import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emailAuthEnrolmentsProjection } from '../../../projections/email-auth-enrolments.projection';
import { SqliteEventStore } from '../../eventstore/sqlite/sqlite-event-store';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { EmbeddedReadStore } from '../../readstore/embedded/embedded-read-store';
import { EnrolledZones } from './enrolled-zones';

/** The enrolments read model, projected from real SubscriptionChanged events, answers which account covers a domain. */
describe('EnrolledZones over the email_auth_enrolments read model', () => {
  let dir: string;
  let events: SqliteEventStore;
  let reads: EmbeddedReadStore;
  let engine: ProjectionEngine;
  let zones: EnrolledZones;
  const revisions = new Map<number, number>();

  const subscribe = async (accountId: number, tier: string, domains: string[]) => {
    const revision = revisions.get(accountId) ?? -1;
    const r = await events.appendToStream(
      `account-${accountId}`,
      [
        {
          type: 'SubscriptionChanged',
          data: { plan: 'pro', email_auth: { tier, domains }, changed_at: '2026-01-01T00:00:00Z' },
          metadata: { account_id: accountId },
        },
      ],
      revision === -1 ? 'no_stream' : revision,
    );
    revisions.set(accountId, revision + 1);
    expect(await engine.waitFor(r.position, 5000)).toBe(true);
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'enrolments-'));
    revisions.clear();
    events = new SqliteEventStore({ file: join(dir, 'events.db'), pollIntervalMs: 20 });
    reads = new EmbeddedReadStore({ file: join(dir, 'read.db'), flushIntervalMs: 10 });
    engine = new ProjectionEngine(events, reads, [emailAuthEnrolmentsProjection]);
    await engine.start();
    zones = new EnrolledZones(engine);
  });

  afterEach(async () => {
    await engine.stop();
    await reads.close();
    await events.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds the longest enrolled zone above a domain, and nothing for others', async () => {
    await subscribe(1, 'business', ['example.com']);
    await subscribe(2, 'enterprise', ['mail.example.com', 'other.net']);
    expect(await zones.owner('example.com')).toEqual({ zone: 'example.com', account_id: 1 });
    expect(await zones.owner('a.b.example.com')).toEqual({ zone: 'example.com', account_id: 1 });
    expect(await zones.owner('x.mail.example.com')).toEqual({ zone: 'mail.example.com', account_id: 2 });
    expect(await zones.owner('other.net')).toEqual({ zone: 'other.net', account_id: 2 });
    expect(await zones.owner('example.org')).toBeNull();
    expect(await zones.owner('com')).toBeNull();
  });

  it('follows subscription changes: domains dropped, tier none, the older account on a shared zone', async () => {
    await subscribe(2, 'business', ['example.com', 'example.net']);
    await subscribe(1, 'business', ['example.com']);
    expect(await zones.owner('example.com')).toEqual({ zone: 'example.com', account_id: 1 });
    await subscribe(1, 'none', ['example.com']);
    expect(await zones.owner('example.com')).toEqual({ zone: 'example.com', account_id: 2 });
    await subscribe(2, 'business', ['example.net']);
    expect(await zones.owner('example.com')).toBeNull();
    expect(await zones.owner('www.example.net')).toEqual({ zone: 'example.net', account_id: 2 });
  });
});
