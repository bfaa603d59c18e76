/**
 * The shape the code keeps (issue 16): bounded contexts (`libs/<context>`, the projections
 * folder, each app) depend on each other in one direction only. A cycle between two contexts
 * means neither can be read, tested or moved without the other; this test names the files
 * that close any cycle so it is fixed where it starts.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..');
const SOURCE_ROOTS = ['libs', 'projections', 'apps/server', 'apps/cli'];
const IMPORT = /(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(name) && !/\.(spec|conformance)\.ts$/.test(name) ? [path] : [];
  });
}

/**
 * `libs/zones/...` → `zones`; `apps/server/...` → `apps/server`; `projections/...` →
 * `projections`. A context's pure `domain/` folder is a node of its own (`zones/domain`):
 * the projections (the read side of every context) read the domain's events, and the
 * contexts' queries read the projections' read models; neither is a cycle as long as the
 * domain imports nothing above it.
 */
export function contextOf(file: string): string {
  const parts = relative(ROOT, file).split(/[\\/]/);
  if (parts[0] === 'apps') return `apps/${parts[1]}`;
  if (parts[0] === 'libs') return parts[2] === 'domain' ? `${parts[1]}/domain` : parts[1];
  return parts[0];
}

function contextGraph(): Map<string, Map<string, string[]>> {
  const graph = new Map<string, Map<string, string[]>>();
  for (const file of SOURCE_ROOTS.flatMap((r) => sourceFiles(join(ROOT, r)))) {
    const from = contextOf(file);
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const to = contextOf(resolve(dirname(file), m[1] ?? m[2]));
      if (to === from || to.split('/')[0] === from.split('/')[0]) continue;
      const edges = graph.get(from) ?? new Map<string, string[]>();
      edges.set(to, [...(edges.get(to) ?? []), relative(ROOT, file)]);
      graph.set(from, edges);
    }
  }
  return graph;
}

/** Every elementary cycle's first witness: for each strongly connected group, the edges inside it. */
function cycles(graph: Map<string, Map<string, string[]>>): string[] {
  const found: string[] = [];
  for (const [a, edges] of graph) {
    for (const [b, files] of edges) {
      if (a < b && graph.get(b)?.has(a))
        found.push(`${a} -> ${b} (${files[0]}) and ${b} -> ${a} (${graph.get(b)!.get(a)![0]})`);
    }
  }
  // Longer cycles: a path back to the start through other contexts.
  const reach = (start: string, target: string, seen = new Set<string>()): boolean =>
    [...(graph.get(start)?.keys() ?? [])].some(
      (n) => n === target || (!seen.has(n) && (seen.add(n), reach(n, target, seen))),
    );
  for (const [a, edges] of graph) {
    for (const b of edges.keys()) {
      if (!graph.get(b)?.has(a) && reach(b, a)) found.push(`${a} -> ${b} -> ... -> ${a} (${edges.get(b)![0]})`);
    }
  }
  return found;
}

/**
 * What a file's suffix (`name.<suffix>.ts`) says it holds; docs/architecture.md §7 has the
 * same table. A suffix not listed here fails the test, so a new one gets a meaning first.
 * `check` answers what is wrong with a file, or null.
 */
const NEST = /^import (?!type )[^;]*from '@nestjs\//m;
const SUFFIXES: Record<string, (text: string) => string | null> = {
  commands: (t) =>
    /@(CommandHandler|QueryHandler|Injectable|EventsHandler)\(/.test(t) || NEST.test(t)
      ? 'a commands file holds plain command classes: no Nest import, no decorator'
      : ((t.match(/^export (?!class |interface |type )\S+ \S+/gm) ?? []).map(
          (e) => `exports something other than a class or type: ${e}`,
        )[0] ?? null),
  handlers: (t) =>
    !/@CommandHandler\(/.test(t)
      ? 'a handlers file holds @CommandHandler classes'
      : !/\bCommandRunner\b/.test(t)
        ? 'handlers decide and append through CommandRunner'
        : ((t.match(/^export (?:abstract )?class \w+/gm) ?? []).filter(
            (c) => !new RegExp(`@(CommandHandler\\(\\w+\\)|Injectable\\(\\))\\n${c}`).test(t),
          )[0] ?? null),
  queries: (t) =>
    /@CommandHandler\(|appendToStream\(|streams\.(handle|append)\(|runner\.run/.test(t)
      ? 'a queries file only reads'
      : null,
  decider: (t) => (NEST.test(t) ? 'a decider is pure: no Nest' : null),
  events: (t) => (NEST.test(t) ? 'events are plain types and stream names: no Nest' : null),
  'process-manager': (t) => (NEST.test(t) ? 'a process manager is a pure decider over its own stream: no Nest' : null),
  process: (t) =>
    /WorkerProcessManagers/.test(t) && /@Injectable\(\)/.test(t) && !/^export const \w+ = \w+Process\(/m.test(t)
      ? null
      : 'a process file is the Nest wiring that starts a process manager (defined in a .process-manager.ts) through WorkerProcessManagers',
  job: (t) => (/@Injectable\(\)/.test(t) ? null : 'a job is an injectable run on a schedule or on demand'),
  worker: (t) => (/OnApplicationBootstrap/.test(t) ? null : 'a worker starts background work of the worker role'),
  controller: (t) => (/@Controller\(/.test(t) ? null : 'a controller file holds @Controller classes'),
  module: (t) => (/@(Module|Global)\(/.test(t) ? null : 'a module file holds a Nest @Module'),
  dto: (t) => (/@(Injectable|Controller)\(/.test(t) ? 'a DTO file holds request shapes only' : null),
  guard: (t) => (/canActivate\(/.test(t) ? null : 'a guard implements canActivate'),
  filter: (t) => (/@Catch\(/.test(t) ? null : 'a filter is a Nest exception filter'),
  port: (t) =>
    /^export (interface|const \w+ = Symbol\()/m.test(t)
      ? null
      : 'a port declares an interface (and its injection token)',
  adapter: (t) => (/implements \w+/.test(t) ? null : 'an adapter implements a port'),
  store: () => null,
  service: (t) => (/CommandBus/.test(t) ? null : 'an application service drives commands through the CommandBus'),
  protocol: () => null,
  schemas: () => null,
  docs: () => null,
  crypto: () => null,
  gate: () => null,
  sink: () => null,
  policy: () => null,
  builder: () => null,
  conformance: () => null,
};

const libFiles = () => sourceFiles(join(ROOT, 'libs')).filter((f) => f.endsWith('.ts'));
const suffixOf = (file: string) => basename(file).split('.').slice(1, -1).pop() ?? null;

/**
 * Application code outside the handlers that appends to the event store, and why. Every
 * other write goes through a command handler and `CommandRunner`.
 */
const APPENDS_OUTSIDE_HANDLERS: Record<string, string> = {
  'libs/accounts/application/account-directory.ts':
    'username and email reservations (uniqueness claims) for the account handlers',
  'libs/accounts/application/session-issuer.ts':
    'starts a session through CommandRunner for the login handlers of accounts and two-factor',
  'libs/domains/application/fqdn-registry.ts': 'fqdn reservations (uniqueness claims) for the domain handlers',
  'libs/certificates/application/acme-account.ts': 'the service ACME account key, claimed once with a NO_STREAM append',
  'libs/certificates/application/issuance-steps.ts':
    'the issuance steps, run only by RunIssuanceStepHandler (the process manager command)',
  'libs/certificates/application/challenge-records.ts':
    'the DNS-01 challenge records of an issuance step (zone stream)',
  'libs/dmarc-reports/application/report-ingestion.ts':
    'a received report is stored with one NO_STREAM append keyed by its content (intake, no decision)',
  'libs/dmarc-reports/application/report-retention.ts': 'the retention pass records what it removed',
  'libs/uptime/application/check-recorder.ts':
    'one check result per event on the checker hot path (no decision to take)',
  'libs/zones/application/zone-ownership.ts':
    'the zone claim tree and overlap allowances; claims are made by the zone handlers',
  'libs/consumers/process-manager-runtime.ts':
    'the runtime records a process manager own stream (facts, commands, timers)',
  'libs/webhooks/application/outbox-feeder.ts':
    'queues each source event on the matching endpoints’ outbox streams, the delivery queues (intake, no decision; decision 0087)',
  'libs/webhooks/application/deliverer.ts':
    'records delivery outcomes on the attempts stream, batched, for the delivery process (no decision; decision 0088)',
  'libs/webhooks/application/certificate-expiry.process.ts':
    'records a certificate’s expiry notice once, the process manager’s command (no decision to take)',
};
const APPEND =
  /appendToStream\(|streams\.(handle|append|reserve|handleOnce)\(|runner\.(run|runOnce)\(|reservations\.(claim|release)\(/;
/** Handlers that append without `CommandRunner`, and why. */
const HANDLERS_APPENDING_DIRECTLY: Record<string, string> = {
  'libs/email-auth/application/email-auth.handlers.ts':
    'RecordDmarcNight keeps the event id and metadata earlier nights were recorded with',
  'libs/webhooks/application/webhook.handlers.ts':
    'TestWebhook and RedeliverWebhook queue on the endpoint’s outbox stream, a delivery queue and not an aggregate (decision 0087)',
};

describe('architecture', () => {
  it('has no import cycles between bounded contexts', () => {
    expect(cycles(contextGraph())).toEqual([]);
  });

  it('keeps the pure and shared layers free of the contexts above them', () => {
    const graph = contextGraph();
    for (const lower of ['shared', 'eventstore', 'readstore']) {
      const upward = [...(graph.get(lower)?.keys() ?? [])].filter(
        (c) => !['shared', 'eventstore', 'readstore'].includes(c),
      );
      expect({ lower, upward }).toEqual({ lower, upward: [] });
    }
  });

  it('gives every file suffix under libs/ one meaning, and each file holds what its suffix says', () => {
    const wrong: string[] = [];
    for (const file of libFiles()) {
      const suffix = suffixOf(file);
      if (suffix === null) continue;
      const check = SUFFIXES[suffix];
      const problem = check
        ? check(readFileSync(file, 'utf8'))
        : `unknown suffix .${suffix}.ts: give it a meaning (SUFFIXES, docs/architecture.md)`;
      if (problem) wrong.push(`${relative(ROOT, file)}: ${problem}`);
    }
    expect(wrong).toEqual([]);
  });

  it('handles every command class of a commands file in a handlers file', () => {
    const handled = new Set(
      libFiles().flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/@CommandHandler\((\w+)\)/g)].map((m) => m[1])),
    );
    const unhandled = libFiles()
      .filter((f) => suffixOf(f) === 'commands')
      .flatMap((f) =>
        [...readFileSync(f, 'utf8').matchAll(/^export class (\w+)/gm)].map((m) => `${relative(ROOT, f)}: ${m[1]}`),
      )
      .filter((c) => !handled.has(c.split(': ')[1]));
    expect(unhandled).toEqual([]);
  });

  it('appends to the event store from handlers only (the exceptions are listed with their reasons)', () => {
    const outside = libFiles()
      .filter((f) => !/^libs\/(eventstore|readstore)\//.test(relative(ROOT, f)) && suffixOf(f) !== 'handlers')
      .filter((f) => APPEND.test(readFileSync(f, 'utf8')))
      .map((f) => relative(ROOT, f));
    expect(outside.sort()).toEqual(Object.keys(APPENDS_OUTSIDE_HANDLERS).sort());
    const direct = libFiles()
      .filter((f) => suffixOf(f) === 'handlers' && /appendToStream\(/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(ROOT, f));
    expect(direct).toEqual(Object.keys(HANDLERS_APPENDING_DIRECTLY));
  });
});
