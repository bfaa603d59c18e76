import { DomainEventUnion } from '../libs/domains/domain/domain.events';
import { foldRecords, SNAPSHOT_EVERY } from '../libs/history/domain/history';
import { EventShape } from '../libs/projection-engine/read-model';
import { ProjectionContext } from '../libs/projection-engine/projection';
import { EmbeddedReadStore } from '../libs/readstore/embedded/embedded-read-store';
import { project } from '../libs/projection-engine/projection-harness';
import { applyRRsets } from '../libs/zones/domain/rrsets';
import { RRset, rrsetKey, ZoneEvent } from '../libs/zones/domain/zone.events';
import {
  HISTORY_CHANGES,
  HISTORY_HOSTS,
  HISTORY_RRSETS,
  HISTORY_SNAPSHOTS,
  HISTORY_SUBJECTS,
  historyProjection,
} from './history.projection';

const zone = { zone_id: 'z1', account_id: 7, name: 'example.test' };
const rr = (subname: string, type: string, records: string[], ttl = 300): RRset => ({ subname, type, ttl, records });
const imported = (rrsets: RRset[]): ZoneEvent => ({
  type: 'ZoneImported',
  data: { ...zone, verification_token: 'tok', nameservers: ['ns1.test'], rrsets, created_at: 't' },
});
const changed = (rrsets: RRset[]): ZoneEvent => ({ type: 'ZoneRRsetsChanged', data: { ...zone, rrsets, at: 't' } });
const meta = { actor: 'user:7', source_ip: '192.0.2.50', correlation_id: 'req-1', account_id: 7 };

describe('history projection', () => {
  it('given a zone’s changes: one change each, newest diffs against what came before; replaying changes nothing', async () => {
    const h = await project<ZoneEvent>(historyProjection, [
      { ...imported([rr('www', 'A', ['192.0.2.1'])]), metadata: meta },
      { ...changed([rr('www', 'A', ['192.0.2.2']), rr('mail', 'A', ['192.0.2.25'])]), metadata: meta },
      { ...changed([rr('www', 'A', ['192.0.2.1'])]), metadata: { ...meta, restored_from: '2026-01-01T00:00:00.000Z' } },
      { type: 'ZoneVerified', data: { ...zone, method: 'txt', at: 't' } },
      { type: 'ZoneDeleted', data: { ...zone, at: 't' } },
    ]);
    const read = async () => (await h.documents(HISTORY_CHANGES)).sort((a, b) => a.seq - b.seq);
    const changes = await read();
    expect(changes.map((c) => [c.type, c.changes])).toEqual([
      [
        'zone_imported',
        [{ subname: 'www', type: 'A', before: null, after: ['192.0.2.1'], before_ttl: null, after_ttl: 300 }],
      ],
      [
        'records_changed',
        [
          { subname: 'mail', type: 'A', before: null, after: ['192.0.2.25'], before_ttl: null, after_ttl: 300 },
          { subname: 'www', type: 'A', before: ['192.0.2.1'], after: ['192.0.2.2'], before_ttl: 300, after_ttl: 300 },
        ],
      ],
      [
        'restored',
        [{ subname: 'www', type: 'A', before: ['192.0.2.2'], after: ['192.0.2.1'], before_ttl: 300, after_ttl: 300 }],
      ],
      ['zone_verified', []],
      [
        'zone_deleted',
        [
          { subname: 'mail', type: 'A', before: ['192.0.2.25'], after: null, before_ttl: 300, after_ttl: null },
          { subname: 'www', type: 'A', before: ['192.0.2.1'], after: null, before_ttl: 300, after_ttl: null },
        ],
      ],
    ]);
    expect(changes[2]).toMatchObject({
      subject: 'zone:z1',
      actor: 'user:7',
      source_ip: '192.0.2.50',
      correlation_id: 'req-1',
      restored_from: '2026-01-01T00:00:00.000Z',
    });
    expect(await h.documents(HISTORY_SUBJECTS)).toEqual([
      expect.objectContaining({ _id: 'zone:z1', kind: 'zone', name: 'example.test', deleted_at: 0, verified_at: 0 }),
    ]);
    const all = async () => [
      await read(),
      await h.documents(HISTORY_RRSETS),
      await h.documents(HISTORY_SUBJECTS),
      await h.documents(HISTORY_SNAPSHOTS),
    ];
    const before = await all();
    await h.replayed();
    expect(await all()).toEqual(before);
  });

  it(`snapshots a zone every ${SNAPSHOT_EVERY} events: a snapshot plus the changes after it is the records at any revision`, async () => {
    const events: ZoneEvent[] = [imported([rr('', 'TXT', ['"v=spf1 -all"'])])];
    for (let i = 1; i < 2 * SNAPSHOT_EVERY + 10; i++) {
      events.push(
        changed([
          rr(`h${i % 7}`, 'A', i % 5 === 0 ? [] : [`192.0.2.${i % 250}`]),
          ...(i % 3 === 0 ? [rr('', 'TXT', [`"n=${i}"`], 60 + i)] : []),
        ]),
      );
    }
    const h = await project<ZoneEvent>(historyProjection, events);
    const snapshots = await h.documents(HISTORY_SNAPSHOTS);
    expect(snapshots.map((s) => s.seq).sort((a, b) => a - b)).toEqual([0, SNAPSHOT_EVERY, 2 * SNAPSHOT_EVERY]);
    const changes = (await h.documents(HISTORY_CHANGES)).sort((a, b) => a.seq - b.seq);
    for (const target of [0, 5, SNAPSHOT_EVERY - 1, SNAPSHOT_EVERY, SNAPSHOT_EVERY + 17, events.length - 1]) {
      const snapshot = snapshots.filter((s) => s.seq <= target).sort((a, b) => b.seq - a.seq)[0];
      const folded = foldRecords(
        snapshot.rrsets,
        changes.filter((c) => c.seq > snapshot.seq && c.seq <= target),
      );
      // The records as the zone decider's own fold has them.
      let expected = new Map<string, RRset>();
      for (const e of events.slice(0, target + 1))
        expected = applyRRsets(
          expected,
          e.type === 'ZoneImported'
            ? e.data.rrsets
            : (e as Extract<ZoneEvent, { type: 'ZoneRRsetsChanged' }>).data.rrsets,
        );
      expect(folded).toEqual(
        [...expected.values()].sort((a, b) => a.subname.localeCompare(b.subname) || a.type.localeCompare(b.type)),
      );
      expect(new Set(folded.map(rrsetKey)).size).toBe(folded.length);
    }
  });

  it('given a host’s life: field changes with the host after each; a restore is marked; replaying changes nothing', async () => {
    const host = { domain_id: 3, account_id: 7, fqdn: 'home.example.test' };
    const h = await project<DomainEventUnion>(historyProjection, [
      { type: 'DomainCreated', data: { ...host, record_type: 'A', record_ip: '192.0.2.1', ttl: 60, created_at: 't' } },
      {
        type: 'DomainAddressesChanged',
        data: { ...host, addresses: { ipv4: '192.0.2.9', ipv6: '2001:db8::1' }, source: 'ddns', at: 't' },
      },
      {
        type: 'DomainAddressesChanged',
        data: { ...host, addresses: { ipv4: '192.0.2.1', ipv6: null }, source: 'api', at: 't' },
        metadata: { restored_from: 'x' },
      },
      { type: 'DomainDeleted', data: { ...host, at: 't' } },
    ]);
    const changes = (await h.documents(HISTORY_CHANGES)).sort((a, b) => a.seq - b.seq);
    expect(changes.map((c) => [c.type, c.changes, c.host])).toEqual([
      [
        'host_created',
        [
          { field: 'ipv4', before: null, after: '192.0.2.1' },
          { field: 'ttl', before: null, after: 60 },
        ],
        { ipv4: '192.0.2.1', ipv6: null, ttl: 60 },
      ],
      [
        'address_updated',
        [
          { field: 'ipv4', before: '192.0.2.1', after: '192.0.2.9' },
          { field: 'ipv6', before: null, after: '2001:db8::1' },
        ],
        { ipv4: '192.0.2.9', ipv6: '2001:db8::1', ttl: 60 },
      ],
      [
        'restored',
        [
          { field: 'ipv4', before: '192.0.2.9', after: '192.0.2.1' },
          { field: 'ipv6', before: '2001:db8::1', after: null },
        ],
        { ipv4: '192.0.2.1', ipv6: null, ttl: 60 },
      ],
      ['host_deleted', expect.any(Array), { ipv4: null, ipv6: null, ttl: null }],
    ]);
    const subjects = await h.documents(HISTORY_SUBJECTS);
    expect(subjects).toEqual([
      expect.objectContaining({
        kind: 'host',
        name: 'home.example.test',
        ancestors: ['example.test'],
        record_type: 'A',
      }),
    ]);
    // The host's fields live beside its subject (decision 0122): the subject is written at creation and deletion only.
    expect(subjects[0].deleted_at).toEqual(expect.any(Number));
    expect(await h.documents(HISTORY_HOSTS)).toEqual([
      {
        _id: 'host:3',
        host: { ipv4: null, ipv6: null, ttl: null },
        host_prev: { ipv4: '192.0.2.1', ipv6: null, ttl: 60 },
      },
    ]);
    // Only a restore stores `restored_from`; `occurred_at` is `at` (the API gives it as ISO text).
    expect(changes.map((c) => 'restored_from' in c)).toEqual([false, false, true, false]);
    expect(changes.some((c) => 'occurred_at' in c || 'position' in c)).toBe(false);
    // The first pass wrote without reading (first deliveries); a replay reads and finds every change in place.
    const everything = async () => [
      await h.documents(HISTORY_SUBJECTS),
      await h.documents(HISTORY_HOSTS),
      await h.documents(HISTORY_CHANGES),
    ];
    const before = await everything();
    await h.replayed();
    expect(await everything()).toEqual(before);
  });

  it('diffs a host of a generation version 1 wrote (its fields in the subject) against those fields, while version 2 is rebuilt', async () => {
    const store = new EmbeddedReadStore({ file: ':memory:', writer: 'inline' });
    const ctx: { position: number } & ProjectionContext = {
      position: 10,
      firstDelivery: true,
      collection: (m) => store.collection(typeof m === 'string' ? m : m.name),
    };
    const was = { ipv4: '192.0.2.1', ipv6: null, ttl: 300 };
    // A host subject as version 1 stored it, after the host's creation at position 4.
    await store.collection(HISTORY_SUBJECTS.name).insertOne({
      _id: 'host:3',
      kind: 'host',
      id: '3',
      account_id: 7,
      name: 'home.example.test',
      ancestors: ['example.test'],
      host: was,
      host_prev: { ipv4: null, ipv6: null, ttl: null },
      _pos: 4,
    });
    const data = { domain_id: 3, account_id: 7, fqdn: 'home.example.test', source: 'ddns', at: 't' };
    const event = (id: string, revision: number, addresses: object) => ({
      id,
      streamId: 'domain-3',
      revision,
      type: 'DomainAddressesChanged',
      data: { ...data, addresses },
      metadata: {},
      position: { commit: 10n, prepare: 10n },
      created: new Date(0),
    });
    await historyProjection.apply(event('e1', 1, { ipv4: '192.0.2.9', ipv6: null }), ctx);
    ctx.position = 11;
    await historyProjection.apply(event('e2', 2, { ipv4: '192.0.2.9', ipv6: '2001:db8::9' }), ctx);
    const changes = await store.collection(HISTORY_CHANGES.name).find({}, { sort: { seq: 1 } });
    expect(changes.map((c) => [c.changes, c.host])).toEqual([
      [[{ field: 'ipv4', before: '192.0.2.1', after: '192.0.2.9' }], { ipv4: '192.0.2.9', ipv6: null, ttl: 300 }],
      [[{ field: 'ipv6', before: null, after: '2001:db8::9' }], { ipv4: '192.0.2.9', ipv6: '2001:db8::9', ttl: 300 }],
    ]);
    await store.close();
  });

  it('given settings events (email-auth, certificates): field diffs per subject, telemetry and issuance steps left out; replaying changes nothing', async () => {
    const base = { zone: 'example.test', account_id: 7, at: 't' };
    const certificate = { certificate_id: 'c1', at: 't' };
    const h = await project<EventShape>(historyProjection, [
      { type: 'DkimKeySet', data: { ...base, key: { selector: 's1', public_key: 'AAAA', private_key: 'secret' } } },
      { type: 'DmarcStageMetricsRecorded', data: { ...base, night: 'n' } },
      { type: 'DkimKeyRemoved', data: { ...base, selector: 's1' } },
      {
        type: 'CertificateRequested',
        data: {
          ...certificate,
          account_id: 7,
          zone_id: 'z',
          zone: 'example.test',
          domain: 'www.example.test',
          sans: [],
          names: ['www.example.test'],
          is_wildcard: false,
          auto_renew: true,
        },
      },
      { type: 'AcmeOrderRequested', data: { ...certificate, attempt: 1 }, metadata: { account_id: 7 } },
      {
        type: 'CertificateIssued',
        data: {
          ...certificate,
          attempt: 1,
          serial: '01',
          certificate_pem: 'PEM',
          chain_pem: 'PEM',
          issued_at: 'i',
          expires_at: 'e',
          next_renewal_at: null,
        },
        metadata: { account_id: 7 },
      },
    ]);
    const read = async () => (await h.documents(HISTORY_CHANGES)).sort((a, b) => a.seq - b.seq);
    const changes = await read();
    expect(changes.map((c) => [c.subject, c.type, c.changes])).toEqual([
      [
        'email_auth:7:example.test',
        'dkim_key_set',
        [{ field: 'dkim.s1', before: null, after: { selector: 's1', public_key: 'AAAA', private_key: '[redacted]' } }],
      ],
      [
        'email_auth:7:example.test',
        'dkim_key_removed',
        [{ field: 'dkim.s1', before: { selector: 's1', public_key: 'AAAA', private_key: '[redacted]' }, after: null }],
      ],
      [
        'certificate:c1',
        'certificate_requested',
        expect.arrayContaining([
          { field: 'domain', before: null, after: 'www.example.test' },
          { field: 'status', before: null, after: 'pending' },
        ]),
      ],
      [
        'certificate:c1',
        'certificate_issued',
        [
          { field: 'serial', before: null, after: '01' },
          { field: 'issued_at', before: null, after: 'i' },
          { field: 'expires_at', before: null, after: 'e' },
          { field: 'status', before: 'pending', after: 'issued' },
        ],
      ],
    ]);
    const before = [await read(), await h.documents(HISTORY_SUBJECTS)];
    await h.replayed();
    expect([await read(), await h.documents(HISTORY_SUBJECTS)]).toEqual(before);
  });
});
