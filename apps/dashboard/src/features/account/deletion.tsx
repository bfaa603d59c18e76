import { useState } from 'preact/hooks';
import { ApiError, request } from '../../api/client';
import type { Account } from '../../api/types';
import { navigate } from '../../app/router';
import { useSession } from '../../app/session';
import { Form, TextField } from '../../components/forms';
import { useAction } from '../../components/resource';
import { DeleteAccountRequest, KEPT_ON_DELETION, REMOVED_ON_DELETION } from './deletion-types';

const DELETED_KEY = 'ads_account_deleted';

/** The login screen says once that the account was deleted (the page is signed out by then). */
export function takeDeletedNotice(): boolean {
  try {
    const deleted = sessionStorage.getItem(DELETED_KEY) !== null;
    sessionStorage.removeItem(DELETED_KEY);
    return deleted;
  } catch {
    return false;
  }
}

/** A wrong password is the login error (401 invalid_credentials); here it can only be this one. */
async function deleteAccount(body: DeleteAccountRequest): Promise<void> {
  try {
    await request<void>('DELETE', '/account', body, { quiet401: true });
  } catch (e) {
    if (e instanceof ApiError && e.code === 'invalid_credentials')
      throw new ApiError(e.status, e.code, 'The password is wrong.');
    throw e;
  }
}

/**
 * Account settings → Delete account (issue 27, decision 0090): says plainly what goes and what
 * stays, then asks for the password (and 2FA code) and the username typed out, so it is never a
 * slip of the mouse.
 */
export function DeleteAccountSection({ account }: { account: Account }) {
  const { refresh } = useSession();
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [tried, setTried] = useState(false);
  const remove = useAction(async () => {
    await deleteAccount({ password, ...(account.two_factor_enabled ? { code: code.trim() } : {}) });
    try {
      sessionStorage.setItem(DELETED_KEY, '1');
    } catch {
      /* storage off: the login screen just has no notice */
    }
    await refresh();
    navigate('/login', true);
  });
  const matches = typed.trim() === account.username;
  return (
    <section class="card danger-zone" aria-labelledby="delete-account-title">
      <h2 id="delete-account-title">Delete account</h2>
      <p>Deleting the account cannot be undone.</p>
      <div class="deletion-lists">
        <div>
          <h3>What is removed</h3>
          <ul>
            {REMOVED_ON_DELETION.map((t) => (
              <li key={t}>{t}</li>
            ))}
          </ul>
        </div>
        <div>
          <h3>What is kept</h3>
          <ul>
            {KEPT_ON_DELETION.map((t) => (
              <li key={t}>{t}</li>
            ))}
          </ul>
          <p>
            Download your audit log:{' '}
            <a href="/account/audit/export?format=jsonl" download>
              JSONL
            </a>
            {' / '}
            <a href="/account/audit/export?format=csv" download>
              CSV
            </a>
            . Your username <strong>{account.username}</strong> and email can be used for a new account afterwards.
          </p>
        </div>
      </div>
      {!open ? (
        <div class="button-row">
          <button type="button" class="button-danger-outline" onClick={() => setOpen(true)}>
            Delete account…
          </button>
        </div>
      ) : (
        <Form
          onSubmit={() => {
            setTried(true);
            if (matches) void remove.run();
          }}
          busy={remove.busy}
          error={remove.error}
          submitLabel={`Delete ${account.username} and everything in it`}
          busyLabel="Deleting…"
          label="Confirm account deletion"
          class="form-danger"
          actions={
            <button type="button" class="button-secondary" onClick={() => setOpen(false)}>
              Keep my account
            </button>
          }
        >
          <TextField
            label={`Type your username (${account.username}) to confirm`}
            name="confirm_username"
            value={typed}
            onValue={setTyped}
            autocomplete="off"
            required
            autoFocus
          />
          <TextField
            label="Password"
            name="password"
            type="password"
            value={password}
            onValue={setPassword}
            autocomplete="current-password"
            required
          />
          {account.two_factor_enabled && (
            <TextField
              label="6-digit code from your authenticator app"
              name="code"
              value={code}
              onValue={setCode}
              autocomplete="one-time-code"
              inputMode="numeric"
              required
            />
          )}
          {tried && !matches && (
            <p class="field-error" role="alert">
              Type your username exactly as shown to confirm.
            </p>
          )}
        </Form>
      )}
    </section>
  );
}
