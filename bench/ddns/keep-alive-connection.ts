import { connect, Socket } from 'node:net';

/**
 * One HTTP/1.1 keep-alive connection that sends a GET and reads its answer, nothing
 * more. The DDNS benchmark's load generator shares the machine's two cores with the
 * server, and a general client (undici: request objects, header maps, a wasm parser)
 * cost it about 0.4 cores at 2.7k updates/s, CPU taken from the server it measures.
 * This is the `wrk` approach: the request is one string written in one system call,
 * and the answer is read by its Content-Length (DDNS answers are never chunked; a
 * chunked or length-less answer fails the benchmark rather than being misread).
 */
export class KeepAliveConnection {
  private readonly socket: Socket;
  private buffered: Buffer = Buffer.alloc(0);
  private waiting: { resolve: (r: { status: number; body: string }) => void; reject: (e: Error) => void } | null = null;
  private failure: Error | null = null;

  private constructor(
    private readonly host: string,
    port: number,
  ) {
    this.socket = connect({ host, port, noDelay: true });
    this.socket.on('data', (chunk) => this.received(chunk));
    this.socket.on('error', (e) => this.fail(e));
    this.socket.on('close', () => this.fail(new Error('connection closed by the server')));
  }

  static async open(host: string, port: number): Promise<KeepAliveConnection> {
    const c = new KeepAliveConnection(host, port);
    await new Promise<void>((resolve, reject) => {
      c.socket.once('connect', resolve);
      c.socket.once('error', reject);
    });
    return c;
  }

  get(path: string, headers: string): Promise<{ status: number; body: string }> {
    return this.send(`GET ${path} HTTP/1.1\r\nhost: ${this.host}\r\n${headers}\r\n`);
  }

  /** A request with a JSON body (the API's writes), in one write like the GET. */
  sendJson(method: string, path: string, headers: string, body: unknown): Promise<{ status: number; body: string }> {
    const json = JSON.stringify(body);
    return this.send(
      `${method} ${path} HTTP/1.1\r\nhost: ${this.host}\r\n${headers}content-type: ` +
        `application/json\r\ncontent-length: ${Buffer.byteLength(json)}\r\n\r\n${json}`,
    );
  }

  private send(request: string): Promise<{ status: number; body: string }> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.waiting) return Promise.reject(new Error('one request at a time on a connection'));
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.write(request, 'utf8');
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private received(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const headEnd = this.buffered.indexOf('\r\n\r\n');
    if (headEnd < 0) return;
    const head = this.buffered.toString('latin1', 0, headEnd);
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (!length) return this.fail(new Error(`answer without content-length: ${head}`));
    const end = headEnd + 4 + Number(length[1]);
    if (this.buffered.length < end) return;
    const status = Number(head.slice(9, 12));
    const body = this.buffered.toString('utf8', headEnd + 4, end);
    this.buffered = this.buffered.subarray(end);
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.resolve({ status, body });
  }

  private fail(e: Error): void {
    this.failure ??= e;
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.reject(e);
  }
}
