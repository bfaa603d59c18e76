import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One delivery as the receiver got it: the signature checked by `standardwebhooks`, an implementation independent of the service's. */
export interface Received {
  path: string;
  id: string;
  headers: IncomingHttpHeaders;
  body: any;
  verified: boolean;
  at: number;
}

export type Answer = 'ok' | 'fail' | 'redirect';

/**
 * A real HTTP receiver on loopback for webhook tests and the bench (bench/event-log/webhooks.ts): verifies every
 * delivery's Standard Webhooks signature with the endpoint's secret (registered per path),
 * answers as told per path, and can go down (connections refused) and come back on the
 * same port.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  /** Every request's path, whatever the answer. */
  readonly hits: string[] = [];
  private readonly secrets = new Map<string, Webhook>();
  private readonly answers = new Map<string, Answer>();
  private server: Server | null = null;
  port = 0;
  /** Delay before answering, to keep deliveries in flight (crash tests). */
  delayMs = 0;
  /** Called with each delivery (the bench counts and times them). */
  onDelivery: ((r: Received) => void) | null = null;
  /** Verify signatures (the bench turns it off to measure the service, not the check). */
  verify = true;

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  secret(path: string, secret: string): void {
    this.secrets.set(path, new Webhook(secret));
  }

  answer(path: string, answer: Answer): void {
    this.answers.set(path, answer);
  }

  on(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async start(port = 0): Promise<void> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const path = req.url ?? '/';
        this.hits.push(path);
        let verified = false;
        if (this.verify) {
          try {
            this.secrets.get(path)?.verify(raw, req.headers as Record<string, string>);
            verified = this.secrets.has(path);
          } catch {
            verified = false;
          }
        }
        const r: Received = {
          path,
          id: String(req.headers['webhook-id']),
          headers: req.headers,
          body: JSON.parse(raw),
          verified,
          at: Date.now(),
        };
        const answer = this.answers.get(path) ?? 'ok';
        const reply = () => {
          if (answer === 'ok') this.received.push(r);
          this.onDelivery?.(r);
          if (answer === 'redirect') res.writeHead(302, { location: `${path}/moved` }).end();
          else res.writeHead(answer === 'ok' ? 204 : 500).end();
        };
        if (this.delayMs) setTimeout(reply, this.delayMs);
        else reply();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
  }

  /** Stops listening: deliveries meet a refused connection until `start(this.port)` again. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Waits until `done()` holds, polling; fails after `timeoutMs` with `what`. */
  async until(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (received ${this.received.length})`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/**
 * Whether `received` is `expected` in order, at least once each: every item is either the
 * next one not yet seen, or a repeat of one seen before (an at-least-once re-send after a
 * crash goes back and comes forward again in order); never one that skips ahead.
 */
export function inOrder<T>(received: readonly T[], expected: readonly T[]): boolean {
  let seen = 0;
  for (const x of received) {
    const at = expected.indexOf(x);
    if (at < 0 || at > seen) return false;
    if (at === seen) seen += 1;
  }
  return seen === expected.length;
}

/** Consecutive repeats (an at-least-once resend after a crash) collapsed: what "in order" is judged on. */
export const withoutRepeats = <T>(items: readonly T[]): T[] => items.filter((x, i) => i === 0 || x !== items[i - 1]);
