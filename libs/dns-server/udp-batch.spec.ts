/**
 * The udp-batch addon through its wrapper, over real loopback sockets. The addon is built by
 * `npm run build` (which `npm test` runs first); on Linux a missing build fails here rather
 * than quietly testing nothing.
 */
import * as dgram from 'node:dgram';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import * as dnsPacket from 'dns-packet';
import { ResponseCache } from './response-cache';
import {
  BatchUdpSocket,
  hitEntryOf,
  loadUdpBatch,
  HIT_TAGS,
  type BatchUdpSocketOptions,
  type UdpBatchAddon,
} from './udp-batch';

const availability = loadUdpBatch({});
const onLinux = process.platform === 'linux' ? describe : describe.skip;

function ipv6Loopback(): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = dgram.createSocket('udp6');
    probe.once('error', () => resolve(false));
    probe.bind(0, '::1', () => probe.close(() => resolve(true)));
  });
}

onLinux('udp-batch addon', () => {
  let addon: UdpBatchAddon;
  const open: BatchUdpSocket[] = [];
  const clients: dgram.Socket[] = [];

  beforeAll(() => {
    if (!availability.ok) throw new Error(`udp-batch addon did not load: ${availability.reason}`);
    addon = availability.addon;
  });
  afterEach(() => {
    open.splice(0).forEach((s) => s.close());
    clients.splice(0).forEach((c) => c.close());
  });

  const socket = (opts: Partial<BatchUdpSocketOptions> = {}): BatchUdpSocket => {
    const s = BatchUdpSocket.open(addon, {
      host: '127.0.0.1',
      port: 0,
      reusePort: false,
      receiveBufferBytes: 1 << 20,
      sendBufferBytes: 1 << 20,
      maxBatch: 16,
      maxDatagram: 512,
      maxResponse: 512,
      ...opts,
    });
    open.push(s);
    return s;
  };

  const client = async (type: 'udp4' | 'udp6' = 'udp4', host = '127.0.0.1'): Promise<dgram.Socket> => {
    const c = dgram.createSocket(type);
    clients.push(c);
    await new Promise<void>((resolve) => c.bind(0, host, () => resolve()));
    return c;
  };

  /**
   * recv() until `count` datagrams have been seen, polling (the socket never blocks); `each`
   * sees every slot of a batch, and whatever it queues is sent before the next recv().
   */
  async function drain(
    s: BatchUdpSocket,
    count: number,
    each: (slot: number) => void = () => undefined,
  ): Promise<number> {
    const deadline = Date.now() + 3000;
    let seen = 0;
    while (seen < count && Date.now() < deadline) {
      const n = s.recv();
      for (let slot = 0; slot < n; slot++) each(slot);
      s.send();
      seen += n;
      if (n === 0) await new Promise((r) => setTimeout(r, 5));
    }
    return seen;
  }

  const replies = (c: dgram.Socket, count: number): Promise<string[]> =>
    new Promise((resolve) => {
      const got: string[] = [];
      const timer = setTimeout(() => resolve(got), 3000);
      c.on('message', (m) => {
        got.push(m.toString());
        if (got.length === count) {
          clearTimeout(timer);
          resolve(got);
        }
      });
    });

  it('reports the port the kernel picked for port 0, and reads nothing when nothing waits', () => {
    const s = socket();
    expect(s.port).toBeGreaterThan(0);
    expect(s.recv()).toBe(0);
  });

  it('reads a batch with each sender, and answers each sender in one send', async () => {
    const s = socket();
    const [a, b] = [await client(), await client()];
    const answered = [replies(a, 2), replies(b, 1)];
    a.send('one', s.port, '127.0.0.1');
    b.send('two', s.port, '127.0.0.1');
    a.send('three', s.port, '127.0.0.1');
    const seen: object[] = [];
    const received = await drain(s, 3, (slot) => {
      seen.push({
        text: s.datagram(slot).toString(),
        from: `${s.peerAddress(slot)}:${s.peerPort(slot)}`,
        family: s.peerFamily(slot),
        truncated: s.truncated(slot),
      });
      s.queue(slot, s.out.write(`re:${s.datagram(slot)}`, s.nextResponseAt));
    });
    expect(received).toBe(3);
    expect(seen).toEqual([
      { text: 'one', from: `127.0.0.1:${a.address().port}`, family: 4, truncated: false },
      { text: 'two', from: `127.0.0.1:${b.address().port}`, family: 4, truncated: false },
      { text: 'three', from: `127.0.0.1:${a.address().port}`, family: 4, truncated: false },
    ]);
    expect(await Promise.all(answered)).toEqual([['re:one', 're:three'], ['re:two']]);
  });

  it('answers a sender later, after its batch (laterTo: an UPDATE that waits for an append)', async () => {
    const s = socket();
    const a = await client();
    const answered = replies(a, 1);
    a.send('update', s.port, '127.0.0.1');
    const senders: Array<(answer: Buffer) => void> = [];
    expect(await drain(s, 1, (slot) => senders.push(s.laterTo(slot)))).toBe(1);
    // Another batch in between reuses the slot; the saved sender still reaches the first peer.
    const b = await client();
    b.send('other', s.port, '127.0.0.1');
    expect(await drain(s, 1)).toBe(1);
    senders[0](Buffer.from('applied'));
    expect(await answered).toEqual(['applied']);
  });

  describe('hit cache', () => {
    const query = (name: string, id: number): Buffer =>
      dnsPacket.encode({ type: 'query', id, flags: dnsPacket.RECURSION_DESIRED, questions: [{ name, type: 'A' }] });
    /** What the JS response cache's hash names as the entry of `msg`'s question. */
    const entryOf = (msg: Buffer, slots: number): number => {
      const cache = new ResponseCache();
      cache.lookup(msg, 0, msg.length, 0);
      return hitEntryOf(cache.lastHash, slots - 1);
    };
    const tags = Uint32Array.from({ length: HIT_TAGS }, (_, t) => 100 + t);

    /** One query through the socket: whether the addon answered it, and what the client got. */
    async function exchange(
      s: BatchUdpSocket,
      c: dgram.Socket,
      msg: Buffer,
      version: number,
      keepAs: number,
    ): Promise<{ hit: boolean; entry: number; tags: number[]; answer: Buffer }> {
      const answer = new Promise<Buffer>((resolve) => c.once('message', resolve));
      c.send(msg, s.port, '127.0.0.1');
      const deadline = Date.now() + 3000;
      let n = s.recv(version);
      while (n === 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 5));
        n = s.recv(version);
      }
      expect(n).toBe(1);
      const hit = s.hitCount === 1;
      const got = { hit, entry: hit ? s.hitEntry(0) : -1, tags: hit ? [0, 1, 2].map((t) => s.hitTag(0, t)) : [] };
      expect(s.answered(0)).toBe(hit);
      if (!hit) {
        // The "response": the query with QR set, as JS would have written it.
        const at = s.nextResponseAt;
        const length = s.datagram(0).copy(s.out, at);
        s.out[at + 2] |= 0x80;
        s.queue(0, length);
        if (keepAs >= 0) s.keep(0, at, length, keepAs, tags);
      }
      s.send();
      return { ...got, answer: await answer };
    }

    it('answers a kept question itself, with the ID, RD and name case of each query, until the version moves', async () => {
      const s = socket({ maxResponse: 1232 });
      const slots = s.enableHitCache();
      const c = await client();
      const entry = entryOf(query('www.example.com', 1), slots);
      expect(await exchange(s, c, query('www.example.com', 1), 7, entry)).toMatchObject({ hit: false });
      const again = query('WwW.ExAmple.COM', 2);
      again[2] &= ~0x01; // RD clear this time
      const hit = await exchange(s, c, again, 7, -1);
      expect(hit).toMatchObject({ hit: true, entry, tags: [100, 101, 102] });
      const expected = Buffer.from(again);
      expected[2] |= 0x80;
      expect(hit.answer).toEqual(expected);
      expect(await exchange(s, c, query('www.example.com', 3), 8, -1)).toMatchObject({ hit: false });
    });

    it("keeps nothing under an entry number other than the question's, and empties that entry", async () => {
      const s = socket({ maxResponse: 1232 });
      const slots = s.enableHitCache();
      const c = await client();
      const www = query('www.example.com', 1);
      const entry = entryOf(www, slots);
      expect(await exchange(s, c, www, 1, (entry + 1) & (slots - 1))).toMatchObject({ hit: false });
      expect(await exchange(s, c, www, 1, entry)).toMatchObject({ hit: false });
      expect(await exchange(s, c, www, 1, -1)).toMatchObject({ hit: true });
      // Another question named with www's entry: www's answer is gone, nothing else is kept there.
      expect(await exchange(s, c, query('mail.example.com', 4), 1, entry)).toMatchObject({ hit: false });
      expect(await exchange(s, c, www, 1, -1)).toMatchObject({ hit: false });
      expect(await exchange(s, c, query('mail.example.com', 5), 1, -1)).toMatchObject({ hit: false });
    });
  });

  it('names each IPv4 sender right when senders alternate (the last-address shortcut)', async () => {
    const s = socket();
    const [one, two] = [await client('udp4', '127.0.0.1'), await client('udp4', '127.0.0.2')];
    // Each datagram says who sent it; whatever order they arrive in, each slot must be named by its sender.
    for (const c of [one, two, two, one, two]) c.send(c === one ? '127.0.0.1' : '127.0.0.2', s.port, '127.0.0.1');
    const named: Array<[string, string]> = [];
    expect(await drain(s, 5, (slot) => named.push([s.datagram(slot).toString(), s.peerAddress(slot)]))).toBe(5);
    expect(named.every(([sender, name]) => sender === name)).toBe(true);
    expect(new Set(named.map(([, name]) => name))).toEqual(new Set(['127.0.0.1', '127.0.0.2']));
  });

  it('flags a datagram longer than a slot as truncated', async () => {
    const s = socket({ maxDatagram: 64 });
    const c = await client();
    c.send(Buffer.alloc(100, 1), s.port, '127.0.0.1');
    const flags: boolean[] = [];
    const lengths: number[] = [];
    expect(
      await drain(s, 1, (slot) => void (flags.push(s.truncated(slot)), lengths.push(s.datagram(slot).length))),
    ).toBe(1);
    expect(flags).toEqual([true]);
    expect(lengths[0]).toBeLessThanOrEqual(64);
  });

  it('reads IPv6 senders, and IPv4 ones on a dual-stack socket as node:dgram names them', async () => {
    if (!(await ipv6Loopback())) return;
    const v6 = socket({ host: '::1' });
    const c6 = await client('udp6', '::1');
    const answered = replies(c6, 1);
    c6.send('six', v6.port, '::1');
    const peers: unknown[] = [];
    await drain(v6, 1, (slot) => {
      peers.push([v6.peerFamily(slot), v6.peerAddress(slot), v6.peerPort(slot)]);
      v6.queue(slot, v6.out.write('re:six', v6.nextResponseAt));
    });
    expect(peers).toEqual([[6, '::1', c6.address().port]]);
    expect(await answered).toEqual(['re:six']);

    const dual = socket({ host: '::' });
    const c4 = await client();
    c4.send('four', dual.port, '127.0.0.1');
    const mapped: unknown[] = [];
    await drain(dual, 1, (slot) => mapped.push([dual.peerFamily(slot), dual.peerAddress(slot)]));
    expect(mapped).toEqual([[6, '::ffff:127.0.0.1']]);
  });

  it('calls onReadable while datagrams wait, and never after close', async () => {
    const s = socket();
    const c = await client();
    let calls = 0;
    const drained = new Promise<number>((resolve) => {
      s.start(() => {
        calls++;
        const n = s.recv();
        s.close();
        resolve(n);
      });
    });
    c.send('ping', s.port, '127.0.0.1');
    expect(await drained).toBe(1);
    c.send('after close', s.port, '127.0.0.1');
    await new Promise((r) => setTimeout(r, 50));
    expect(calls).toBe(1);
  });

  it('refuses use after close with EBADF, and closes only once', () => {
    const s = socket();
    s.close();
    s.close();
    expect(s.closed).toBe(true);
    expect(() => s.recv()).toThrow(expect.objectContaining({ code: 'EBADF' }));
    expect(() => s.send()).not.toThrow(); // nothing queued: no system call to refuse
    s.queue(0, 1);
    expect(() => s.send()).toThrow(expect.objectContaining({ code: 'EBADF' }));
  });

  it('reports bind errors with their errno code, and shares a port only with SO_REUSEPORT', () => {
    const first = socket();
    expect(() => socket({ port: first.port })).toThrow(expect.objectContaining({ code: 'EADDRINUSE' }));
    const shared = socket({ port: 0, reusePort: true });
    expect(socket({ port: shared.port, reusePort: true }).port).toBe(shared.port);
    expect(() => socket({ host: 'localhost' })).toThrow(expect.objectContaining({ code: 'EINVAL' }));
  });

  it('rejects a send that names a slot or bytes outside its buffers', () => {
    const s = socket({ maxBatch: 2 });
    s.queue(5, 10);
    expect(() => s.send()).toThrow('outside the attached buffers');
  });
});

/** The addon as a worker thread loads it (a plain require: the worker runs no TypeScript). */
const ADDON_PATH = join(__dirname, '..', '..', 'native', 'udp-batch', 'build', 'Release', 'udp_batch.node');

/**
 * Runs `body` (JS, with `addon` and `data` in scope) in a worker thread pinned to `cpu` and
 * resolves with what it returns: a thread of its own, so this one's CPUs stay as they were.
 */
function onCpu<T>(cpu: number, body: string, data: unknown = null): Promise<{ pinned: number; result: T }> {
  const script = `
    const { parentPort, workerData } = require('node:worker_threads');
    const addon = require(workerData.addon);
    const pinned = addon.pinThread([workerData.cpu]);
    const data = workerData.data;
    Promise.resolve((async () => { ${body} })()).then((result) => parentPort.postMessage({ pinned, result }));`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(script, { eval: true, workerData: { addon: ADDON_PATH, cpu, data } });
    worker.once('message', (m: { pinned: number; result: T }) => void worker.terminate().then(() => resolve(m)));
    worker.once('error', reject);
  });
}

onLinux('udp-batch addon: CPU-local steering (cpu-locality.ts)', () => {
  let addon: UdpBatchAddon;
  const open: BatchUdpSocket[] = [];

  beforeAll(() => {
    if (!availability.ok) throw new Error(`udp-batch addon did not load: ${availability.reason}`);
    addon = availability.addon;
  });
  afterEach(() => open.splice(0).forEach((s) => s.close()));

  const socket = (port: number, reusePort = true): BatchUdpSocket => {
    const s = BatchUdpSocket.open(addon, {
      host: '127.0.0.1',
      port,
      reusePort,
      receiveBufferBytes: 1 << 20,
      sendBufferBytes: 1 << 20,
      maxBatch: 64,
      maxDatagram: 512,
      maxResponse: 512,
    });
    open.push(s);
    return s;
  };

  /** Reads what waits on each socket, answering every datagram with `<socket index>:<text>`. */
  async function answerAll(group: BatchUdpSocket[], expected: number): Promise<number[]> {
    const counts = group.map(() => 0);
    const deadline = Date.now() + 3000;
    while (counts.reduce((a, b) => a + b, 0) < expected && Date.now() < deadline) {
      group.forEach((s, i) => {
        const n = s.recv();
        for (let slot = 0; slot < n; slot++) s.queue(slot, s.out.write(`${i}:${s.datagram(slot)}`, s.nextResponseAt));
        s.send();
        counts[i] += n;
      });
      await new Promise((r) => setTimeout(r, 5));
    }
    return counts;
  }

  // Each query from its own client port: without the program, flow hashing would spread them over both sockets.
  const sendQueries = `
    const dgram = require('node:dgram');
    const answers = [];
    for (let i = 0; i < data.count; i++) {
      const c = dgram.createSocket('udp4');
      await new Promise((r) => c.bind(0, '127.0.0.1', r));
      const answered = new Promise((r) => c.once('message', (m) => r(m.toString())));
      c.send('q' + i, data.port, '127.0.0.1');
      answers.push(await Promise.race([answered, new Promise((r) => setTimeout(() => r('timeout'), 3000))]));
      c.close();
    }
    return answers;`;

  it('hands each datagram to the socket whose index is the CPU that received it, and every socket answers', async () => {
    const cpus = addon.allowedCpus();
    const even = cpus.find((c) => c % 2 === 0);
    const odd = cpus.find((c) => c % 2 === 1);
    const first = socket(0);
    const group = [first, socket(first.port)];
    expect(first.steerByCpu(2)).toBeNull();
    // Needs a CPU of each parity to send from; with fewer the program is attached but not exercised.
    if (even === undefined || odd === undefined) return;
    for (const cpu of [even, odd]) {
      const count = 8;
      const sent = onCpu<string[]>(cpu, sendQueries, { port: first.port, count });
      // Loopback runs the receive path on the sending CPU, so all of them are for socket cpu % 2.
      const counts = answerAll(group, count);
      const { pinned, result } = await sent;
      expect(pinned).toBe(0);
      const want = cpu % 2;
      expect(await counts).toEqual(want === 0 ? [count, 0] : [0, count]);
      expect(result).toEqual(Array.from({ length: count }, (_, i) => `${want}:q${i}`));
    }
  });

  it('says why when there is no SO_REUSEPORT group to steer, and refuses an empty group', () => {
    const alone = socket(0, false);
    expect(alone.steerByCpu(2)).toBe('EINVAL');
    expect(() => alone.steerByCpu(0)).toThrow('groupSize must be > 0');
  });

  it('pins the calling thread only, and says why it cannot pin to a CPU it may not use', async () => {
    const cpus = addon.allowedCpus();
    const last = cpus[cpus.length - 1];
    const { pinned, result } = await onCpu<number[]>(last, 'return addon.allowedCpus();');
    expect(pinned).toBe(0);
    expect(result).toEqual([last]);
    expect(addon.allowedCpus()).toEqual(cpus);
    const unusable = (await onCpu<number[]>(1023, 'return addon.allowedCpus();')).pinned;
    expect(unusable).toBeLessThan(0);
    // Let go again (a DNS thread after a sibling's restart): all the CPUs it was allowed.
    const released = await onCpu<number[]>(
      last,
      `addon.pinThread(${JSON.stringify(cpus)}); return addon.allowedCpus();`,
    );
    expect(released.result).toEqual(cpus);
  });
});

describe('loadUdpBatch', () => {
  it('stays off when DNS_UDP_BATCH=off', () => {
    expect(loadUdpBatch({ DNS_UDP_BATCH: 'off' })).toEqual({ ok: false, reason: 'DNS_UDP_BATCH=off' });
  });
});
