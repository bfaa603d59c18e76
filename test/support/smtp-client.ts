import * as net from 'node:net';

/**
 * An SMTP client on a bare socket, for what swaks cannot do: hold a session open, send a
 * message's DATA in pieces and stop half-way, connect from a chosen loopback address.
 */
export class SmtpSession {
  private buffered = '';
  private waiting: Array<(line: string) => void> = [];
  private replies: string[] = [];
  closed = false;

  private constructor(private readonly socket: net.Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      this.buffered += d;
      let nl: number;
      while ((nl = this.buffered.indexOf('\r\n')) >= 0) {
        const line = this.buffered.slice(0, nl);
        this.buffered = this.buffered.slice(nl + 2);
        // Multi-line replies ("250-...") end with the line that has a space after the code.
        if (/^\d{3}-/.test(line)) continue;
        const waiter = this.waiting.shift();
        if (waiter) waiter(line);
        else this.replies.push(line);
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.closed = true;
      for (const waiter of this.waiting.splice(0)) waiter('(closed)');
    });
  }

  /** Connects from `localAddress` (any 127.0.0.x works on Linux) and resolves with the session and its greeting. */
  static open(port: number, localAddress = '127.0.0.1'): Promise<{ session: SmtpSession; greeting: string }> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ port, host: '127.0.0.1', localAddress }, () => {
        const session = new SmtpSession(socket);
        session.reply(10_000).then((greeting) => resolve({ session, greeting }), reject);
      });
      socket.once('error', reject);
    });
  }

  /** The next whole reply (its last line), or '(closed)' once the server has hung up. */
  reply(timeoutMs = 20_000): Promise<string> {
    const ready = this.replies.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    if (this.closed) return Promise.resolve('(closed)');
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve('(timeout)'), timeoutMs);
      this.waiting.push((line) => {
        clearTimeout(timer);
        resolve(line);
      });
    });
  }

  async command(line: string): Promise<string> {
    this.socket.write(`${line}\r\n`);
    return this.reply();
  }

  /** EHLO, MAIL FROM, RCPT TO and DATA; throws unless each is accepted. */
  async begin(to: string): Promise<void> {
    for (const [line, code] of [
      ['EHLO reporter.example', '250'],
      ['MAIL FROM:<reports@reporter.example>', '250'],
      [`RCPT TO:<${to}>`, '250'],
      ['DATA', '354'],
    ]) {
      const answer = await this.command(line);
      if (!answer.startsWith(code)) throw new Error(`${line}: ${answer}`);
    }
  }

  /** Writes part of the message body (already dot-stuffed, CRLF lines), waiting until the socket took it. */
  send(bytes: Buffer | string): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      if (this.socket.write(bytes)) return resolve();
      // A server that hung up never drains: the write is over then too.
      const done = () => {
        this.socket.off('drain', done);
        this.socket.off('close', done);
        resolve();
      };
      this.socket.once('drain', done);
      this.socket.once('close', done);
    });
  }

  /** Ends the message and resolves with the server's answer to it. */
  async finish(): Promise<string> {
    this.socket.write('\r\n.\r\n');
    return this.reply();
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.socket.once('close', () => resolve());
      this.socket.destroy();
    });
  }
}

/** A mail with `content` attached (base64, so no line starts with a dot), CRLF lines. */
export const reportMail = (to: string, content: Buffer, name = 'report.xml', type = 'text/xml'): Buffer =>
  Buffer.from(
    [
      'From: reports@reporter.example',
      `To: ${to}`,
      'Subject: Report',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="b0"',
      '',
      '--b0',
      'Content-Type: text/plain',
      '',
      'A report.',
      '--b0',
      `Content-Type: ${type}; name="${name}"`,
      `Content-Disposition: attachment; filename="${name}"`,
      'Content-Transfer-Encoding: base64',
      '',
      ...(content.toString('base64').match(/.{1,76}/g) ?? []),
      '--b0--',
      '',
    ].join('\r\n'),
  );
