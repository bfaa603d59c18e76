import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { AcmeClientAdapter, retryAfterMs } from './acme-client.adapter';
import { AcmeRetryLater } from './acme.port';

/**
 * A CA that is busy or rate limiting must come back as AcmeRetryLater with its
 * Retry-After (the process manager waits for it as a timer), not be slept on inside
 * acme-client nor fail the attempt. A real HTTP server on loopback plays the CA.
 */
describe('AcmeClientAdapter: busy and rate-limiting answers', () => {
  let server: Server;
  let answer: { status: number; headers: Record<string, string>; body: object };
  let requests = 0;
  let url: string;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      requests += 1;
      res.writeHead(answer.status, { 'content-type': 'application/problem+json', ...answer.headers });
      res.end(JSON.stringify(answer.body));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/dir`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  beforeEach(() => (requests = 0));

  const adapter = () => new AcmeClientAdapter(url, null, AcmeClientAdapter.createAccountKey);

  it('HTTP 429 with Retry-After: AcmeRetryLater carrying it, after one request', async () => {
    answer = {
      status: 429,
      headers: { 'retry-after': '7' },
      body: { type: 'urn:ietf:params:acme:error:rateLimited', detail: 'too many new orders' },
    };
    const error = await adapter()
      .placeOrder(['a.example'])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AcmeRetryLater);
    expect((error as AcmeRetryLater).retryAfterMs).toBe(7000);
    expect((error as Error).message).toMatch(/429.*rateLimited.*too many new orders/);
    expect(requests).toBe(1);
  });

  it('HTTP 503 without Retry-After: AcmeRetryLater with no time (the step backs off on its own)', async () => {
    answer = { status: 503, headers: {}, body: { detail: 'maintenance' } };
    const error = await adapter()
      .placeOrder(['a.example'])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AcmeRetryLater);
    expect((error as AcmeRetryLater).retryAfterMs).toBeNull();
  });

  it('any other answer (HTTP 400) is not taken for a busy CA', async () => {
    answer = { status: 400, headers: {}, body: { type: 'urn:ietf:params:acme:error:malformed', detail: 'no' } };
    const error = await adapter()
      .placeOrder(['a.example'])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(AcmeRetryLater);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:01:30 GMT', now)).toBe(90_000);
    expect(retryAfterMs('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeNull();
    expect(retryAfterMs(undefined, now)).toBeNull();
  });
});
