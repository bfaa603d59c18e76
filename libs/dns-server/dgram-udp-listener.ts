/** UDP through node:dgram: one 'message' event and one send() per packet. The portable fallback. */
import * as dgram from 'node:dgram';
import { isIPv6 } from 'node:net';
import { performance } from 'node:perf_hooks';
import { MAX_UDP_PAYLOAD } from './wire';
import type { UdpListenOptions, UdpListener, UdpResponder } from './udp-listener';

/** dgram's `reusePort` option exists from Node 22.12 (and 23.1). */
export function supportsReusePort(version = process.versions.node): boolean {
  const [major, minor] = version.split('.').map(Number);
  return major > 23 || (major === 23 && minor >= 1) || (major === 22 && minor >= 12);
}

export function listenDgramUdp(opts: UdpListenOptions, respond: UdpResponder): Promise<UdpListener> {
  const family = isIPv6(opts.host) ? 6 : 4;
  // Replies go to the sender's literal IP: resolving it through dns.lookup would only add a
  // process.nextTick per packet.
  const lookup = (address: string, _opts: unknown, cb: (err: Error | null, address: string, family: number) => void) =>
    cb(null, address, family);
  // With SO_REUSEPORT (Node >= 22.12) each cluster worker binds its own socket and the
  // kernel spreads packets over them; otherwise workers share the primary's one socket and
  // every packet wakes them all.
  const reusePort = supportsReusePort() && (opts.reusePort ?? opts.port !== 0);
  const socket = dgram.createSocket({
    type: family === 6 ? 'udp6' : 'udp4',
    lookup: lookup as never,
    ...(reusePort ? { reusePort: true } : {}),
  } as dgram.SocketOptions);
  // send() keeps the buffer until the packet is out, so each answer is copied out of this one.
  const scratch = Buffer.allocUnsafe(MAX_UDP_PAYLOAD);
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind({ address: opts.host, port: opts.port, exclusive: reusePort }, () => {
      socket.off('error', reject);
      socket.on('error', (err) => opts.onError(err));
      try {
        socket.setRecvBufferSize(opts.receiveBufferBytes);
      } catch {
        // The kernel's limit stands; the server works with its default buffer.
      }
      // The sender of the datagram being answered, for a reply after it (see UdpResponder.replyLater).
      let current: dgram.RemoteInfo | null = null;
      respond.replyLater?.(() => {
        const { port, address } = current!;
        return (answer) => socket.send(answer, port, address);
      });
      const catchUp = opts.catchUp;
      socket.on('message', (msg, rinfo) => {
        catchUp?.();
        const started = performance.now();
        current = rinfo;
        const length = respond.answer(msg, 0, msg.length, () => rinfo.address, started, scratch, 0);
        if (length > 0) socket.send(Buffer.from(scratch.subarray(0, length)), rinfo.port, rinfo.address);
        respond.sent(started, length > 0 ? 1 : 0);
      });
      resolve({
        io: 'dgram',
        port: socket.address().port,
        close: () => new Promise<void>((done) => socket.close(() => done())),
      });
    });
  });
}
