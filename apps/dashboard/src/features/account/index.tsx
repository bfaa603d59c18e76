import { useState } from 'preact/hooks';
import { api, ApiError } from '../../api/client';
import type { BackupCodes, TwoFactorEnabled, TwoFactorSetup, TwoFactorStatus } from '../../api/types';
import type { ScreenDef, ScreenProps } from '../../app/screen';
import { useSession } from '../../app/session';
import { Form, TextField } from '../../components/forms';
import { Loaded, Notice } from '../../components/notices';
import { useAction, useResource } from '../../components/resource';
import { CopyBlock } from '../../components/secret';
import { DeleteAccountSection } from './deletion';
import { SessionsSection } from './sessions';

/**
 * The service answers a wrong password with its login error (401 invalid_credentials,
 * "Invalid username or password"); on these forms the only credential asked is the current
 * password, so that is what the message names.
 */
async function withCurrentPassword<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (e instanceof ApiError && e.code === 'invalid_credentials')
      throw new ApiError(e.status, e.code, 'The current password is wrong.');
    throw e;
  }
}

/** Backup codes are shown once, right after they are made; the page keeps them only in memory. */
function BackupCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  return (
    <div class="card">
      <h3>Your backup codes</h3>
      <Notice kind="warning">
        <p>
          Each code logs you in once if you lose your authenticator. They are shown only now: copy or download them and
          keep them somewhere safe.
        </p>
      </Notice>
      <CopyBlock label="Backup codes" text={codes.join('\n')} filename="account-dns-backup-codes.txt" />
      <button type="button" onClick={onDone}>
        I have saved them
      </button>
    </div>
  );
}

function TwoFactorSection() {
  const { refresh } = useSession();
  const status = useResource(() => api.get<TwoFactorStatus>('/2fa/status'));
  const [setup, setSetup] = useState<TwoFactorSetup | null>(null);
  const [code, setCode] = useState('');
  const [codes, setCodes] = useState<string[] | null>(null);
  const [password, setPassword] = useState('');
  const start = useAction(async () => setSetup(await api.post<TwoFactorSetup>('/2fa/setup')));
  const verify = useAction(async () => {
    const r = await api.post<TwoFactorEnabled>('/2fa/verify', {
      setup_token: setup!.setup_token,
      code: code.trim(),
    });
    setSetup(null);
    setCode('');
    setCodes(r.backup_codes);
    await Promise.all([status.reload(), refresh()]);
  });
  const disable = useAction(async () => {
    await withCurrentPassword(() => api.post('/2fa/disable', { password }));
    setPassword('');
    await Promise.all([status.reload(), refresh()]);
  });
  const regenerate = useAction(async () => {
    const r = await withCurrentPassword(() => api.post<BackupCodes>('/2fa/backup-codes', { password }));
    setPassword('');
    setCodes(r.backup_codes);
    await status.reload();
  });

  return (
    <section class="card" aria-labelledby="twofa-title">
      <h2 id="twofa-title">Two-factor authentication</h2>
      {codes && <BackupCodes codes={codes} onDone={() => setCodes(null)} />}
      <Loaded resource={status}>
        {(s) =>
          s.enabled ? (
            <>
              <p>
                <span class="status status-ok">On</span> {s.backup_codes_remaining} backup codes left.
              </p>
              <Form
                onSubmit={() => void regenerate.run()}
                busy={regenerate.busy || disable.busy}
                error={regenerate.error ?? disable.error}
                submitLabel="New backup codes"
                label="Manage two-factor authentication"
              >
                <TextField
                  label="Current password"
                  name="password"
                  type="password"
                  value={password}
                  onValue={setPassword}
                  autocomplete="current-password"
                  required
                  hint="Needed to make new backup codes or to turn two-factor authentication off."
                />
                <div class="button-row">
                  <button
                    type="button"
                    class="button-danger-outline"
                    disabled={disable.busy || !password}
                    onClick={() => void disable.run()}
                  >
                    Turn off two-factor authentication
                  </button>
                </div>
              </Form>
            </>
          ) : setup ? (
            <div class="twofa-setup">
              <ol>
                <li>Scan the QR code with an authenticator app (or type the secret key in).</li>
                <li>Enter the 6-digit code it shows.</li>
              </ol>
              <img
                src={setup.qr_code}
                width={200}
                height={200}
                alt={`QR code for the authenticator app. Secret key: ${setup.secret}`}
              />
              <p>
                Secret key: <code class="secret">{setup.secret}</code>
              </p>
              <Form
                onSubmit={() => void verify.run()}
                busy={verify.busy}
                error={verify.error}
                submitLabel="Turn on"
                busyLabel="Verifying…"
                label="Confirm two-factor setup"
              >
                <TextField
                  label="6-digit code"
                  name="code"
                  value={code}
                  onValue={setCode}
                  autocomplete="one-time-code"
                  inputMode="numeric"
                  required
                />
              </Form>
            </div>
          ) : (
            <>
              <p>
                <span class="status status-off">Off</span> Protect your account with a code from an authenticator app at
                each login.
              </p>
              {start.error && <Notice kind="warning">{start.error.message}</Notice>}
              <button type="button" disabled={start.busy} onClick={() => void start.run()}>
                Set up two-factor authentication
              </button>
            </>
          )
        }
      </Loaded>
    </section>
  );
}

function PasswordSection() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [done, setDone] = useState(false);
  const change = useAction(async () => {
    await withCurrentPassword(() => api.post('/account/password', { current_password: current, new_password: next }));
    setCurrent('');
    setNext('');
    setDone(true);
  });
  return (
    <section class="card" aria-labelledby="password-title">
      <h2 id="password-title">Password</h2>
      {done && <Notice kind="success">Password changed. Your other sessions have been logged out.</Notice>}
      <Form
        onSubmit={() => void change.run()}
        busy={change.busy}
        error={change.error}
        submitLabel="Change password"
        label="Change password"
      >
        <TextField
          label="Current password"
          name="current_password"
          type="password"
          value={current}
          onValue={setCurrent}
          autocomplete="current-password"
          required
        />
        <TextField
          label="New password"
          name="new_password"
          type="password"
          value={next}
          onValue={setNext}
          autocomplete="new-password"
          required
          minLength={10}
          hint="At least 10 characters. Other sessions end when it changes."
        />
      </Form>
    </section>
  );
}

function SecurityScreen({ account }: ScreenProps) {
  return (
    <div class="stack">
      <TwoFactorSection />
      <PasswordSection />
      <SessionsSection />
      <DeleteAccountSection account={account} />
    </div>
  );
}

export const accountScreens: ScreenDef[] = [
  { path: '/account/security', title: 'Security', nav: { label: 'Security', order: 80 }, component: SecurityScreen },
];
