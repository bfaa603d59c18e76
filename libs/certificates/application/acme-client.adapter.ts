import * as acme from 'acme-client';
import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { AcmePort, AcmeRefusal, AcmeRetryLater, AuthorizationOutcome, ChallengeRef, PlacedOrder } from './acme.port';

type ProblemLike = { type?: string; detail?: string } | undefined;
const problemText = (p: ProblemLike) => (p ? [p.type, p.detail].filter(Boolean).join(': ') : 'unknown error');

/** Seconds or an HTTP date (RFC 9110 §10.2.3), as milliseconds from now; null when absent or unreadable. */
export function retryAfterMs(header: unknown, now = Date.now()): number | null {
  if (typeof header !== 'string' || header.trim() === '') return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * acme-client throws the CA's problem detail as the message; HTTP-level failures say so.
 * A busy or rate-limiting CA (429, 5xx) is an outage to retry later, at its Retry-After.
 */
function asRefusal(e: unknown): Error {
  const err = e as { message?: string; response?: unknown; isAxiosError?: boolean };
  // No HTTP answer at all (CA down, TLS trust), or the CA busy: an outage, not the CA's verdict.
  if (e instanceof AcmeRetryLater || (err.isAxiosError && !err.response)) return e as Error;
  return new AcmeRefusal(err.message ?? String(e));
}

let busyInterceptor = false;
/**
 * acme-client accepts every HTTP status and turns a problem document into a plain Error,
 * losing the status: a 429 or 5xx is caught here first, with its Retry-After.
 */
function interceptBusyAnswers(): void {
  if (busyInterceptor) return;
  busyInterceptor = true;
  acme.axios.interceptors.response.use((response) => {
    if (response.status !== 429 && response.status < 500) return response;
    const problem = response.data as ProblemLike;
    throw new AcmeRetryLater(
      `HTTP ${response.status}: ${problemText(problem)}`,
      retryAfterMs(response.headers?.['retry-after']),
    );
  });
}

/**
 * The ACME port over `acme-client`, for ACME_DIRECTORY_URL, trusting ACME_CA_CERT for the
 * CA's HTTPS (a private CA such as pebble). The account is registered on first use
 * with the service's stored key; registering again with the same key returns the account.
 */
export class AcmeClientAdapter implements AcmePort {
  private client: Promise<acme.Client> | null = null;

  constructor(
    private readonly directoryUrl: string,
    caCertFile: string | null,
    private readonly accountKey: () => Promise<string>,
  ) {
    // acme-client sends every request through its own axios instance; this trust applies to it only.
    if (caCertFile) acme.axios.defaults.httpsAgent = new Agent({ ca: readFileSync(caCertFile), keepAlive: true });
    // No sleeping retries inside the client: a busy or rate-limiting CA comes back as AcmeRetryLater, and
    // the issuance process manager waits for its Retry-After as a timer that survives a restart.
    const defaults = acme.axios.defaults as unknown as { acmeSettings: Record<string, number> };
    defaults.acmeSettings = { ...defaults.acmeSettings, retryMaxAttempts: 0 };
    interceptBusyAnswers();
  }

  /** ECDSA P-256 for the account: every ACME request is signed with it, and P-256 signs far cheaper than RSA. */
  static createAccountKey = async (): Promise<string> => (await acme.crypto.createPrivateEcdsaKey('P-256')).toString();

  private async acme(): Promise<acme.Client> {
    this.client ??= (async () => {
      const client = new acme.Client({ directoryUrl: this.directoryUrl, accountKey: await this.accountKey() });
      try {
        await client.createAccount({ termsOfServiceAgreed: true });
      } catch (e) {
        // With the key already registered (any restart) the CA answers 200 with the account's
        // URL, and acme-client follows up with an update pebble refuses as empty: the account
        // is found, which is all that is needed.
        if (!accountUrlOf(client)) throw e;
      }
      return client;
    })().catch((e) => {
      this.client = null;
      throw e;
    });
    return this.client;
  }

  async placeOrder(names: string[]): Promise<PlacedOrder> {
    const client = await this.acme();
    try {
      return await this.describe(
        client,
        await client.createOrder({ identifiers: names.map((value) => ({ type: 'dns', value })) }),
      );
    } catch (e) {
      throw e instanceof AcmeRefusal ? e : asRefusal(e);
    }
  }

  /**
   * Walks the account's orders list (RFC 8555 §7.1.2.1, paged by Link rel="next") for an
   * order with exactly these identifiers that is still pending or ready.
   */
  async findOpenOrder(names: string[]): Promise<PlacedOrder | null> {
    const client = await this.acme();
    const api = (client as unknown as { api: RawApi }).api;
    const account = await api.apiRequest(client.getAccountUrl(), null, [200]);
    const want = [...names]
      .map((n) => n.toLowerCase())
      .sort()
      .join(',');
    for (let url: string | null = account.data.orders ?? null, pages = 0; url && pages < 100; pages++) {
      const page = await api.apiRequest(url, null, [200]);
      for (const orderUrl of (page.data.orders ?? []) as string[]) {
        const order = await client.getOrder({ url: orderUrl } as acme.Order);
        if ((order.status === 'pending' || order.status === 'ready') && sameNames(order, want)) {
          return this.describe(client, order);
        }
      }
      url = nextLink(page.headers.link);
    }
    return null;
  }

  private async describe(client: acme.Client, order: acme.Order): Promise<PlacedOrder> {
    const authzs = await client.getAuthorizations(order);
    const authorizations = await Promise.all(
      authzs.map(async (a) => {
        const challenge = a.challenges.find((c) => c.type === 'dns-01');
        if (!challenge) throw new AcmeRefusal(`no dns-01 challenge offered for ${a.identifier.value}`);
        const identifier = a.wildcard ? `*.${a.identifier.value}` : a.identifier.value;
        return {
          identifier,
          authzUrl: a.url,
          challengeUrl: challenge.url,
          value: await client.getChallengeKeyAuthorization(challenge),
        };
      }),
    );
    return { orderUrl: order.url, finalizeUrl: order.finalize, authorizations };
  }

  async answerChallenges(challenges: ChallengeRef[]): Promise<void> {
    const client = await this.acme();
    try {
      await Promise.all(
        challenges.map(async ({ authzUrl, challengeUrl }) => {
          // A challenge the CA is already processing (answered before a crash) is not answered twice.
          const [authz] = await client.getAuthorizations({ authorizations: [authzUrl] } as acme.Order);
          const current = authz.challenges.find((c) => c.url === challengeUrl);
          if (current && current.status !== 'pending') return;
          await client.completeChallenge({ url: challengeUrl } as Parameters<acme.Client['completeChallenge']>[0]);
        }),
      );
    } catch (e) {
      throw asRefusal(e);
    }
  }

  async authorization(authzUrl: string): Promise<AuthorizationOutcome> {
    const client = await this.acme();
    const [authz] = await client.getAuthorizations({ authorizations: [authzUrl] } as acme.Order);
    if (authz.status === 'valid') return { status: 'valid' };
    if (authz.status === 'pending') return { status: 'pending' };
    const failed =
      authz.challenges.find((c) => c.type === 'dns-01' && c.error) ?? authz.challenges.find((c) => c.error);
    return {
      status: 'invalid',
      error: `${authz.identifier.value}: ${authz.status}: ${problemText(failed?.error as ProblemLike)}`,
    };
  }

  async finalize(orderUrl: string, csrPem: string): Promise<string> {
    const client = await this.acme();
    try {
      let order = await client.getOrder({ url: orderUrl } as acme.Order);
      if (order.status === 'invalid')
        throw new AcmeRefusal(`order invalid: ${problemText(order.error as ProblemLike)}`);
      // Finalized already (before a crash): only the download is left.
      if (order.status === 'ready') order = await client.finalizeOrder(order, csrPem);
      return await client.getCertificate(order);
    } catch (e) {
      throw e instanceof AcmeRefusal ? e : asRefusal(e);
    }
  }

  async revoke(certificatePem: string): Promise<void> {
    const client = await this.acme();
    try {
      await client.revokeCertificate(certificatePem);
    } catch (e) {
      // Revoking twice (a retried delete) is not an error: the certificate is revoked.
      if (/already revoked/i.test((e as Error).message)) return;
      throw asRefusal(e);
    }
  }

  async createKeyAndCsr(names: string[]): Promise<{ privateKeyPem: string; csrPem: string }> {
    const key = await acme.crypto.createPrivateRsaKey(2048);
    const [, csr] = await acme.crypto.createCsr({ commonName: names[0], altNames: names }, key);
    return { privateKeyPem: key.toString(), csrPem: csr.toString() };
  }
}

const accountUrlOf = (client: acme.Client): string | null => {
  try {
    return client.getAccountUrl();
  } catch {
    return null;
  }
};

interface RawApi {
  apiRequest(
    url: string,
    payload: null,
    validStatusCodes: number[],
  ): Promise<{ data: any; headers: Record<string, string | undefined> }>;
}

/** An order's identifiers as the CA lists them: wildcards appear as `*.name` in the order. */
const sameNames = (order: acme.Order, want: string) =>
  order.identifiers
    .map((i) => i.value.toLowerCase())
    .sort()
    .join(',') === want;

const nextLink = (link: string | undefined): string | null => {
  const m = link
    ?.split(',')
    .map((l) => l.trim())
    .find((l) => /rel="?next"?/.test(l))
    ?.match(/<([^>]+)>/);
  return m ? m[1] : null;
};
