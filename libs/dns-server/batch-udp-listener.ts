/**
 * UDP through the udp-batch addon: each readiness callback reads a batch of queries with one
 * recvmmsg, answers them straight into the shared send buffer and sends them with one
 * sendmmsg, without a JS object per packet on the way in or out.
 *
 * With the responder's hit cache (UdpHitCache), the addon answers repeated questions during
 * recv from the responses the responder let it keep; they are only counted and logged here
 * (decision 0116). DNS_UDP_HIT_CACHE=off leaves every query to the responder.
 */
import { performance } from 'node:perf_hooks';
import { BatchUdpSocket, type UdpBatchAddon } from './udp-batch';
import { MAX_UDP_PAYLOAD } from './wire';
import type { UdpListenOptions, UdpListener, UdpResponder } from './udp-listener';

const BATCH = 64;
/** Batches per readiness callback: the rest waits one loop turn, so TCP and timers get theirs. */
const BATCHES_PER_TURN = 8;
/** Queries longer than this are not ours to answer (no EDNS option we read needs more). */
const MAX_QUERY = 4096;
const SEND_BUFFER_BYTES = 4 * 1024 * 1024;

export async function listenBatchUdp(
  addon: UdpBatchAddon,
  opts: UdpListenOptions,
  respond: UdpResponder,
): Promise<UdpListener> {
  const socket = BatchUdpSocket.open(addon, {
    host: opts.host,
    port: opts.port,
    // With SO_REUSEPORT each cluster worker or DNS thread binds its own socket on the same
    // port and the kernel spreads queries over them by flow.
    reusePort: opts.reusePort ?? opts.port !== 0,
    receiveBufferBytes: opts.receiveBufferBytes,
    sendBufferBytes: SEND_BUFFER_BYTES,
    maxBatch: BATCH,
    maxDatagram: MAX_QUERY,
    maxResponse: MAX_UDP_PAYLOAD,
  });
  if (opts.steerByCpu) {
    const failed = socket.steerByCpu(opts.steerByCpu);
    if (failed) opts.onError(new Error(`CPU steering not attached (SO_ATTACH_REUSEPORT_CBPF: ${failed})`));
  }
  const out = socket.out;
  const input = socket.input;
  let slot = 0;
  const peer = (): string => socket.peerAddress(slot);
  respond.replyLater?.(() => socket.laterTo(slot));
  const hitCache = (opts.hitCache ?? process.env.DNS_UDP_HIT_CACHE !== 'off') ? (respond.hitCache ?? null) : null;
  hitCache?.enable(socket.enableHitCache());
  const catchUp = opts.catchUp;
  const onReadable = (): void => {
    try {
      for (let turn = 0; turn < BATCHES_PER_TURN; turn++) {
        catchUp?.();
        const received = hitCache === null ? socket.recv() : socket.recv(hitCache.version());
        if (received === 0) return;
        const started = performance.now();
        // The addon's answers first: an entry number they name may be given to another answer below.
        const hits = socket.hitCount;
        for (let h = 0; h < hits; h++) {
          slot = socket.hitSlot(h);
          const entry = socket.hitEntry(h);
          const t0 = socket.hitTag(h, 0);
          const t1 = socket.hitTag(h, 1);
          const t2 = socket.hitTag(h, 2);
          if (hitCache!.hit(entry, socket.hitFlags(h), t0, t1, t2, peer, started)) socket.retag(entry, hitCache!.tags);
        }
        let answered = hits;
        for (slot = 0; slot < received; slot++) {
          // Truncated queries cannot be parsed honestly; dropping them is what a full buffer would do.
          // Those the hit cache answered are done.
          if (socket.skipped(slot)) continue;
          const at = socket.nextResponseAt;
          const length = respond.answer(
            input,
            socket.datagramStart(slot),
            socket.datagramLength(slot),
            peer,
            started,
            out,
            at,
          );
          if (length > 0) {
            socket.queue(slot, length);
            answered++;
            const entry = hitCache === null ? -1 : hitCache.keepAs();
            if (entry >= 0) socket.keep(slot, at, length, entry, hitCache!.tags);
          }
        }
        socket.send();
        respond.sent(started, answered);
        if (received < BATCH) return;
      }
    } catch (err) {
      // A socket error (not a query's: respond never throws) costs this turn, not the process.
      opts.onError(err as Error);
    }
  };
  socket.start(onReadable);
  return {
    io: 'batch',
    port: socket.port,
    close: async () => socket.close(),
  };
}
