import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nameBasedEventId } from '../eventstore/event-id';
import { SqliteEventStore } from '../eventstore/sqlite/sqlite-event-store';
import { WrongExpectedVersionError } from '../eventstore/event-store.port';
import { CommandContext, ProcessManagerRuntime } from './process-manager-runtime';
import { ProcessManager } from './process-manager';
import { SqliteCoordination } from './sqlite-coordination';

/** A toy process: an invoice placed with a due date is reminded of once, unless paid first. */
type Fact = { type: 'placed'; due: string } | { type: 'paid' };
type State = 'none' | 'open' | 'closed';
interface Remind {
  invoice: string;
}
const reminders: ProcessManager<State, Fact, Remind> = {
  name: 'reminders',
  observes: ['InvoicePlaced', 'InvoicePaid'],
  observe: (e) =>
    e.type === 'InvoicePlaced'
      ? { process: e.streamId, fact: { type: 'placed', due: e.data.due } }
      : { process: e.streamId, fact: { type: 'paid' } },
  initialState: () => 'none',
  evolve: (s, t) => (t.kind === 'timer' ? 'closed' : t.fact.type === 'placed' ? 'open' : 'closed'),
  decide: (t, s) => {
    if (t.kind === 'timer')
      return s === 'open' ? [{ type: 'send', commandId: `remind:${t.process}`, command: { invoice: t.process } }] : [];
    if (t.fact.type === 'placed') return [{ type: 'schedule', timerId: 'due', dueAt: t.fact.due }];
    return s === 'open' ? [{ type: 'cancel', timerId: 'due' }] : [];
  },
};

describe('ProcessManagerRuntime (SQLite event store and coordination)', () => {
  let dir: string;
  let store: SqliteEventStore;
  let coordination: SqliteCoordination;
  let now: Date;
  const runtimes: ProcessManagerRuntime<State, Fact, Remind>[] = [];
  /** Every call of `send`, whether or not the runtime then crashed. */
  let sent: CommandContext[];

  /** The command's effect, idempotent on its id as a real handler's is (deterministic event id + expected revision). */
  const remindEffect = async (command: Remind, context: CommandContext) => {
    const stream = `${command.invoice}-reminders`;
    const existing = await store.readStream(stream);
    if (existing.some((e) => e.id === nameBasedEventId(context.commandId))) return;
    try {
      await store.appendToStream(
        stream,
        [
          {
            id: nameBasedEventId(context.commandId),
            type: 'Reminded',
            data: {},
            metadata: { causation_id: context.causationId },
          },
        ],
        existing.length ? existing.length - 1 : 'no_stream',
      );
    } catch (e) {
      if (!(e instanceof WrongExpectedVersionError)) throw e;
    }
  };

  const runtime = (
    send: (c: Remind, ctx: CommandContext) => Promise<void> = remindEffect,
    concurrentProcesses = false,
  ) => {
    const r = new ProcessManagerRuntime(reminders, {
      concurrentProcesses,
      store,
      coordination,
      now: () => now,
      send: async (c, ctx) => {
        sent.push(ctx);
        await send(c, ctx);
      },
      leaseTtlMs: 60_000,
      timerPollMs: 60_000,
    });
    runtimes.push(r);
    return r;
  };
  const remindedTimes = async (invoice: string) => (await store.readStream(`${invoice}-reminders`)).length;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pm-runtime-'));
    store = new SqliteEventStore({ file: join(dir, 'events.db'), pollIntervalMs: 10 });
    coordination = new SqliteCoordination(join(dir, 'coordination.db'));
    now = new Date('2026-01-01T00:00:00Z');
    sent = [];
  });
  afterEach(async () => {
    for (const r of runtimes.splice(0)) await r.stop();
    await store.close();
    await coordination.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const place = (invoice: string, due: string) =>
    store.appendToStream(invoice, [{ type: 'InvoicePlaced', data: { due } }], 'any');

  it('a timer fires once it is due, sends its command once, and not again on later polls', async () => {
    const r = runtime();
    await r.start();
    await place('inv-1', '2026-01-01T00:10:00Z');
    expect(await r.runDue()).toBe(0);
    now = new Date('2026-01-01T00:10:00Z');
    expect(await r.runDue()).toBe(1);
    expect(await r.runDue()).toBe(0);
    expect(await remindedTimes('inv-1')).toBe(1);
    expect(sent).toHaveLength(1);
    expect(sent[0].commandId).toBe('remind:inv-1');
  });

  it('timers of two processes with the same timer id are their own: cancelling one leaves the other', async () => {
    const r = runtime();
    await r.start();
    await place('inv-a', '2026-01-01T00:10:00Z');
    await place('inv-b', '2026-01-01T00:10:00Z');
    await store.appendToStream('inv-a', [{ type: 'InvoicePaid', data: {} }], 'any');
    await r.runDue();
    now = new Date('2026-01-01T00:10:00Z');
    expect(await r.runDue()).toBe(1);
    expect(sent.map((s) => s.commandId)).toEqual(['remind:inv-b']);
  });

  it('a timer cancelled by a later fact never fires', async () => {
    const r = runtime();
    await r.start();
    await place('inv-2', '2026-01-01T00:10:00Z');
    await store.appendToStream('inv-2', [{ type: 'InvoicePaid', data: {} }], 'any');
    now = new Date('2026-01-01T01:00:00Z');
    expect(await r.runDue()).toBe(0);
    expect(sent).toHaveLength(0);
  });

  it('saves its position at once after its own events, after others only later, and on stop', async () => {
    const r = runtime();
    await r.start();
    const saved = async () => (await coordination.positions(['pm:reminders'])).get('pm:reminders') ?? null;
    const placed = await place('inv-4', '2026-01-01T00:10:00Z');
    await r.runDue();
    // Its own event, then the facts it recorded: saved as soon as the batch holding them is done.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const afterOwn = await saved();
    expect(BigInt(afterOwn!.split('/')[0])).toBeGreaterThanOrEqual(placed.position.commit);
    // Events of no concern: read and skipped, the position saved only later (a restart would skip them again).
    let last = placed.position;
    for (let i = 0; i < 5; i++)
      last = (await store.appendToStream(`other-${i}`, [{ type: 'Unrelated', data: {} }], 'any')).position;
    await r.runDue();
    expect(await saved()).toBe(afterOwn);
    await r.stop();
    expect(BigInt((await saved())!.split('/')[0])).toBe(last.commit);
  });

  it('a timer scheduled before a restart fires after it', async () => {
    const first = runtime();
    await first.start();
    await place('inv-3', '2026-01-01T00:10:00Z');
    await first.runDue(); // caught up: the timer is stored
    await first.stop();

    now = new Date('2026-01-01T00:11:00Z');
    const second = runtime();
    await second.start();
    expect(await second.runDue()).toBe(1);
    expect(await remindedTimes('inv-3')).toBe(1);
    expect(sent).toHaveLength(1);
  });

  it('a crash between the decision and its command: the next runtime sends the command, once', async () => {
    // The first runtime records the decision (ProcessCommandIssued), then dies before sending it.
    const crashing = runtime(async () => {
      throw new Error('process died before sending');
    });
    await crashing.start();
    await place('inv-4', '2026-01-01T00:10:00Z');
    await crashing.runDue(); // caught up: the timer is stored, nothing due yet
    now = new Date('2026-01-01T00:10:00Z');
    await crashing.fireDueTimers();
    const issued = async () =>
      (await store.readStream('pm-reminders-inv-4')).filter((e) => e.type === 'ProcessCommandIssued').length;
    for (let i = 0; i < 100 && sent.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    await crashing.stop();
    expect(await issued()).toBe(1);
    expect(await remindedTimes('inv-4')).toBe(0);

    sent = [];
    const next = runtime();
    await next.start();
    await next.runDue();
    expect(sent.map((s) => s.commandId)).toEqual(['remind:inv-4']);
    expect(await remindedTimes('inv-4')).toBe(1);
    expect(await issued()).toBe(1);
  });

  it('a crash after sending but before the checkpoint: the command is sent again with the same id and takes effect once', async () => {
    const crashing = runtime(async (c, ctx) => {
      await remindEffect(c, ctx);
      throw new Error('process died after sending');
    });
    await crashing.start();
    await place('inv-5', '2026-01-01T00:10:00Z');
    await crashing.runDue();
    now = new Date('2026-01-01T00:10:00Z');
    await crashing.fireDueTimers();
    for (let i = 0; i < 100 && sent.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    await crashing.stop();

    const next = runtime();
    await next.start();
    await next.runDue();
    expect(new Set(sent.map((s) => s.commandId))).toEqual(new Set(['remind:inv-5']));
    expect(await remindedTimes('inv-5')).toBe(1);
  });

  it('two runtimes of one process manager: only the lease holder runs; the other takes over when it stops', async () => {
    const a = runtime();
    const b = runtime();
    await a.start();
    await b.start();
    expect([a.running, b.running]).toEqual([true, false]);
    await place('inv-6', '2026-01-01T00:10:00Z');
    await a.runDue();
    await a.stop();
    now = new Date('2026-01-01T00:10:00Z');
    // b's next lease tick takes over; tick it now rather than wait a third of the TTL.
    await (b as any).lease.tick();
    await (b as any).lease.starting;
    expect(b.running).toBe(true);
    expect(await b.runDue()).toBe(1);
    expect(await remindedTimes('inv-6')).toBe(1);
  });
  it('tells its host when this process starts and stops running the manager (takes and gives up the lease)', async () => {
    const seen: boolean[] = [];
    const r = new ProcessManagerRuntime(reminders, {
      store,
      coordination,
      now: () => now,
      send: remindEffect,
      leaseTtlMs: 60_000,
      timerPollMs: 60_000,
      onRunning: (running) => {
        seen.push(running);
      },
    });
    await r.start();
    await (r as any).lease.starting;
    expect(seen).toEqual([true]);
    await r.stop();
    expect(seen).toEqual([true, false]);
  });

  describe('with concurrentProcesses', () => {
    const until = async (check: () => Promise<boolean> | boolean) => {
      for (let i = 0; i < 300 && !(await check()); i++) await new Promise((r) => setTimeout(r, 10));
    };

    it("one process's unfinished send holds up neither another process's nor the consumer; the checkpoint stays before it, so a crash sends it again", async () => {
      let release: (e: Error) => void = () => undefined;
      const blocked = new Promise<void>((_, reject) => (release = reject));
      const crashing = runtime(async (c, ctx) => (c.invoice === 'inv-a' ? blocked : remindEffect(c, ctx)), true);
      await crashing.start();
      await place('inv-a', '2026-01-01T00:10:00Z');
      await place('inv-b', '2026-01-01T00:10:00Z');
      await crashing.runDue();
      now = new Date('2026-01-01T00:10:00Z');
      await crashing.fireDueTimers();
      await until(async () => (await remindedTimes('inv-b')) === 1);
      expect(await remindedTimes('inv-b')).toBe(1);
      expect(await remindedTimes('inv-a')).toBe(0);
      // The process dies with inv-a's command in flight: the stop ends it, unfinished.
      const stopping = crashing.stop();
      release(new Error('killed mid-send'));
      await stopping;
      const issuedA = (await store.readStream('pm-reminders-inv-a')).find((e) => e.type === 'ProcessCommandIssued')!;
      const saved = (await coordination.positions(['pm:reminders'])).get('pm:reminders');
      expect(saved === null || saved === undefined || BigInt(saved.split('/')[0]) < issuedA.position.commit).toBe(true);

      sent = [];
      const next = runtime(remindEffect, true);
      await next.start();
      await next.runDue();
      expect(sent.map((s) => s.commandId)).toContain('remind:inv-a');
      expect(await remindedTimes('inv-a')).toBe(1);
      expect(await remindedTimes('inv-b')).toBe(1);
    });

    it('a send that fails is sent again after a backoff, with the same id', async () => {
      let failures = 1;
      const r = runtime(async (c, ctx) => {
        if (failures-- > 0) throw new Error('store hiccup');
        await remindEffect(c, ctx);
      }, true);
      await r.start();
      await place('inv-c', '2026-01-01T00:10:00Z');
      await r.runDue();
      now = new Date('2026-01-01T00:10:00Z');
      await r.runDue();
      expect(sent.map((s) => s.commandId)).toEqual(['remind:inv-c', 'remind:inv-c']);
      expect(await remindedTimes('inv-c')).toBe(1);
    });
  });
});
