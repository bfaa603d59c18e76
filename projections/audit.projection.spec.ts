import { project } from '../libs/projection-engine/projection-harness';
import { AUDIT_EVENTS, auditProjection } from './audit.projection';

describe('audit projection', () => {
  it('given account state changes: one entry each with actor, IP and correlation, secrets redacted; telemetry and replays add nothing', async () => {
    const meta = { account_id: 7, actor: 'user:7', source_ip: '192.0.2.9', correlation_id: 'req-1' };
    const h = await project(auditProjection, [
      { type: 'PasswordChanged', data: { password_hash: 'secret-hash', changed_at: 't', kept_session_id: null }, metadata: meta, streamId: 'account-7' },
      { type: 'CheckRecorded', data: { domain_id: 1, is_up: true }, metadata: meta },
      { type: 'AccountDisabled', data: { at: 't' }, metadata: { account_id: 7, actor: 'admin' }, streamId: 'account-7' },
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
});
