import { createHash } from 'node:crypto';
import { GivenEvent, project } from '../libs/projection-engine/projection-harness';
import { AUDIT_CHAIN_HEADS, AUDIT_EVENTS, AuditEventDoc, auditProjection } from './audit.projection';

/** RFC 8785 by hand for the values an entry holds (no library), so the chain is checked independently of the code's. */
const jcs = (v: unknown): string =>
  v === null || typeof v !== 'object'
    ? JSON.stringify(v)
    : Array.isArray(v)
      ? `[${v.map(jcs).join(',')}]`
      : `{${Object.keys(v)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${jcs((v as Record<string, unknown>)[k])}`)
          .join(',')}}`;

const rehash = (d: AuditEventDoc) =>
  createHash('sha256')
    .update(
      jcs({
        id: d._id,
        type: d.type,
        occurred_at: d.occurred_at,
        stream: d.stream,
        revision: d.revision,
        actor: d.actor,
        source_ip: d.source_ip,
        correlation_id: d.correlation_id,
        data: d.data,
        prev_hash: d.prev_hash,
      }),
    )
    .digest('hex');

describe('audit projection', () => {
  it('given account state changes: one entry each with actor, IP and correlation, secrets redacted; telemetry and replays add nothing', async () => {
    const meta = { account_id: 7, actor: 'user:7', source_ip: '192.0.2.9', correlation_id: 'req-1' };
    const h = await project(auditProjection, [
      {
        type: 'PasswordChanged',
        data: { password_hash: 'secret-hash', changed_at: 't', kept_session_id: null },
        metadata: meta,
        streamId: 'account-7',
      },
      { type: 'CheckRecorded', data: { domain_id: 1, is_up: true }, metadata: meta },
      {
        type: 'AccountDisabled',
        data: { at: 't' },
        metadata: { account_id: 7, actor: 'admin' },
        streamId: 'account-7',
      },
    ]);
    const entries = await h.documents(AUDIT_EVENTS);
    const byPosition = [...entries].sort((a, b) => a.position - b.position);
    expect(byPosition.map((e) => [e.type, e.position, e.stream, e.actor, e.source_ip, e.correlation_id])).toEqual([
      ['PasswordChanged', 1, 'account-7', 'user:7', '192.0.2.9', 'req-1'],
      ['AccountDisabled', 3, 'account-7', 'admin', null, null],
    ]);
    expect(JSON.stringify(entries)).not.toContain('secret-hash');
    await h.replayed();
    expect(await h.documents(AUDIT_EVENTS)).toEqual(entries);
    await h.close();
  });

  describe('the hash chain (decision 0080)', () => {
    const given: GivenEvent[] = [
      {
        id: 'e1',
        type: 'AccountRegistered',
        data: { username: 'ann', password_hash: 'x' },
        metadata: { account_id: 1, actor: 'user:1' },
        streamId: 'account-1',
      },
      {
        id: 'e2',
        type: 'AccountRegistered',
        data: { username: 'bob' },
        metadata: { account_id: 2, actor: 'user:2' },
        streamId: 'account-2',
      },
      { id: 'e3', type: 'CheckRecorded', data: { domain_id: 1 }, metadata: { account_id: 1 } },
      {
        id: 'e4',
        type: 'PasswordChanged',
        data: { changed_at: 't', note: 'é ü 😀' },
        metadata: { account_id: 1, actor: 'user:1', source_ip: '192.0.2.1' },
        streamId: 'account-1',
      },
      {
        id: 'e5',
        type: 'AccountDisabled',
        data: { at: 't' },
        metadata: { account_id: 1, actor: 'admin' },
        streamId: 'account-1',
        created: new Date(5000),
      },
    ];
    const chainOf = (docs: AuditEventDoc[], account: number) =>
      docs.filter((d) => d.account_id === account).sort((a, b) => a.position - b.position);

    it('links each account’s entries in order, from null, with hashes that recompute from the entry as shown', async () => {
      const h = await project(auditProjection, given);
      const docs = (await h.documents(AUDIT_EVENTS)) as AuditEventDoc[];
      const one = chainOf(docs, 1);
      expect(one.map((d) => d._id)).toEqual(['e1', 'e4', 'e5']);
      expect(one[0].prev_hash).toBeNull();
      expect(one[1].prev_hash).toBe(one[0].hash);
      expect(one[2].prev_hash).toBe(one[1].hash);
      for (const d of docs) expect(d.hash).toBe(rehash(d));
      // Another account's chain starts on its own.
      expect(chainOf(docs, 2).map((d) => [d._id, d.prev_hash])).toEqual([['e2', null]]);
      expect(await h.documents(AUDIT_CHAIN_HEADS)).toEqual([
        { _id: 1, position: 5, hash: one[2].hash },
        { _id: 2, position: 2, hash: chainOf(docs, 2)[0].hash },
      ]);
      await h.close();
    });

    it('gives the same hashes on a redelivery and on a rebuild from the same events', async () => {
      const first = await project(auditProjection, given);
      const docs = await first.documents(AUDIT_EVENTS);
      await first.replayed();
      expect(await first.documents(AUDIT_EVENTS)).toEqual(docs);
      await first.close();
      const rebuilt = await project(auditProjection, given);
      expect(await rebuilt.documents(AUDIT_EVENTS)).toEqual(docs);
      await rebuilt.close();
    });
  });
});
