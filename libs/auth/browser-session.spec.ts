import { assertCsrf, browserSessionToken, csrfTokenFor, setBrowserSession } from './browser-session';

const req = (method: string, headers: Record<string, string> = {}, cookies: Record<string, string> = {}) => ({
  method,
  headers,
  cookies,
  protocol: 'http',
});

describe('browser session cookie and CSRF token', () => {
  const token = 'st_abcdefghijklmnopqrstuvwxyz012345';

  it('derives a CSRF token per session that is not the session token or its lookup hash', () => {
    const csrf = csrfTokenFor(token);
    expect(csrf).toMatch(/^[0-9a-f]{64}$/);
    expect(csrf).toBe(csrfTokenFor(token));
    expect(csrf).not.toBe(csrfTokenFor(token + 'x'));
    expect(csrf).not.toContain(token);
  });

  it('reads the cookie only when no Authorization header is sent', () => {
    expect(browserSessionToken(req('GET', {}, { ads_session: token }))).toBe(token);
    expect(browserSessionToken(req('GET', { authorization: 'Bearer ak_x' }, { ads_session: token }))).toBeNull();
    expect(browserSessionToken(req('GET', {}, { ads_session: '' }))).toBeNull();
    expect(browserSessionToken(req('GET'))).toBeNull();
  });

  it('lets reads through and refuses state changes without the matching header', () => {
    expect(() => assertCsrf(req('GET'), token)).not.toThrow();
    expect(() => assertCsrf(req('HEAD'), token)).not.toThrow();
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      expect(() => assertCsrf(req(method), token)).toThrow('Missing or invalid CSRF token');
      expect(() => assertCsrf(req(method, { 'x-csrf-token': csrfTokenFor('st_other') }), token)).toThrow(
        'Missing or invalid CSRF token',
      );
      expect(() => assertCsrf(req(method, { 'x-csrf-token': csrfTokenFor(token) }), token)).not.toThrow();
    }
  });

  it('sets both cookies and answers without the token', () => {
    const set: Array<[string, string, Record<string, unknown>]> = [];
    const reply = {
      setCookie: (n: string, v: string, o: Record<string, unknown>) => set.push([n, v, o]),
      clearCookie: () => undefined,
    };
    const body = setBrowserSession({ ...req('POST'), protocol: 'https' }, reply, {
      access_token: token,
      token_type: 'bearer',
      expires_in: 60,
    });
    expect(body).toEqual({ token_type: 'cookie', expires_in: 60 });
    expect(set).toEqual([
      ['ads_session', token, { path: '/', httpOnly: true, sameSite: 'strict', secure: true, maxAge: 60 }],
      ['ads_csrf', csrfTokenFor(token), { path: '/', httpOnly: false, sameSite: 'strict', secure: true, maxAge: 60 }],
    ]);
  });
});
