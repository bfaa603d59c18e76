/**
 * Allocation probe for a service process, loaded with `node --require <this file>` (any build: it uses
 * Node's built-ins only). On the main thread (workers load it too and do nothing), each SIGUSR2 ends a
 * segment and writes `ALLOC_PROBE_DIR/mark-<n>.json`: the bytes the main thread's heap took between the
 * two marks (the used heap's growth between collections, summed from `v8.GCProfiler`: what was allocated,
 * garbage included) and the collections by type (`Scavenge` is the young generation's). With
 * ALLOC_PROBE_HEAP_INTERVAL (bytes), V8's sampling heap profiler runs too, keeping objects collected
 * since (the inspector's `includeObjectsCollectedBy*GC`), and each segment's profile is written as
 * `segment-<n>.heapprofile` (Chrome DevTools' format; `bench/support/heap-profile-sites.ts` ranks it):
 * where the bytes were allocated, not where they are kept.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';
import { GCProfiler, getHeapStatistics } from 'node:v8';
import { isMainThread } from 'node:worker_threads';

/** One segment's figures, as written to `mark-<n>.json`. */
export interface AllocMark {
  mark: number;
  allocatedBytes: number;
  /** Collections by V8's type name (`Scavenge`, `MarkSweepCompact`, `IncrementalMarking`, ...). */
  gcs: Record<string, number>;
  /** Their pause time, ms, by type (V8's `cost`, on the main thread). */
  gcMs: Record<string, number>;
}

interface GcStatistic {
  gcType: string;
  cost: number;
  beforeGC: { heapStatistics: { usedHeapSize: number } };
  afterGC: { heapStatistics: { usedHeapSize: number } };
}

function install(dir: string, heapInterval: number): void {
  let profiler = new GCProfiler();
  profiler.start();
  let usedAtMark = getHeapStatistics().used_heap_size;
  let mark = 0;
  const session = heapInterval > 0 ? new Session() : undefined;
  const startSampling = () =>
    session?.post('HeapProfiler.startSampling', {
      samplingInterval: heapInterval,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  if (session) {
    session.connect();
    startSampling();
  }
  process.on('SIGUSR2', () => {
    mark++;
    const stats = (profiler.stop()?.statistics ?? []) as GcStatistic[];
    const usedNow = getHeapStatistics().used_heap_size;
    let allocatedBytes = 0;
    let from = usedAtMark;
    const gcs: Record<string, number> = {};
    const gcMs: Record<string, number> = {};
    for (const s of stats) {
      allocatedBytes += Math.max(0, s.beforeGC.heapStatistics.usedHeapSize - from);
      from = s.afterGC.heapStatistics.usedHeapSize;
      gcs[s.gcType] = (gcs[s.gcType] ?? 0) + 1;
      gcMs[s.gcType] = (gcMs[s.gcType] ?? 0) + s.cost / 1000;
    }
    allocatedBytes += Math.max(0, usedNow - from);
    profiler = new GCProfiler();
    profiler.start();
    usedAtMark = getHeapStatistics().used_heap_size;
    if (session) {
      // The inspector session of the thread itself answers synchronously.
      session.post('HeapProfiler.stopSampling', (error, result) => {
        if (!error) writeFileSync(join(dir, `segment-${mark}.heapprofile`), JSON.stringify(result.profile));
      });
      startSampling();
    }
    const out: AllocMark = { mark, allocatedBytes, gcs, gcMs };
    // Written aside and renamed, so a reader never sees half a file.
    writeFileSync(join(dir, `mark-${mark}.json.tmp`), JSON.stringify(out));
    renameSync(join(dir, `mark-${mark}.json.tmp`), join(dir, `mark-${mark}.json`));
  });
}

const dir = process.env.ALLOC_PROBE_DIR;
if (isMainThread && dir) install(dir, Number(process.env.ALLOC_PROBE_HEAP_INTERVAL ?? 0));
