import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, onUnauthorized } from '../api/client';
import type { Account } from '../api/types';
import { useLiveSession } from '../components/live';
import { Loading } from '../components/notices';
import { PlanGate } from '../components/plan-gate';
import { Layout, PublicLayout } from './layout';
import { Link } from './link';
import { SCREENS } from './registry';
import { rememberReturn, takeReturn } from './return-to';
import { currentPath, matchPath, navigate, usePath } from './router';
import type { ScreenDef } from './screen';
import { Session, SessionContext } from './session';

function resolve(path: string): { screen: ScreenDef; params: Record<string, string> } | null {
  for (const screen of SCREENS) {
    const params = matchPath(screen.path, path);
    if (params) return { screen, params };
  }
  return null;
}

const titleOf = (s: ScreenDef, params: Record<string, string>) =>
  typeof s.title === 'function' ? s.title(params) : s.title;

export function App() {
  const path = usePath();
  const [account, setAccount] = useState<Account | null | undefined>(undefined);
  const signedIn = useRef(false);
  signedIn.current = Boolean(account);

  const refresh = useCallback(async () => {
    try {
      const a = await api.get<Account>('/account', { quiet401: true });
      setAccount(a);
      return a;
    } catch {
      setAccount(null);
      return null;
    }
  }, []);

  const logout = useCallback(async () => {
    try {
      await api.post('/auth/logout', undefined, { quiet401: true });
    } finally {
      setAccount(null);
      navigate('/login');
    }
  }, []);

  useEffect(() => {
    void refresh();
    // The session ended under the page: the login screen says so and brings the user back here.
    return onUnauthorized(() => {
      // Only a page that was signed in lost a session; a late answer after a logout is not one.
      if (signedIn.current) rememberReturn(currentPath());
      setAccount(null);
    });
  }, [refresh]);

  useLiveSession(Boolean(account));

  const session: Session = useMemo(() => ({ account, refresh, logout }), [account, refresh, logout]);
  const match = resolve(path);

  // Signed-out visitors land on the login screen; signed-in ones skip it.
  useEffect(() => {
    if (account === null && (!match || !match.screen.public)) navigate('/login', true);
    if (account && match?.screen.public) navigate(takeReturn() ?? '/', true);
  }, [account, match?.screen]);

  const title = match ? titleOf(match.screen, match.params) : 'Page not found';
  useEffect(() => {
    document.title = `${title} · Account DNS`;
  }, [title]);

  // Move focus to the new screen's heading so keyboard and screen-reader users start there.
  const heading = useRef<HTMLHeadingElement>(null);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    heading.current?.focus();
  }, [path]);

  let body;
  if (account === undefined) body = <Loading label="Opening your dashboard…" />;
  else if (!match)
    body = (
      <p>
        There is no page at this address. <Link to="/">Go to the overview</Link>.
      </p>
    );
  else if (account && match.screen.requires && !match.screen.requires.allows(account))
    body = <PlanGate requirement={match.screen.requires} title={title} />;
  else if (account || match.screen.public) {
    const Screen = match.screen.component;
    body = <Screen params={match.params} account={account!} />;
  } else body = <Loading />;

  const content = (
    <>
      <h1 ref={heading} tabIndex={-1}>
        {title}
      </h1>
      {body}
    </>
  );
  return (
    <SessionContext.Provider value={session}>
      {account ? (
        <Layout screens={SCREENS} active={match?.screen ?? null} account={account}>
          {content}
        </Layout>
      ) : (
        <PublicLayout>{content}</PublicLayout>
      )}
    </SessionContext.Provider>
  );
}
