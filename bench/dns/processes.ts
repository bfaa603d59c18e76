/** Child processes the benchmark starts, each stopped by its own pid when the run ends or fails. */
import { spawn, type ChildProcess } from 'node:child_process';
import * as dgram from 'node:dgram';
import * as net from 'node:net';
import * as dnsPacket from 'dns-packet';

const running = new Set<ChildProcess>();

export function startProcess(
  command: string,
  args: string[],
  label: string,
  env: NodeJS.ProcessEnv = process.env,
): ChildProcess {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  running.add(child);
  child.on('exit', () => running.delete(child));
  child.stderr!.on('data', (d: Buffer) => process.stderr.write(`[${label}] ${d}`));
  return child;
}

export function stopProcess(child: ChildProcess, timeoutMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Last resort on exit or a signal: whatever is still running gets SIGTERM by pid. */
export function stopAllOnExit(): void {
  const killAll = () => {
    for (const child of running) child.kill('SIGTERM');
  };
  process.on('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      killAll();
      process.exit(130);
    });
  }
}

/** A port free for both UDP and TCP on 127.0.0.1. */
export async function freePort(): Promise<number> {
  for (;;) {
    const udp = dgram.createSocket('udp4');
    const port = await new Promise<number>((resolve) => udp.bind(0, '127.0.0.1', () => resolve(udp.address().port)));
    const tcpFree = await new Promise<boolean>((resolve) => {
      const server = net.createServer().once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    udp.close();
    if (tcpFree) return port;
  }
}

/** Resolves once the server on `port` answers `name` over UDP. */
export async function waitForAnswer(port: number, name: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const query = dnsPacket.encode({ type: 'query', id: 1, questions: [{ name, type: 'A' }] });
  while (Date.now() < deadline) {
    const answered = await new Promise<boolean>((resolve) => {
      const socket = dgram.createSocket('udp4');
      const timer = setTimeout(() => done(false), 300);
      const done = (ok: boolean) => {
        clearTimeout(timer);
        socket.close();
        resolve(ok);
      };
      socket.on('message', (m) => done(m.length >= 12 && (m.readUInt16BE(2) & 0x000f) === 0));
      socket.send(query, port, '127.0.0.1');
    });
    if (answered) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no answer for ${name} on port ${port} within ${timeoutMs} ms`);
}
