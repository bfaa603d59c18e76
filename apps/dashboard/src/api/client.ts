/**
 * The one way the dashboard talks to the service: the public management API, with the
 * browser session cookie and the CSRF header (contract §14). No token is ever stored by
 * the page; errors arrive in the contract's shape and become ApiError.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds from Retry-After (429): how long a lockout or rate limit lasts. */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

const CSRF_COOKIE = 'ads_csrf';
const SAFE = new Set(['GET', 'HEAD']);

function csrfToken(): string | null {
  for (const part of document.cookie.split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === CSRF_COOKIE) return decodeURIComponent(value.join('='));
  }
  return null;
}

type Listener = () => void;
const unauthorizedListeners = new Set<Listener>();
/** Called when the session ends under the page (expired, logged out elsewhere, password changed). */
export const onUnauthorized = (l: Listener): (() => void) => {
  unauthorizedListeners.add(l);
  return () => unauthorizedListeners.delete(l);
};

export interface RequestOptions {
  headers?: Record<string, string>;
  /** Do not announce a 401 as a lost session (the first /account probe of a signed-out visitor). */
  quiet401?: boolean;
}

export async function request<T>(
  method: string,
  path: string,
  body?: unknown,
  options: RequestOptions = {},
): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (!SAFE.has(method)) {
    const token = csrfToken();
    if (token) headers['X-CSRF-Token'] = token;
  }
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
    });
  } catch {
    throw new ApiError(0, 'network_error', 'The service cannot be reached. Check your connection and try again.');
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON: handled below */
  }
  if (!res.ok) {
    const err = (json as { error?: { code?: string; message?: string } } | null)?.error;
    // Only a lost session signs the page out; a wrong password (invalid_credentials) is an answer to show.
    if (res.status === 401 && err?.code === 'unauthorized' && !options.quiet401)
      unauthorizedListeners.forEach((l) => l());
    const retryAfter = Number(res.headers.get('Retry-After'));
    throw new ApiError(
      res.status,
      err?.code ?? 'http_error',
      err?.message ?? `The service answered ${res.status}`,
      Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
    );
  }
  return json as T;
}

export const api = {
  get: <T>(path: string, options?: RequestOptions) => request<T>('GET', path, undefined, options),
  post: <T>(path: string, body?: unknown, options?: RequestOptions) => request<T>('POST', path, body ?? {}, options),
  put: <T>(path: string, body: unknown, options?: RequestOptions) => request<T>('PUT', path, body, options),
  del: <T = void>(path: string, options?: RequestOptions) => request<T>('DELETE', path, undefined, options),
};

/** Path segment from user data. */
export const seg = (value: string | number): string => encodeURIComponent(String(value));
