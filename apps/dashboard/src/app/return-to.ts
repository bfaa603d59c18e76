/**
 * Where to go back to after the session ended under the page (expired, logged out
 * elsewhere, password changed): the page the user was on. Kept in sessionStorage so a
 * reload of the login screen still knows it; taken once.
 */
const KEY = 'ads_return_to';

export function rememberReturn(path: string): void {
  try {
    if (path !== '/login' && path !== '/signup') sessionStorage.setItem(KEY, path);
  } catch {
    /* storage off: the user lands on the overview */
  }
}

export function pendingReturn(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function takeReturn(): string | null {
  const path = pendingReturn();
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    /* nothing kept */
  }
  return path;
}
