/**
 * Email-auth alerts and OpenAPI benchmark. Prints CPU time (process.cpuUsage, so the
 * figures hold on a busy machine better than wall time):
 * - per report observed by the daily-alerts process manager (decide + fold, as the runtime
 *   records it), per day evaluation, and per alert decision;
 * - building /openapi.json (management API) at start, next to /api/v1/openapi.json.
 *
 * Run: npm run bench:email-auth-alerts   env: EAA_BENCH_DOMAINS (200), EAA_BENCH_DAYS (100)
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../apps/server/app';
import { managementOpenApi } from '../apps/server/management-openapi';
import {
  evolveProcess,
  initialProcessState,
  ProcessFact,
  ProcessState,
  recordTrigger,
} from '../libs/consumers/process-manager';
import { alertDecider, AlertState, EvaluateAlert } from '../libs/email-auth-alerts/domain/alert.decider';
import { AlertEvent } from '../libs/email-auth-alerts/domain/alert.events';
import {
  DailyReportFact,
  dailyReportAlerts as pm,
  DailyReportState,
} from '../libs/email-auth-alerts/domain/daily-report-alerts.process-manager';
import { emailAuthOpenApi } from '../libs/email-auth-api/http/openapi';
import { loadConfig } from '../libs/shared/config';
import { jsonLogger } from '../libs/shared/logger';

const DOMAINS = Number(process.env.EAA_BENCH_DOMAINS ?? 200);
const DAYS = Number(process.env.EAA_BENCH_DAYS ?? 100);
const REPORTS_PER_DAY = 3;

const cpuMs = (fn: () => void): number => {
  const before = process.cpuUsage();
  fn();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
};
const dayOf = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);

function processManager(): void {
  type State = ProcessState<DailyReportState>;
  type Fact = ProcessFact<DailyReportFact, EvaluateAlert>;
  const states = new Map<string, State>();
  const apply = (process: string, facts: Fact[]) => {
    let s = states.get(process) ?? initialProcessState(pm);
    for (const f of facts) s = evolveProcess(pm, s, f);
    states.set(process, s);
  };
  let reports = 0;
  let commands = 0;
  const observeMs = cpuMs(() => {
    for (let day = 0; day < DAYS; day++) {
      for (let d = 0; d < DOMAINS; d++) {
        const process = `7-domain${d}.example`;
        for (let r = 0; r < REPORTS_PER_DAY; r++) {
          const fact: DailyReportFact =
            r === 2
              ? {
                  type: 'tls',
                  account_id: 7,
                  zone: `domain${d}.example`,
                  day: dayOf(day),
                  successful: 1000,
                  failed: d % 10,
                }
              : {
                  type: 'dmarc',
                  account_id: 7,
                  zone: `domain${d}.example`,
                  day: dayOf(day),
                  messages: 500,
                  passing: 480 - (d % 7) * 10,
                };
          const s = states.get(process) ?? initialProcessState(pm);
          apply(process, recordTrigger(pm, s, { kind: 'observed', process, fact }, `e-${day}-${d}-${r}`));
          reports += 1;
        }
      }
    }
  });
  const evaluateMs = cpuMs(() => {
    for (let day = 0; day < DAYS; day++) {
      for (let d = 0; d < DOMAINS; d++) {
        const process = `7-domain${d}.example`;
        const facts = recordTrigger(pm, states.get(process)!, {
          kind: 'timer',
          process,
          timerId: `day:${dayOf(day)}`,
          at: `${dayOf(day + 2)}T00:00:00.000Z`,
        });
        commands += facts.filter((f) => f.type === 'ProcessCommandIssued').length;
        apply(process, facts);
      }
    }
  });
  const decisions = 100_000;
  let state: AlertState = alertDecider.initialState();
  let events = 0;
  const decideMs = cpuMs(() => {
    for (let i = 0; i < decisions; i++) {
      const c: EvaluateAlert = {
        type: 'EvaluateAlert',
        account_id: 7,
        zone: 'example.org',
        rule: 'record_missing',
        observed: String(i).padStart(8, '0'),
        at: '',
        verdict: i % 5 === 0 ? 'firing' : 'clear',
        figures: {},
      };
      for (const e of alertDecider.decide(c, state) as AlertEvent[]) {
        state = alertDecider.evolve(state, e);
        events += 1;
      }
    }
  });
  console.log(`daily-alerts process manager: ${DOMAINS} domains x ${DAYS} days x ${REPORTS_PER_DAY} reports`);
  console.log(`  observe a report:  ${((observeMs * 1000) / reports).toFixed(2)} us CPU each (${reports} reports)`);
  console.log(
    `  evaluate a day:    ${((evaluateMs * 1000) / (DAYS * DOMAINS)).toFixed(2)} us CPU each (${commands} EvaluateAlert commands)`,
  );
  console.log(
    `alert decider: ${((decideMs * 1000) / decisions).toFixed(3)} us CPU per observation (${decisions} observations, ${events} events)`,
  );
}

async function openApi(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'eaa-bench-'));
  const config = loadConfig(
    { DATA_DIR: dataDir, ROLES: 'api', DNS_PORT: '0', SMTP_PORT: '0', SECRET_KEY: 'bench', LOG_REQUESTS: 'false' },
    { port: 0, host: '127.0.0.1' },
  );
  const running = await createApp(config, { logger: jsonLogger(process.stderr, false) });
  try {
    const runs = 5;
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const mgmt = median(Array.from({ length: runs }, () => cpuMs(() => managementOpenApi(running.app))));
    const ea = median(Array.from({ length: runs }, () => cpuMs(() => emailAuthOpenApi(running.app))));
    const doc = managementOpenApi(running.app);
    const operations = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    console.log(
      `OpenAPI at start (median of ${runs}, CPU): /openapi.json ${mgmt.toFixed(1)} ms (${operations} operations, ` +
        `${JSON.stringify(doc).length} bytes); /api/v1/openapi.json ${ea.toFixed(1)} ms`,
    );
  } finally {
    await running.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  processManager();
  await openApi();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
