/**
 * Decision 0085: `GET /account/events/stream`, the dashboard's live notices over
 * Server-Sent Events. Real app over real HTTP: each account hears of its own changes only,
 * notices carry no data, streams are capped per session, keys are refused, and a logout
 * ends the stream it authenticated.
 */
import { startTestApp, TestApp, registerAndLogin } from './support/test-app';

jest.setTimeout(60_000);

interface Frame {
  event: string;
  data: any;
}

/** An open SSE stream: frames as they arrive (comments included, as `comment`). */
class SseReader {
  readonly frames: Frame[] = [];
  closed = false;
  private constructor(
    readonly status: number,
    private readonly abort: AbortController,
  ) {}

  static async open(url: string, token: string): Promise<SseReader & { body?: string }> {
    const abort = new AbortController();
    const res = await fetch(url, {
      headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
      signal: abort.signal,
    });
    const reader = new SseReader(res.status, abort);
    if (res.status !== 200) return Object.assign(reader, { body: await res.text() });
    void reader.pump(res.body!);
    return reader;
  }

  private async pump(body: ReadableStream<Uint8Array>) {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const lines = block.split('\n');
          if (lines.every((l) => l.startsWith(':'))) this.frames.push({ event: 'comment', data: block });
          const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
          const data = lines.find((l) => l.startsWith('data: '))?.slice(6);
          if (event) this.frames.push({ event, data: data ? JSON.parse(data) : null });
        }
      }
    } catch {
      /* aborted */
    }
    this.closed = true;
  }

  async next(ok: (f: Frame) => boolean, timeoutMs = 5000): Promise<Frame | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const found = this.frames.find(ok);
      if (found) return found;
      await new Promise((r) => setTimeout(r, 20));
    }
    return undefined;
  }

  close() {
    this.abort.abort();
  }
}

describe('live events stream (decision 0085)', () => {
  let app: TestApp;
  const open: SseReader[] = [];
  const stream = async (token: string) => {
    const s = await SseReader.open(`${app.url}/account/events/stream`, token);
    open.push(s);
    return s;
  };

  beforeAll(async () => {
    app = await startTestApp({ env: { DDNS_ZONES: 'dyn.example.net', ALLOW_PRIVATE_TARGETS: 'true' } });
  });
  afterEach(() => open.splice(0).forEach((s) => s.close()));
  afterAll(async () => app?.close());

  it("tells an account of its own host's change, once the read model holds it, and another account nothing", async () => {
    const alice = await registerAndLogin(app.http);
    const bob = await registerAndLogin(app.http);
    const aliceStream = await stream(alice.token);
    const bobStream = await stream(bob.token);
    expect(aliceStream.status).toBe(200);
    expect(await aliceStream.next((f) => f.event === 'ready')).toEqual({
      event: 'ready',
      data: { topics: expect.arrayContaining(['uptime', 'certificates', 'audit', 'ddns']) },
    });
    await bobStream.next((f) => f.event === 'ready');

    const created = await app.http.post(
      '/api/domains',
      { fqdn: 'live.dyn.example.net', record_type: 'A', record_ip: '192.0.2.10' },
      alice.token,
    );
    expect(created.status).toBe(201);
    const notice = await aliceStream.next((f) => f.event === 'change' && f.data.type === 'DomainCreated');
    expect(notice?.data).toEqual({
      topics: expect.arrayContaining(['ddns', 'audit', 'uptime']),
      type: 'DomainCreated',
      ref: String(created.body.id),
    });
    // A notice is only "read again": no field of the host travels in it.
    expect(JSON.stringify(notice?.data)).not.toContain('192.0.2.10');

    const updated = await app.http.put(
      '/api/domains/fqdn/live.dyn.example.net',
      { record_ip: '192.0.2.11' },
      alice.token,
    );
    expect(updated.status).toBe(200);
    await aliceStream.next((f) => f.event === 'change' && f.data.type === 'DomainAddressesChanged');
    // Bob's stream stays open and hears nothing of Alice.
    expect(bobStream.frames.filter((f) => f.event === 'change')).toEqual([]);
    expect(bobStream.closed).toBe(false);
  });

  it('caps streams per session (429 too_many_streams), refuses API keys and anonymous callers', async () => {
    const carol = await registerAndLogin(app.http, { plan: 'pro' });
    const streams = await Promise.all([1, 2, 3, 4].map(() => stream(carol.token)));
    expect(streams.map((s) => s.status)).toEqual([200, 200, 200, 200]);
    const fifth = await stream(carol.token);
    expect(fifth.status).toBe(429);
    expect(JSON.parse(fifth.body!)).toEqual({ error: { code: 'too_many_streams', message: expect.any(String) } });
    // Closing one frees its place.
    streams[0].close();
    let again: SseReader | undefined;
    for (let i = 0; i < 50 && again?.status !== 200; i++) {
      again?.close();
      again = await stream(carol.token);
      if (again.status !== 200) await new Promise((r) => setTimeout(r, 50));
    }
    expect(again?.status).toBe(200);

    const key = await app.http.post('/api-keys/', { name: 'live' }, carol.token);
    expect(key.status).toBe(201);
    const byKey = await stream(key.body.key);
    expect(byKey.status).toBe(403);
    expect(JSON.parse(byKey.body!).error.code).toBe('session_required');
    const anonymous = await fetch(`${app.url}/account/events/stream`);
    expect(anonymous.status).toBe(401);
  });

  it('ends the stream when its session ends (logout), with a session_ended frame', async () => {
    const dave = await registerAndLogin(app.http);
    const s = await stream(dave.token);
    await s.next((f) => f.event === 'ready');
    expect((await app.http.post('/auth/logout', undefined, dave.token)).status).toBe(204);
    expect(await s.next((f) => f.event === 'session_ended')).toBeDefined();
    const deadline = Date.now() + 5000;
    while (!s.closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(s.closed).toBe(true);
  });

  it('ends the stream when the account is deleted (decision 0090), with a session_ended frame', async () => {
    const erin = await registerAndLogin(app.http);
    const s = await stream(erin.token);
    await s.next((f) => f.event === 'ready');
    const deleted = await app.http.request('DELETE', '/account', {
      body: { password: erin.password },
      token: erin.token,
    });
    expect(deleted.status).toBe(204);
    expect(await s.next((f) => f.event === 'session_ended')).toBeDefined();
    const deadline = Date.now() + 5000;
    while (!s.closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(s.closed).toBe(true);
  });
});
