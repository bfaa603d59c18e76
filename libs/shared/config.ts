import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';

export type Role = 'api' | 'dns' | 'intake' | 'worker';
const ALL_ROLES: Role[] = ['api', 'dns', 'intake', 'worker'];

/** Every setting the service reads; configuration is by environment only (contract §13). */
export interface AppConfig {
  port: number;
  host: string;
  dataDir: string;
  roles: Role[];
  eventStoreUrl: string | null;
  mongodbUrl: string | null;
  adminToken: string | null;
  secretKey: string | null;
  /** DNSSEC_DDNS_ZONES: sign the dynamic-DNS zones (contract §17). */
  dnssecDdnsZones: boolean;
  /** Rollover waits and DS-check interval overrides (tests; null = RFC 7583 from the TTLs), and the DNSSEC timer poll. */
  dnssecPublishWaitSeconds: number | null;
  dnssecRetireWaitSeconds: number | null;
  dnssecDsCheckSeconds: number | null;
  dnssecTimerPollMs: number;
  dnsHost: string;
  dnsPort: number;
  /** Runs the `dns` role in its own thread on the embedded store (DNS_THREAD=off keeps it on the main thread). */
  dnsThread: boolean;
  /** DNS threads sharing the port through SO_REUSEPORT (embedded store, DNS_THREAD on). */
  dnsThreads: number;
  /** DNS_CPU_AFFINITY: CPU-local steering of UDP queries over the DNS threads (libs/dns-server/cpu-locality.ts). */
  dnsCpuAffinity: CpuAffinityMode;
  /** Logs every answered query for DNS analytics (QUERY_LOG=off turns the log off). */
  queryLog: boolean;
  /** Decodes, enriches and writes the query log in a thread of its own (QUERY_LOG_THREAD=off: on the main thread). */
  queryLogThread: boolean;
  smtpPort: number;
  ddnsZones: string[];
  nameservers: string[];
  /** The operator's secondaries (ns2…nsN): `IP[:port]`, allowed to transfer every zone and NOTIFYed of every change (contract §18). */
  secondaries: string[];
  /** Their TSIG key, `name:algorithm:base64secret`. */
  secondaryTsigKey: string | null;
  acmeDirectoryUrl: string | null;
  acmeCaCert: string | null;
  acmePropagationDelayMs: number;
  verifyResolver: string | null;
  /**
   * Port at which zone verification asks a parent zone's name servers for the delegation
   * (VERIFY_AUTHORITY_PORT; default VERIFY_RESOLVER's port, else 53: both are 53 outside tests).
   */
  verifyAuthorityPort: number;
  uptimeIntervalSeconds: number;
  uptimeCheckPorts: number[];
  uptimeTimeoutMs: number;
  /** Checks in flight at once per worker. */
  uptimeConcurrency: number;
  /** This worker's share of partitioned work (uptime checks): WORKER_INDEX of WORKER_COUNT. */
  workerIndex: number;
  workerCount: number;
  trustedProxies: string[];
  /**
   * Whether uptime targets and dynamic-DNS addresses may be loopback, link-local, private,
   * CGNAT, multicast, broadcast or unspecified (ALLOW_PRIVATE_TARGETS=true; contract §16).
   * Off by default: such targets would turn the uptime checker into a probe of the
   * service's own network.
   */
  allowPrivateTargets: boolean;
  /**
   * The longest wait between two tries of a failing webhook delivery (contract §19: one
   * hour). Not an environment setting: tests lower it (through the config they start the
   * app with) so an outage's retries come within the test's time (docs/security/webhooks.md).
   */
  webhookMaxRetryMs: number;
  totpIssuer: string;
  sessionTtlSeconds: number;
  logRequests: boolean;
  /** DMARC/TLS reports larger than this once unpacked are refused (contract §8: 10 MiB). */
  reportMaxUnpackedBytes: number;
  /**
   * SMTP report intake limits (contract §16): sessions at once in total and per client
   * address, and message bytes held in memory across all sessions (docs/security/intake-and-tcp.md).
   */
  smtpMaxClients: number;
  smtpMaxClientsPerIp: number;
  smtpMaxHeldBytes: number;
  /** With every session place taken, a session without progress for this long gives its place to a new one. */
  smtpStaleSessionMs: number;
  /** Embedded read store: MiB of parsed documents kept in memory (READ_STORE_CACHE_MB). */
  readStoreCacheMiB: number;
  /** Embedded read store: SQLite page cache per connection, MiB (READ_STORE_PAGE_CACHE_MB). */
  readStorePageCacheMiB: number;
  /** How long a consumer's lease lasts without renewal before a standby process takes it over. */
  leaseTtlMs: number;
  /**
   * Email-auth API requests a minute per key (EMAIL_AUTH_API_RATE_LIMIT; the seed's 60).
   * Only benchmarks raise it, to measure throughput past the per-key budget.
   */
  emailAuthRateLimit: number;
  /** MiB of gzip-compressed report-row pages the email-auth API keeps per process (EMAIL_AUTH_PAGE_CACHE_MB; 0 = no cache). */
  emailAuthPageCacheMiB: number;
  /** V8 heap growth past the live size, percent (HEAP_GROWING_PERCENT; 0 = V8's default): see heap-growth.ts. */
  heapGrowingPercent: number;
}

export const APP_CONFIG = Symbol('APP_CONFIG');

/** DNS_CPU_AFFINITY (libs/dns-server/cpu-locality.ts): `on` = both halves, `steer` or `pin` alone (to measure them apart), `off` = neither. */
export type CpuAffinityMode = 'on' | 'off' | 'steer' | 'pin';

const CPU_AFFINITY_MODES: readonly CpuAffinityMode[] = ['on', 'off', 'steer', 'pin'];

export function parseCpuAffinity(value: string | undefined, fallback: CpuAffinityMode): CpuAffinityMode {
  if (value === undefined || value === '') return fallback;
  if (!(CPU_AFFINITY_MODES as readonly string[]).includes(value)) {
    throw new Error(`DNS_CPU_AFFINITY must be one of ${CPU_AFFINITY_MODES.join(', ')} (got "${value}")`);
  }
  return value as CpuAffinityMode;
}

const list = (v: string | undefined, fallback: string[] = []): string[] =>
  v === undefined
    ? fallback
    : v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);

const int = (v: string | undefined, fallback: number, name: string): number => {
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${v}"`);
  return n;
};

/** The port of a `host:port` (or `[v6]:port`) resolver address, or null without one. */
const resolverPort = (v: string | undefined): number | null => {
  const port = /(?:^[^:]*|\]):(\d{1,5})$/.exec(v ?? '')?.[1];
  return port === undefined ? null : Number(port);
};

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<AppConfig> = {}): AppConfig {
  const roles = list(env.ROLES, ALL_ROLES) as Role[];
  for (const r of roles) if (!ALL_ROLES.includes(r)) throw new Error(`ROLES: unknown role "${r}"`);
  const dataDir = resolve(env.DATA_DIR || './data');
  const config: AppConfig = {
    port: int(env.PORT, 3000, 'PORT'),
    host: env.HOST || '0.0.0.0',
    dataDir,
    roles,
    eventStoreUrl: env.EVENTSTORE_URL || null,
    mongodbUrl: env.MONGODB_URL || null,
    adminToken: env.ADMIN_TOKEN || null,
    secretKey: env.SECRET_KEY || null,
    dnssecDdnsZones: env.DNSSEC_DDNS_ZONES === 'true',
    dnssecPublishWaitSeconds: env.DNSSEC_PUBLISH_WAIT_SECONDS
      ? int(env.DNSSEC_PUBLISH_WAIT_SECONDS, 0, 'DNSSEC_PUBLISH_WAIT_SECONDS')
      : null,
    dnssecRetireWaitSeconds: env.DNSSEC_RETIRE_WAIT_SECONDS
      ? int(env.DNSSEC_RETIRE_WAIT_SECONDS, 0, 'DNSSEC_RETIRE_WAIT_SECONDS')
      : null,
    dnssecDsCheckSeconds: env.DNSSEC_DS_CHECK_SECONDS
      ? int(env.DNSSEC_DS_CHECK_SECONDS, 0, 'DNSSEC_DS_CHECK_SECONDS')
      : null,
    dnssecTimerPollMs: Math.max(50, int(env.DNSSEC_TIMER_POLL_MS, 1000, 'DNSSEC_TIMER_POLL_MS')),
    dnsHost: env.DNS_HOST || '127.0.0.1',
    dnsPort: int(env.DNS_PORT, 5300, 'DNS_PORT'),
    dnsThread: env.DNS_THREAD !== 'off',
    dnsThreads: Math.max(1, int(env.DNS_THREADS, Math.min(availableParallelism(), 4), 'DNS_THREADS')),
    dnsCpuAffinity: parseCpuAffinity(env.DNS_CPU_AFFINITY, 'on'),
    queryLog: env.QUERY_LOG !== 'off',
    queryLogThread: env.QUERY_LOG_THREAD !== 'off',
    smtpPort: int(env.SMTP_PORT, 2525, 'SMTP_PORT'),
    ddnsZones: list(env.DDNS_ZONES, ['dyn.example.net']).map((z) => z.toLowerCase().replace(/\.$/, '')),
    nameservers: list(env.NAMESERVERS, ['ns1.example.net', 'ns2.example.net']).map((z) =>
      z.toLowerCase().replace(/\.$/, ''),
    ),
    secondaries: list(env.SECONDARIES),
    secondaryTsigKey: env.SECONDARY_TSIG_KEY || null,
    acmeDirectoryUrl: env.ACME_DIRECTORY_URL || null,
    acmeCaCert: env.ACME_CA_CERT || null,
    acmePropagationDelayMs: int(env.ACME_PROPAGATION_DELAY_MS, 5000, 'ACME_PROPAGATION_DELAY_MS'),
    verifyResolver: env.VERIFY_RESOLVER || null,
    verifyAuthorityPort: int(
      env.VERIFY_AUTHORITY_PORT,
      resolverPort(env.VERIFY_RESOLVER) ?? 53,
      'VERIFY_AUTHORITY_PORT',
    ),
    uptimeIntervalSeconds: int(env.UPTIME_INTERVAL_SECONDS, 300, 'UPTIME_INTERVAL_SECONDS'),
    uptimeCheckPorts: list(env.UPTIME_CHECK_PORTS, ['443', '80']).map((p) => int(p, 0, 'UPTIME_CHECK_PORTS')),
    uptimeTimeoutMs: int(env.UPTIME_TIMEOUT_MS, 5000, 'UPTIME_TIMEOUT_MS'),
    uptimeConcurrency: Math.max(1, int(env.UPTIME_CONCURRENCY, 256, 'UPTIME_CONCURRENCY')),
    workerIndex: int(env.WORKER_INDEX, 0, 'WORKER_INDEX'),
    workerCount: Math.max(1, int(env.WORKER_COUNT, 1, 'WORKER_COUNT')),
    trustedProxies: list(env.TRUSTED_PROXIES),
    allowPrivateTargets: env.ALLOW_PRIVATE_TARGETS === 'true',
    webhookMaxRetryMs: 3_600_000,
    totpIssuer: env.TOTP_ISSUER || 'Account DNS',
    sessionTtlSeconds: int(env.SESSION_TTL_SECONDS, 86400, 'SESSION_TTL_SECONDS'),
    logRequests: env.LOG_REQUESTS !== 'false',
    reportMaxUnpackedBytes: int(env.REPORT_MAX_UNPACKED_BYTES, 10 * 1024 * 1024, 'REPORT_MAX_UNPACKED_BYTES'),
    smtpMaxClients: Math.max(1, int(env.SMTP_MAX_CLIENTS, 100, 'SMTP_MAX_CLIENTS')),
    smtpMaxClientsPerIp: Math.max(1, int(env.SMTP_MAX_CLIENTS_PER_IP, 10, 'SMTP_MAX_CLIENTS_PER_IP')),
    smtpMaxHeldBytes: Math.max(1, int(env.SMTP_MAX_HELD_BYTES, 16 * 1024 * 1024, 'SMTP_MAX_HELD_BYTES')),
    smtpStaleSessionMs: int(env.SMTP_STALE_SESSION_MS, 30_000, 'SMTP_STALE_SESSION_MS'),
    readStoreCacheMiB: int(env.READ_STORE_CACHE_MB, 16, 'READ_STORE_CACHE_MB'),
    readStorePageCacheMiB: int(env.READ_STORE_PAGE_CACHE_MB, 8, 'READ_STORE_PAGE_CACHE_MB'),
    leaseTtlMs: Math.max(300, int(env.LEASE_TTL_MS, 10_000, 'LEASE_TTL_MS')),
    emailAuthRateLimit: Math.max(1, int(env.EMAIL_AUTH_API_RATE_LIMIT, 60, 'EMAIL_AUTH_API_RATE_LIMIT')),
    emailAuthPageCacheMiB: int(env.EMAIL_AUTH_PAGE_CACHE_MB, 16, 'EMAIL_AUTH_PAGE_CACHE_MB'),
    heapGrowingPercent: int(env.HEAP_GROWING_PERCENT, 50, 'HEAP_GROWING_PERCENT'),
    ...overrides,
  };
  if (config.workerIndex >= config.workerCount) {
    throw new Error(`WORKER_INDEX (${config.workerIndex}) must be below WORKER_COUNT (${config.workerCount})`);
  }
  return config;
}

export const dataPath = (config: AppConfig, file: string): string => join(config.dataDir, file);
