/**
 * The event log as a product (issue 26), every part in one run: time travel and history reads
 * over a zone with a long history (bench/event-log/history.ts), webhook throughput and delivery
 * latency (bench/event-log/webhooks.ts), audit export rate (bench/event-log/audit-export.ts).
 * Each part starts the service as `npm start` runs it and prints its own figures beside the
 * current-state read it compares with; EVENT_LOG_BENCH_PARTS picks some (comma-separated).
 *
 * Run: npm run bench:event-log   (each part's environment is in its file's header)
 */
import * as auditExport from './event-log/audit-export';
import * as history from './event-log/history';
import * as webhooks from './event-log/webhooks';

const PARTS: Record<string, { run(): Promise<void> }> = { history, webhooks, 'audit-export': auditExport };

async function main(): Promise<void> {
  const wanted = (process.env.EVENT_LOG_BENCH_PARTS ?? Object.keys(PARTS).join(',')).split(',').filter(Boolean);
  for (const name of wanted) {
    const part = PARTS[name];
    if (!part) throw new Error(`unknown part ${name}; parts: ${Object.keys(PARTS).join(', ')}`);
    console.log(`\n=== ${name}`);
    await part.run();
  }
}

main().then(
  () => process.exit(0),
  (e: Error) => {
    console.error(e);
    process.exit(1);
  },
);
