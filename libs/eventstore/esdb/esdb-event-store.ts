import { finished, Readable } from 'node:stream';
import {
  AllStreamResolvedEvent,
  ANY,
  AppendExpectedRevision,
  BACKWARDS,
  END,
  EventStoreDBClient,
  excludeSystemEvents,
  FORWARDS,
  jsonEvent,
  JSONType,
  NO_STREAM,
  ReadPosition,
  ResolvedEvent,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError as EsdbWrongExpectedVersionError,
} from '@eventstore/db-client';
import {
  AppendResult,
  comparePositions,
  EventMetadata,
  EventStore,
  ExpectedRevision,
  NewEvent,
  Position,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  StreamMetadata,
  Subscription,
  WrongExpectedVersionError,
} from '../event-store.port';

const toExpected = (expected: ExpectedRevision): AppendExpectedRevision => {
  switch (expected) {
    case 'any':
      return ANY;
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    default:
      return BigInt(expected);
  }
};

// EventStoreDB marks its own streams and event types with a leading `$`.
const isSystem = (streamId: string, type: string) => streamId.startsWith('$') || type.startsWith('$');

const asMetadata = (m: unknown): EventMetadata =>
  m !== null && typeof m === 'object' && !Array.isArray(m) && !(m instanceof Uint8Array) ? (m as EventMetadata) : {};

/** Maps a resolved event to the port's shape; null for links whose target was deleted. */
function toRecorded(resolved: ResolvedEvent): RecordedEvent | null {
  const e = resolved.event;
  if (!e) return null;
  // Servers before 22.6 omit the per-event position on stream reads; the commit position is still sent.
  const commit = resolved.commitPosition ?? 0n;
  return {
    id: e.id,
    streamId: e.streamId,
    revision: Number(e.revision),
    type: e.type,
    data: e.data,
    metadata: asMetadata(e.metadata),
    position: e.position ?? { commit, prepare: commit },
    created: e.created,
  };
}

const PAGE = 500;

/**
 * The production event store: EventStoreDB over gRPC. The port was shaped after it,
 * so this adapter mostly translates names; the two differences it hides are `$all`
 * reads being inclusive of their start position and `$all` containing system events.
 */
export class EsdbEventStore implements EventStore {
  readonly kind = 'eventstoredb' as const;
  private readonly client: EventStoreDBClient;

  constructor(private readonly connectionString: string) {
    this.client = EventStoreDBClient.connectionString(connectionString);
  }

  async appendToStream(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const data = events.map((e) =>
      jsonEvent({
        ...(e.id ? { id: e.id } : {}),
        type: e.type,
        data: (e.data ?? {}) as JSONType,
        metadata: (e.metadata ?? {}) as JSONType,
      }),
    );
    try {
      const result = await this.client.appendToStream(stream, data, { expectedRevision: toExpected(expected) });
      const position = result.position ?? (await this.lastEventPosition(stream));
      return { nextExpectedRevision: Number(result.nextExpectedRevision), position };
    } catch (e) {
      if (e instanceof EsdbWrongExpectedVersionError) {
        const actual = e.actualVersion;
        throw new WrongExpectedVersionError(
          stream,
          expected,
          typeof actual === 'bigint' ? Number(actual) : 'no_stream',
        );
      }
      throw e;
    }
  }

  private async lastEventPosition(stream: string): Promise<Position> {
    const [last] = await this.readStream(stream, { direction: 'backwards', maxCount: 1 });
    if (!last) throw new Error(`append to ${stream} reported no position and the stream reads empty`);
    return last.position;
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const backwards = options.direction === 'backwards';
    const out: RecordedEvent[] = [];
    try {
      const read = this.client.readStream(stream, {
        direction: backwards ? BACKWARDS : FORWARDS,
        fromRevision: options.fromRevision !== undefined ? BigInt(options.fromRevision) : backwards ? END : START,
        maxCount: options.maxCount ?? Number.MAX_SAFE_INTEGER,
      });
      for await (const resolved of read) {
        const event = toRecorded(resolved);
        if (event) out.push(event);
      }
    } catch (e) {
      if (e instanceof StreamNotFoundError) return [];
      throw e;
    }
    return out;
  }

  /**
   * `$all` pages, skipping system events. The server treats `fromPosition` as
   * inclusive; the port's `after` is exclusive, so the event at `after` is dropped.
   */
  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const max = options.maxCount ?? 1000;
    const out: RecordedEvent[] = [];
    let from: Position | null = options.after ?? null;
    while (out.length < max) {
      const page = await this.readAllPage(from ?? START, FORWARDS, PAGE);
      for (const event of page) {
        if (from && comparePositions(event.position, from) <= 0) continue;
        if (!isSystem(event.streamId, event.type)) out.push(event);
        if (out.length === max) break;
      }
      if (page.length < PAGE) break;
      from = page[page.length - 1].position;
    }
    return out;
  }

  private async readAllPage(from: ReadPosition, direction: typeof FORWARDS | typeof BACKWARDS, count: number) {
    const page: RecordedEvent[] = [];
    for await (const resolved of this.client.readAll({ fromPosition: from, direction, maxCount: count })) {
      const event = toRecorded(resolved);
      if (event) page.push(event);
    }
    return page;
  }

  subscribeToAll(after: Position | null): Subscription {
    const source = this.client.subscribeToAll({
      fromPosition: after ?? START,
      filter: excludeSystemEvents(),
    });
    // A resumed subscription must never replay the checkpointed event itself.
    const wanted = (event: RecordedEvent | null): event is RecordedEvent =>
      event !== null && !(after && comparePositions(event.position, after) <= 0);
    async function* iterate(): AsyncGenerator<RecordedEvent> {
      for await (const resolved of source) {
        const event = toRecorded(resolved);
        if (wanted(event)) yield event;
      }
    }
    /**
     * Whatever the stream has buffered, drained with `read()` in one go. The waiting
     * mirrors Node's own async iterator for readables: wake on 'readable', and on the
     * stream finishing (`error` undefined while open, null once ended cleanly).
     */
    async function* batches(): AsyncGenerator<RecordedEvent[]> {
      let wakeUp: () => void = () => undefined;
      const onReadable = () => wakeUp();
      let error: Error | null | undefined;
      source.on('readable', onReadable);
      const cleanup = finished(source as Readable, { writable: false }, (err) => {
        error = err ?? null;
        wakeUp();
      });
      try {
        for (;;) {
          const batch: RecordedEvent[] = [];
          let resolved: AllStreamResolvedEvent | null;
          while (batch.length < PAGE && (resolved = source.destroyed ? null : source.read()) !== null) {
            const event = toRecorded(resolved);
            if (wanted(event)) batch.push(event);
          }
          if (batch.length > 0) yield batch;
          else if (error) throw error;
          else if (error === null) return;
          else await new Promise<void>((resolve) => (wakeUp = resolve));
        }
      } finally {
        source.off('readable', onReadable);
        cleanup();
      }
    }
    let iterator: AsyncIterator<RecordedEvent> | null = null;
    return {
      [Symbol.asyncIterator]: () => (iterator ??= iterate()),
      batches: () => ({ [Symbol.asyncIterator]: () => batches() }),
      close: async () => {
        await source.unsubscribe();
      },
    };
  }

  async headPosition(): Promise<Position | null> {
    let from: ReadPosition = END;
    for (;;) {
      const page = await this.readAllPage(from, BACKWARDS, 100);
      const user = page.find((e) => !isSystem(e.streamId, e.type));
      if (user) return user.position;
      if (page.length < 100) return null;
      // Backward reads are inclusive too; re-reading the boundary event is harmless here.
      from = page[page.length - 1].position;
    }
  }

  async setStreamMetadata(stream: string, metadata: StreamMetadata): Promise<void> {
    await this.client.setStreamMetadata(stream, metadata.maxAgeSeconds ? { maxAge: metadata.maxAgeSeconds } : {});
  }

  /**
   * `$maxAge` already hides expired events from every read; a scavenge is what deletes
   * them from disk. The gRPC client has no call for it, so this asks the node's HTTP
   * admin API (same host, port and credentials as the connection string) to start one,
   * and the server runs it in the background.
   */
  async pruneExpired(_now: Date): Promise<null> {
    const { url, headers } = esdbAdminRequest(this.connectionString, '/admin/scavenge');
    const res = await fetch(url, { method: 'POST', headers });
    if (!res.ok) throw new Error(`EventStoreDB scavenge refused: ${res.status} ${await res.text()}`);
    return null;
  }

  async ping(): Promise<void> {
    await this.readAllPage(END, BACKWARDS, 1);
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }
}

/** The HTTP address of the first node of an `esdb://[user:pass@]host:port[,…][?tls=…]` connection string. */
export function esdbAdminRequest(
  connectionString: string,
  path: string,
): { url: string; headers: Record<string, string> } {
  const parsed = new URL(connectionString.replace(/^esdb(\+discover)?:/, 'http:').replace(/,[^/?]*/, ''));
  const tls = parsed.searchParams.get('tls') ?? parsed.searchParams.get('Tls') ?? 'true';
  const scheme = tls.toLowerCase() === 'false' ? 'http' : 'https';
  const headers: Record<string, string> = {};
  if (parsed.username) {
    const credentials = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
    headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
  }
  return { url: `${scheme}://${parsed.host}${path}`, headers };
}
