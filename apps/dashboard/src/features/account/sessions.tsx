import { api, seg } from '../../api/client';
import { ConfirmButton } from '../../components/confirm';
import { dateTime } from '../../components/format';
import { useLive } from '../../components/live';
import { ErrorNotice, Loaded } from '../../components/notices';
import { useAction, useResource } from '../../components/resource';
import { DataTable } from '../../components/table';

interface SessionView {
  id: string;
  started_at: string;
  expires_at: string;
  source_ip: string | null;
  current: boolean;
}

/** The account's signed-in sessions (`GET /account/sessions`), each but this one with an end button. */
export function SessionsSection() {
  const sessions = useResource(() => api.get<{ sessions: SessionView[] }>('/account/sessions'));
  // A login elsewhere, or a session ended elsewhere, shows here without a reload.
  useLive(['audit'], sessions.reload);
  const end = useAction(async (id: string) => {
    await api.del(`/account/sessions/${seg(id)}`);
    await sessions.reload();
  });
  return (
    <section class="card" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Signed-in sessions</h2>
      <p class="hint">
        Each login starts a session that lasts 24 hours. End any you do not recognise; changing your password ends all
        but this one.
      </p>
      <ErrorNotice error={end.error} />
      <Loaded resource={sessions}>
        {(d) => (
          <DataTable
            caption="Active sessions, newest first"
            rows={d.sessions}
            rowKey={(s) => s.id}
            empty="No active sessions."
            columns={[
              { header: 'Started', cell: (s) => <span class="nowrap">{dateTime(s.started_at)}</span> },
              { header: 'From', cell: (s) => s.source_ip ?? '—' },
              { header: 'Ends', cell: (s) => <span class="nowrap">{dateTime(s.expires_at)}</span> },
              {
                header: 'Session',
                cell: (s) =>
                  s.current ? (
                    <strong>This browser</strong>
                  ) : (
                    <ConfirmButton
                      label="End session"
                      confirmLabel={`End the session started ${dateTime(s.started_at)}`}
                      busy={end.busy}
                      onConfirm={() => void end.run(s.id)}
                    />
                  ),
              },
            ]}
          />
        )}
      </Loaded>
    </section>
  );
}
