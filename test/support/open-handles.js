// JEST_OPEN_HANDLES=1 (test/support/closing-environment.js): what a suite leaves that keeps the jest
// worker alive or slows its exit, and where it was made. Plain JS: loaded before any transform.
// Decision 0101 says what it found.
const { createHook } = require('node:async_hooks');

/** Kinds of async resource that keep a process alive while referenced (a worker thread even unreferenced delays exit). */
const HOLDING = new Set([
  'Timeout',
  'TCPWRAP',
  'TCPSERVERWRAP',
  'UDPWRAP',
  'PIPEWRAP',
  'PIPESERVERWRAP',
  'PROCESSWRAP',
  'WORKER',
  'MESSAGEPORT',
  'FSEVENTWRAP',
  'STATWATCHER',
  'SIGNALWRAP',
]);

/** Stack frames that say nothing about who made the resource. */
const PLUMBING = /\(node:|node:internal|open-handles\.js|\/node_modules\/(jest-|@jest\/|expect|ts-jest)/;

let current = null;
const made = new Map();

const hook = createHook({
  init(asyncId, type, _trigger, resource) {
    if (!HOLDING.has(type)) return;
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 30;
    const holder = {};
    Error.captureStackTrace(holder);
    Error.stackTraceLimit = limit;
    made.set(asyncId, {
      suite: current ?? 'between suites',
      type,
      resource: new WeakRef(resource),
      stack: holder.stack,
    });
  },
  destroy(asyncId) {
    made.delete(asyncId);
  },
});

/** Process stdio: made on first use by whichever suite touches it, never a leak. */
const isStdio = (resource) => [process.stdin, process.stdout, process.stderr].some((s) => s._handle === resource);

/** `entry` if it still holds the process ("" or "unref'd "), else null. */
function holding(entry) {
  const resource = entry.resource.deref();
  if (!resource || resource._destroyed || isStdio(resource)) return null;
  if (resource.hasRef?.()) return '';
  return entry.type === 'WORKER' ? "unref'd " : null;
}

const where = (entry) =>
  entry.stack
    .split('\n')
    .slice(1)
    .filter((line) => !PLUMBING.test(line))
    .slice(0, 6)
    .map((line) => line.trim())
    .join(' < ') || '(inside Node)';

/** Notes what is made from now on as made by `suite`. */
function track(suite) {
  hook.enable();
  current = suite;
}

/**
 * What `suite` made that still holds the process, once closes under way have finished (a few
 * turns of the event loop, not a wait of some milliseconds): one line each, with where it was made.
 */
async function leftOpen(suite) {
  if (current === suite) current = null;
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
  const open = [];
  for (const [asyncId, entry] of made) {
    if (entry.suite !== suite) continue;
    const kind = holding(entry);
    if (kind === null) made.delete(asyncId);
    else open.push(`${kind}${entry.type} made ${where(entry)}`);
  }
  return open;
}

// When jest-worker asks this worker to end (message [2]): what still holds it, and how long until
// 'exit'. Jest force-exits a worker that is not gone 500 ms after asking.
if (process.send && process.env.JEST_OPEN_HANDLES)
  process.on('message', function ended(message) {
    if (!Array.isArray(message) || message[0] !== 2) return;
    process.off('message', ended); // a 'message' listener keeps the IPC channel, and so the worker, alive
    const asked = Date.now();
    process.on('exit', () =>
      process.stderr.write(`worker ${process.pid}: 'exit' ${Date.now() - asked} ms after end\n`),
    );
    setImmediate(() => {
      const open = [...made.values()]
        .map((entry) => [holding(entry), entry])
        .filter(([kind]) => kind !== null)
        .map(([kind, entry]) => `${kind}${entry.type} by ${entry.suite}, made ${where(entry)}`);
      const rss = Math.round(process.memoryUsage().rss / 2 ** 20);
      process.stderr.write(
        `worker ${process.pid} asked to end (RSS ${rss} MiB); still open: ${open.join('; ') || 'nothing'}\n`,
      );
    });
  });

module.exports = { track, leftOpen };
