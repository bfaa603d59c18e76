import { useEffect, useState } from 'preact/hooks';

/** Client-side routes live under /app; the server answers every /app/* path with the application. */
export const BASE = '/app';

const CHANGE = 'dashboard:navigate';

/** The route path without the base: `/app/zones/x` → `/zones/x`. */
export function currentPath(): string {
  const p = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : location.pathname;
  return p === '' ? '/' : p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
}

export const href = (path: string): string => BASE + (path === '/' ? '/' : path);

export function navigate(path: string, replace = false): void {
  if (replace) history.replaceState(null, '', href(path));
  else history.pushState(null, '', href(path));
  window.dispatchEvent(new Event(CHANGE));
}

export function usePath(): string {
  const [path, setPath] = useState(currentPath);
  useEffect(() => {
    const update = () => setPath(currentPath());
    window.addEventListener('popstate', update);
    window.addEventListener(CHANGE, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(CHANGE, update);
    };
  }, []);
  return path;
}

/** Matches `/zones/:zone` against `/zones/example.com`; parameters are decoded. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const a = pattern.split('/').filter(Boolean);
  const b = path.split('/').filter(Boolean);
  if (a.length !== b.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < a.length; i++) {
    if (a[i].startsWith(':')) params[a[i].slice(1)] = decodeURIComponent(b[i]);
    else if (a[i] !== b[i]) return null;
  }
  return params;
}
