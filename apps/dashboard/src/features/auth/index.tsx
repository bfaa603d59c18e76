import { useState } from 'preact/hooks';
import { api } from '../../api/client';
import type { LoginAnswer } from '../../api/types';
import { Link } from '../../app/link';
import { pendingReturn } from '../../app/return-to';
import { navigate } from '../../app/router';
import type { ScreenDef } from '../../app/screen';
import { useSession } from '../../app/session';
import { Form, TextField } from '../../components/forms';
import { Notice } from '../../components/notices';
import { takeDeletedNotice } from '../account/deletion';
import { useAction } from '../../components/resource';

/** Asks the service for a cookie session instead of a token in the body (contract §14). */
const COOKIE_LOGIN = { headers: { 'X-Session-Transport': 'cookie' }, quiet401: true };

function LoginScreen() {
  const { refresh } = useSession();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [challenge, setChallenge] = useState<string | null>(null);
  const [code, setCode] = useState('');
  // Signed in, the app leaves the login screen: for the page the session ended on, or the overview.
  const finish = () => refresh();
  const returning = pendingReturn();
  // Read once per visit to the screen: the notice is for the page the deletion led to.
  const [deleted] = useState(takeDeletedNotice);
  const login = useAction(async () => {
    const answer = await api.post<LoginAnswer>('/auth/login', { username, password }, COOKIE_LOGIN);
    if ('requires_2fa' in answer) setChallenge(answer.login_token);
    else await finish();
  });
  const second = useAction(async () => {
    await api.post('/auth/login/2fa', { login_token: challenge, code: code.trim() }, COOKIE_LOGIN);
    await finish();
  });

  if (challenge)
    return (
      <section class="card narrow" aria-labelledby="second-step">
        <h2 id="second-step">Two-factor code</h2>
        <p>Enter the 6-digit code from your authenticator app, or one of your backup codes.</p>
        {/* Its own key: a new form whose code field takes focus, not the password form reused. */}
        <Form
          key="second-step"
          onSubmit={() => void second.run()}
          busy={second.busy}
          error={second.error}
          submitLabel="Verify and log in"
          busyLabel="Verifying…"
          label="Two-factor code"
        >
          <TextField
            label="Code"
            name="code"
            value={code}
            onValue={setCode}
            autocomplete="one-time-code"
            inputMode="numeric"
            required
            autoFocus
          />
        </Form>
        <p>
          <button type="button" class="link-button" onClick={() => setChallenge(null)}>
            Start over
          </button>
        </p>
      </section>
    );
  return (
    <section class="card narrow">
      {deleted && (
        <Notice kind="success">
          <p>Your account has been deleted. Its hosts and zones are being removed; the audit log is kept.</p>
        </Notice>
      )}
      {returning && (
        <Notice kind="warning">
          <p>
            Your session has ended: it expired, or it was ended elsewhere (a logout or a password change). Log in again
            to go back to the page you were on.
          </p>
        </Notice>
      )}
      <Form
        onSubmit={() => void login.run()}
        busy={login.busy}
        error={login.error}
        submitLabel="Log in"
        busyLabel="Logging in…"
        label="Log in"
      >
        <TextField
          label="Username or email"
          name="username"
          value={username}
          onValue={setUsername}
          autocomplete="username"
          required
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
      </Form>
      <p>
        New here? <Link to="/signup">Create an account</Link>
      </p>
    </section>
  );
}

function SignUpScreen() {
  const { refresh } = useSession();
  const [username, setUsername] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const signup = useAction(async () => {
    await api.post('/auth/register', { username, email, password }, { quiet401: true });
    await api.post<LoginAnswer>('/auth/login', { username, password }, COOKIE_LOGIN);
    await refresh();
    navigate('/');
  });
  return (
    <section class="card narrow">
      <Form
        onSubmit={() => void signup.run()}
        busy={signup.busy}
        error={signup.error}
        submitLabel="Create account"
        busyLabel="Creating…"
        label="Sign up"
      >
        <TextField
          label="Username"
          name="username"
          value={username}
          onValue={setUsername}
          autocomplete="username"
          required
          minLength={3}
          maxLength={32}
          pattern="[a-z0-9_\-]{3,32}"
          hint="3 to 32 characters: lowercase letters, digits, _ and -."
        />
        <TextField
          label="Email"
          name="email"
          type="email"
          value={email}
          onValue={setEmail}
          autocomplete="email"
          required
        />
        <TextField
          label="Password"
          name="password"
          type="password"
          value={password}
          onValue={setPassword}
          autocomplete="new-password"
          required
          minLength={10}
          maxLength={256}
          hint="At least 10 characters."
        />
      </Form>
      <p>
        Already have an account? <Link to="/login">Log in</Link>
      </p>
    </section>
  );
}

export const authScreens: ScreenDef[] = [
  { path: '/login', title: 'Log in', public: true, component: LoginScreen },
  { path: '/signup', title: 'Create your account', public: true, component: SignUpScreen },
];
