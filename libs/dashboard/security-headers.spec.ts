import { createServer, request } from 'node:http';
import helmet from 'helmet';
import { helmetHeaders } from './security-headers';

describe('helmetHeaders', () => {
  const options = { contentSecurityPolicy: false, frameguard: { action: 'deny' as const } };

  it('are the headers helmet itself sets on a real response, CSP left out and framing denied', async () => {
    const middleware = helmet(options);
    const server = createServer((req, res) => middleware(req, res, () => res.end()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const sent = await new Promise<Record<string, unknown>>((resolve, reject) =>
      request({ port, host: '127.0.0.1', path: '/' }, (res) => {
        res.resume();
        resolve(res.headers);
      })
        .on('error', reject)
        .end(),
    );
    server.close();
    const computed = Object.fromEntries(Object.entries(helmetHeaders(options)).map(([k, v]) => [k.toLowerCase(), v]));
    for (const [name, value] of Object.entries(computed)) expect([name, sent[name]]).toEqual([name, value]);
    expect(computed['x-frame-options']).toBe('DENY');
    expect(computed['x-content-type-options']).toBe('nosniff');
    expect(computed['content-security-policy']).toBeUndefined();
    expect(Object.keys(computed).length).toBeGreaterThan(8);
  });
});
