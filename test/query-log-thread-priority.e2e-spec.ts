import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { DEFAULT_QUERY_LOG_NICE, queryLogNice } from '../libs/dns-analytics/application/thread-priority';

/** Niceness of a thread from /proc (field 19 of stat; the command name may hold spaces). */
const niceOf = (statPath: string): number => Number(readFileSync(statPath, 'utf8').split(') ')[1].split(' ')[16]);

/**
 * The query-log thread lowers its own scheduling priority, and only its own: run in a real
 * worker thread (the compiled module, as the service runs it), checked in /proc.
 */
describe('query-log thread priority', () => {
  it('lowers the calling thread only, to the niceness asked for', async () => {
    const compiled = join(__dirname, '..', 'dist', 'libs', 'dns-analytics', 'application', 'thread-priority.js');
    const before = niceOf('/proc/thread-self/stat');
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads');
       const { lowerThreadPriority, currentThreadId } = require(${JSON.stringify(compiled)});
       const lowered = lowerThreadPriority(7);
       parentPort.postMessage({ lowered, tid: currentThreadId(), stat: require('node:fs').readFileSync('/proc/thread-self/stat', 'utf8') });`,
      { eval: true },
    );
    const reply = await new Promise<{ lowered: boolean; tid: number; stat: string }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    expect(reply.lowered).toBe(true);
    expect(reply.tid).not.toBe(process.pid);
    expect(Number(reply.stat.split(') ')[1].split(' ')[16])).toBe(Math.max(before, 7)); // lowered, never raised
    // The test's own thread kept its priority.
    expect(niceOf('/proc/thread-self/stat')).toBe(before);
  });

  it('takes QUERY_LOG_NICE from 0 to 19, anything else the default', () => {
    expect(queryLogNice({})).toBe(DEFAULT_QUERY_LOG_NICE);
    expect(queryLogNice({ QUERY_LOG_NICE: '0' })).toBe(0);
    expect(queryLogNice({ QUERY_LOG_NICE: '19' })).toBe(19);
    expect(queryLogNice({ QUERY_LOG_NICE: '10' })).toBe(10);
    for (const bad of ['', '-5', '20', '3.5', 'low'])
      expect(queryLogNice({ QUERY_LOG_NICE: bad })).toBe(DEFAULT_QUERY_LOG_NICE);
  });
});
