/**
 * Operator CLI: a thin client of the `/admin/*` endpoints, so it acts on the running
 * service (whose embedded stores are in-process) exactly as it does on a cluster.
 * ADMIN_URL (default http://127.0.0.1:$PORT) and ADMIN_TOKEN come from the environment.
 */
import { readFileSync } from 'node:fs';
import type { StoredAuditEntry } from '../../libs/accounts/http/audit-admin.controller';
import { verifyAuditExport } from './audit-verify';

interface CommandSpec {
  usage: string;
  run(args: string[], flags: Map<string, string>): Promise<unknown>;
}

const baseUrl = () => (process.env.ADMIN_URL ?? `http://127.0.0.1:${process.env.PORT ?? 3000}`).replace(/\/$/, '');

async function call(method: string, path: string, body?: unknown): Promise<unknown> {
  const token = process.env.ADMIN_TOKEN;
  if (!token) throw new Error('ADMIN_TOKEN is not set');
  const headers: Record<string, string> = { 'x-admin-token': token };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(baseUrl() + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const parsed = text ? JSON.parse(text) : null;
  if (!res.ok) throw new Error(`${res.status}: ${parsed?.error?.message ?? text}`);
  return parsed;
}

/** POSTs a file's bytes as they are (reports are xml, gzip, zip, mail or JSON; the service tells them apart). */
async function upload(path: string, file: string): Promise<unknown> {
  const token = process.env.ADMIN_TOKEN;
  if (!token) throw new Error('ADMIN_TOKEN is not set');
  const res = await fetch(baseUrl() + path, {
    method: 'POST',
    headers: { 'x-admin-token': token, 'content-type': 'application/octet-stream', 'x-report-source': 'cli' },
    body: readFileSync(file),
  });
  const text = await res.text();
  const parsed = text ? JSON.parse(text) : null;
  if (!res.ok) throw new Error(`${res.status}: ${parsed?.error?.message ?? text}`);
  return parsed;
}

const need = (args: string[], n: number, usage: string) => {
  if (args.length < n) throw new Error(`usage: ${usage}`);
};

const COMMANDS: Record<string, CommandSpec> = {
  'accounts:subscription': {
    usage:
      'accounts:subscription <account-id> [--plan free|plus|pro|elite] [--email-auth-tier ' +
      'none|standard|enterprise] [--email-auth-domains a.com,b.com]',
    async run(args, flags) {
      need(args, 1, this.usage);
      const body: Record<string, unknown> = {};
      if (flags.has('plan')) body.plan = flags.get('plan');
      if (flags.has('email-auth-tier')) {
        body.email_auth = {
          tier: flags.get('email-auth-tier'),
          domains: (flags.get('email-auth-domains') ?? '').split(',').filter(Boolean),
        };
      }
      return call('PUT', `/admin/accounts/${args[0]}/subscription`, body);
    },
  },
  'accounts:disable': {
    usage: 'accounts:disable <account-id>',
    async run(args) {
      need(args, 1, this.usage);
      return call('POST', `/admin/accounts/${args[0]}/disable`);
    },
  },
  'accounts:enable': {
    usage: 'accounts:enable <account-id>',
    async run(args) {
      need(args, 1, this.usage);
      return call('POST', `/admin/accounts/${args[0]}/enable`);
    },
  },
  'projections:status': {
    usage: 'projections:status',
    run: () => call('GET', '/admin/projections'),
  },
  'projections:rebuild': {
    usage: 'projections:rebuild <name> [--wait]',
    async run(args, flags) {
      need(args, 1, this.usage);
      return call(
        'POST',
        `/admin/projections/${encodeURIComponent(args[0])}/rebuild${flags.has('wait') ? '?wait=true' : ''}`,
      );
    },
  },
  'jobs:dmarc-nightly': {
    usage: 'jobs:dmarc-nightly [--now <ISO time>]',
    run: (_args, flags) =>
      call('POST', '/admin/jobs/dmarc-nightly', flags.has('now') ? { now: flags.get('now') } : undefined),
  },
  'retention:run': {
    usage: 'retention:run',
    run: () => call('POST', '/admin/retention/run'),
  },
  'reports:import': {
    usage: 'reports:import <file>   (DMARC aggregate .xml/.gz/.zip, report mail .eml, TLS-RPT .json)',
    async run(args) {
      need(args, 1, this.usage);
      return upload('/admin/reports', args[0]);
    },
  },
  'jobs:certificate-renewals': {
    usage: 'jobs:certificate-renewals [--now <ISO 8601>]',
    run: (_args, flags) =>
      call('POST', '/admin/jobs/certificate-renewals', flags.has('now') ? { now: flags.get('now') } : {}),
  },
  'jobs:email-auth-alerts': {
    usage:
      'jobs:email-auth-alerts [--now <ISO 8601>]   (live-record check now, and the daily report rules that are due)',
    run: (_args, flags) =>
      call('POST', '/admin/jobs/email-auth-alerts', flags.has('now') ? { now: flags.get('now') } : {}),
  },
  'zones:allow-overlap': {
    usage:
      'zones:allow-overlap <zone> <account-id>   (the account may hold the zone although it overlaps another account’s zone or a service name)',
    async run(args) {
      need(args, 2, this.usage);
      return call('POST', `/admin/zones/${encodeURIComponent(args[0])}/allow-overlap`, { account_id: Number(args[1]) });
    },
  },
  'zones:conflicts': {
    usage: 'zones:conflicts   (existing zones that break the ownership rules, each conflicting pair once)',
    run: () => call('GET', '/admin/zones/conflicts'),
  },
  'audit:verify': {
    usage:
      'audit:verify <file>   (an audit export, JSON Lines or CSV: the chain links and every entry matches the ' +
      'store; fails naming the first bad line)',
    async run(args) {
      need(args, 1, this.usage);
      return verifyAuditExport(
        args[0],
        async (ids) =>
          ((await call('POST', '/admin/audit/entries', { ids })) as { entries: StoredAuditEntry[] }).entries,
      );
    },
  },
  'streams:replay': {
    usage: 'streams:replay <stream>',
    async run(args) {
      need(args, 1, this.usage);
      const events: unknown[] = [];
      for (let from = 0; ;) {
        const page = (await call(
          'GET',
          `/admin/streams/${encodeURIComponent(args[0])}?from_revision=${from}&limit=1000`,
        )) as {
          events: Array<{ revision: number }>;
        };
        events.push(...page.events);
        if (page.events.length < 1000) break;
        from = page.events[page.events.length - 1].revision + 1;
      }
      return { stream: args[0], events };
    },
  },
};

function parse(argv: string[]): { name: string; args: string[]; flags: Map<string, string> } {
  const [name = 'help', ...rest] = argv;
  const args: string[] = [];
  const flags = new Map<string, string>();
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (a.startsWith('--')) {
      const next = rest[i + 1];
      if (next !== undefined && !next.startsWith('--')) {
        flags.set(a.slice(2), next);
        i++;
      } else flags.set(a.slice(2), 'true');
    } else args.push(a);
  }
  return { name, args, flags };
}

const HELP = new Set(['help', '--help', '-h']);

async function main(): Promise<void> {
  const { name, args, flags } = parse(process.argv.slice(2));
  const command = COMMANDS[name];
  if (!command) {
    process.stdout.write(
      `Commands:\n${Object.values(COMMANDS)
        .map((c) => `  ${c.usage}`)
        .join('\n')}\n`,
    );
    process.exitCode = HELP.has(name) ? 0 : 2;
    return;
  }
  const result = await command.run(args, flags);
  process.stdout.write(JSON.stringify(result, null, 2) + '\n');
}

main().catch((e) => {
  process.stderr.write(`error: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
