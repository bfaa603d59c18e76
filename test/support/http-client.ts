export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface HttpResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** A tiny client over real HTTP (fetch), JSON in and out. */
export class HttpClient {
  constructor(readonly baseUrl: string) {}

  async request<T = any>(
    method: string,
    path: string,
    options: { body?: unknown; raw?: string; token?: string; headers?: Record<string, string> } = {},
  ): Promise<HttpResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
    const res = await fetch(this.baseUrl + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON: keep text */
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get<T = any>(path: string, token?: string, headers?: Record<string, string>) {
    return this.request<T>('GET', path, { token, headers });
  }
  post<T = any>(path: string, body?: unknown, token?: string, headers?: Record<string, string>) {
    return this.request<T>('POST', path, { body, token, headers });
  }
  put<T = any>(path: string, body?: unknown, token?: string) {
    return this.request<T>('PUT', path, { body, token });
  }
  delete<T = any>(path: string, token?: string) {
    return this.request<T>('DELETE', path, { token });
  }
  admin<T = any>(method: string, path: string, body?: unknown) {
    return this.request<T>(method, path, { body, headers: { 'x-admin-token': ADMIN_TOKEN } });
  }
}

let counter = 0;
/** Registers an account (optionally on a plan) and logs in; returns its id and session token. */
export async function registerAndLogin(
  http: HttpClient,
  options: { plan?: 'free' | 'plus' | 'pro' | 'elite'; username?: string; password?: string } = {},
): Promise<{ id: number; username: string; password: string; email: string; token: string }> {
  counter += 1;
  const username = options.username ?? `user${process.pid % 10000}x${counter}`;
  const password = options.password ?? 'a-long-enough-password';
  const email = `${username}@example.com`;
  const reg = await http.post('/auth/register', { username, email, password });
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${reg.text}`);
  if (options.plan && options.plan !== 'free') {
    const sub = await http.admin('PUT', `/admin/accounts/${reg.body.id}/subscription`, { plan: options.plan });
    if (sub.status !== 200) throw new Error(`subscription failed: ${sub.status} ${sub.text}`);
  }
  const login = await http.post('/auth/login', { username, password });
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${login.text}`);
  return { id: reg.body.id, username, password, email, token: login.body.access_token };
}
