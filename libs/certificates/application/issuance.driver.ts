import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { X509Certificate } from 'node:crypto';
import { ProcessManagerRuntime } from '../../consumers/process-manager-runtime';
import { WorkerProcessManagers } from '../../consumers/worker-process-manager';
import { EventStreams } from '../../eventstore/event-streams';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { CLOCK, Clock } from '../../shared/clock';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import { SECRET_BOX, SecretBox } from '../../shared/crypto';
import { LOGGER, Logger } from '../../shared/logger';
import { Metrics, METRICS } from '../../shared/metrics';
import { certificateDecider, CertificateState, IssuanceCommand } from '../domain/certificate.decider';
import { certificateStream, CERTIFICATE_KEY_PURPOSE, ChallengeRecord } from '../domain/certificate.events';
import { DriveIssuance, issuanceStartProcess, IssuanceStartState, IssuanceWork } from '../domain/issuance-start.process-manager';
import { AUTHZ_POLL_ATTEMPTS, AUTHZ_POLL_INTERVAL_MS, challengeSubname, IssuanceStep, nextIssuanceStep } from '../domain/issuance.process';
import { ACME_PORT, AcmePort, AcmeRefusal } from './acme.port';
import { CERTIFICATES } from '../../../projections/certificates.projection';
import { ChallengeRecords } from './challenge-records';

/** A certificate whose process stopped on an unexpected error (a store hiccup) is driven again after this long. */
const RETRY_AFTER_ERROR_MS = 30_000;
/** An outage (no answer from the CA, a store hiccup) is retried this many times before the attempt fails. */
const OUTAGE_RETRIES = 5;
/** RSA key generations running at once (the thread pool has 4 threads; the target machine 2 cores). */
const KEYGEN_LANES = 2;

class Stopped extends Error {}

/**
 * Runs the issuance process manager: for one certificate, loads its stream, asks the
 * pure `nextIssuanceStep` what to do, does it (ACME, DNS through the zones context) and
 * records the outcome on the stream, until nothing is left to do. The state lives in the
 * stream only. It runs in the one worker holding the `certificate-issuance` process
 * manager's lease (../domain/issuance-start.process-manager.ts), which sends it every
 * certificate requested, renewed or deleted, whichever process appended that; on taking
 * the lease (a start, or a takeover after a crash) it resumes every certificate the read
 * model shows with work left, at the step after its last event.
 */
@Injectable()
export class IssuanceDriver implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private readonly retries = new Set<NodeJS.Timeout>();
  private runtime: ProcessManagerRuntime<IssuanceStartState, IssuanceWork, DriveIssuance> | null = null;
  /** Set while this process holds the issuance lease: only then does it drive certificates. */
  private holding = false;
  private stopping = false;
  private readonly wakeups = new Set<() => void>();
  /** Keys generated ahead, by `<certificate>:<attempt>` (memory only; a restart makes a new one). */
  private readonly keygenLanes: Promise<unknown>[] = Array.from({ length: KEYGEN_LANES }, () => Promise.resolve());
  private readonly keygenQueued: number[] = Array.from({ length: KEYGEN_LANES }, () => 0);
  /** Attempts whose order this process requested (so no earlier order of theirs can exist at the CA). */
  private readonly requestedHere = new Set<string>();
  private readonly keys = new Map<string, Promise<{ privateKeyPem: string; csrPem: string }>>();
  private readonly orders;
  private readonly duration;

  constructor(
    private readonly streams: EventStreams,
    private readonly projections: ProjectionEngine,
    private readonly records: ChallengeRecords,
    @Inject(ACME_PORT) private readonly acme: AcmePort,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly processManagers: WorkerProcessManagers,
    @Inject(METRICS) metrics: Metrics,
  ) {
    this.orders = metrics.counter('acme_orders_total', 'ACME orders by outcome (issued, failed, rate_limited)', ['outcome']);
    this.duration = metrics.histogram('acme_issuance_duration_seconds', 'Time from request (or renewal) to issued', [1, 2, 5, 10, 20, 30, 60, 120, 300]);
  }

  get enabled(): boolean {
    return this.holding;
  }

  async onApplicationBootstrap(): Promise<void> {
    this.runtime = await this.processManagers.start(issuanceStartProcess, async (command) => this.kick(command.certificateId), {
      onRunning: async (running) => {
        this.holding = running;
        if (running) await this.resumeAll().catch((e) => this.logger.error('certificate resume failed', { error: String(e) }));
        else {
          // Lost the lease: the next holder resumes these certificates; stop before it starts them.
          for (const wake of this.wakeups) wake();
          await Promise.allSettled([...this.running.values()]);
        }
      },
    });
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    for (const t of this.retries) clearTimeout(t);
    await this.runtime?.stop();
    for (const wake of this.wakeups) wake();
    await Promise.allSettled([...this.running.values()]);
  }

  /** Starts (or keeps) the process of one certificate, when this process holds the issuance lease. */
  kick(certificateId: string): void {
    if (!this.holding || this.stopping) return;
    // Running already: it may be past its last look at the stream, so it runs once more after.
    if (this.running.has(certificateId)) {
      this.again.add(certificateId);
      return;
    }
    const run = this.drive(certificateId)
      .catch((e) => {
        if (e instanceof Stopped) return;
        this.logger.error('certificate process stopped on an error', { certificate_id: certificateId, error: String(e) });
        const retry = setTimeout(() => {
          this.retries.delete(retry);
          this.kick(certificateId);
        }, RETRY_AFTER_ERROR_MS);
        retry.unref();
        this.retries.add(retry);
      })
      .finally(() => {
        this.running.delete(certificateId);
        if (this.again.delete(certificateId)) this.kick(certificateId);
      });
    this.running.set(certificateId, run);
  }

  /** Every certificate with work left, from the read model: in flight, or with challenge records still owed. */
  async resumeAll(): Promise<number> {
    const docs = await this.projections
      .readModel(CERTIFICATES)
      .find({ $or: [{ status: { $in: ['pending', 'validating'] } }, { cleanup_pending: true }] }, { projection: { _id: 1 } });
    for (const d of docs) this.kick(d._id);
    return docs.length;
  }

  private async drive(id: string): Promise<void> {
    const stream = certificateStream(id);
    for (;;) {
      if (this.stopping || !this.holding) throw new Stopped();
      const { state } = await this.streams.loadState(stream, certificateDecider);
      const step = nextIssuanceStep(state, this.clock.now().getTime(), this.config.acmePropagationDelayMs);
      if (step.kind === 'idle') {
        // A key generated ahead for an attempt that ended another way (deleted, failed) is dropped.
        for (const key of this.keys.keys()) if (key.startsWith(`${id}:`)) this.keys.delete(key);
        return;
      }
      const command = await this.attempt(state, step);
      if (command) await this.record(state, command);
    }
  }

  /** Does one step; an outage is retried, a CA refusal (or exhausted retries) fails the attempt. */
  private async attempt(state: CertificateState, step: Exclude<IssuanceStep, { kind: 'idle' }>): Promise<IssuanceCommand | null> {
    for (let tries = 1; ; tries++) {
      try {
        return await this.perform(state, step);
      } catch (e) {
        if (this.stopping || !this.holding) throw new Stopped();
        const refused = e instanceof AcmeRefusal;
        if (step.kind === 'remove_records' || (!refused && tries < OUTAGE_RETRIES)) {
          this.logger.warn('certificate step will be retried', { certificate_id: state.id, step: step.kind, error: (e as Error).message });
          await this.sleepUntil(Date.now() + 1000 * tries);
          continue;
        }
        return { type: 'RecordFailed', attempt: step.attempt, step: step.kind, error: (e as Error).message, at: this.now() };
      }
    }
  }

  private async perform(state: CertificateState, step: Exclude<IssuanceStep, { kind: 'idle' }>): Promise<IssuanceCommand | null> {
    const zone = { zoneId: state.zoneId, accountId: state.accountId, certificateId: state.id };
    const attempt = step.attempt;
    switch (step.kind) {
      case 'remove_records':
        await this.records.remove(zone, step.records, this.now());
        return { type: 'RecordRecordsRemoved', attempt, at: this.now() };
      case 'request_order':
        this.requestedHere.add(`${state.id}:${attempt}`);
        return { type: 'RecordOrderRequested', attempt, at: this.now() };
      case 'place_order': {
        if (!this.config.acmeDirectoryUrl) throw new AcmeRefusal('ACME is not configured (ACME_DIRECTORY_URL is unset)');
        this.prefetchKey(state.id, attempt, step.names);
        // Requested by an earlier run that may have crashed after the CA created the order: adopt that one.
        const requestedHere = this.requestedHere.delete(`${state.id}:${attempt}`);
        const order = (requestedHere ? null : await this.acme.findOpenOrder(step.names)) ?? (await this.acme.placeOrder(step.names));
        const challenges: ChallengeRecord[] = order.authorizations.map((a) => ({
          identifier: a.identifier,
          authz_url: a.authzUrl,
          challenge_url: a.challengeUrl,
          subname: challengeSubname(a.identifier, state.zone),
          value: a.value,
        }));
        return { type: 'RecordOrderPlaced', attempt, orderUrl: order.orderUrl, finalizeUrl: order.finalizeUrl, challenges, at: this.now() };
      }
      case 'publish_records':
        await this.records.publish(zone, step.records, this.now());
        await this.records.waitUntilServed(state.zone, step.records);
        return { type: 'RecordRecordsPublished', attempt, at: this.now() };
      case 'wait_propagation':
        await this.sleepUntil(Date.now() + Math.max(0, step.until - this.clock.now().getTime()));
        return null;
      case 'answer_challenges':
        await this.acme.answerChallenges(step.records.map((r) => ({ authzUrl: r.authz_url, challengeUrl: r.challenge_url })));
        return { type: 'RecordChallengesAnswered', attempt, at: this.now() };
      case 'poll_authorizations':
        return this.pollAuthorizations(attempt, step.records);
      case 'generate_key': {
        const { privateKeyPem, csrPem } = await this.takeKey(state.id, attempt, step.names);
        return { type: 'RecordKeyGenerated', attempt, sealedPrivateKey: this.box.seal(privateKeyPem, CERTIFICATE_KEY_PURPOSE), csrPem, at: this.now() };
      }
      case 'finalize': {
        const fullChain = await this.acme.finalize(step.orderUrl, step.csrPem);
        const [leaf, ...chain] = splitPem(fullChain);
        if (!leaf) throw new AcmeRefusal('the CA returned no certificate');
        const x509 = new X509Certificate(leaf);
        return {
          type: 'RecordIssued',
          attempt,
          serial: x509.serialNumber.toLowerCase(),
          certificatePem: leaf,
          chainPem: chain.join(''),
          issuedAt: new Date(x509.validFrom).toISOString(),
          expiresAt: new Date(x509.validTo).toISOString(),
          at: this.now(),
        };
      }
    }
  }

  /**
   * RSA 2048 generation is the CPU-heavy part of an issuance (a third of a second on a
   * loaded core): it starts when the order does and runs on the thread pool while the
   * challenge is published and validated, instead of after it.
   */
  private prefetchKey(id: string, attempt: number, names: string[]): void {
    const key = `${id}:${attempt}`;
    if (this.keys.has(key)) return;
    const pending = this.generateKey(names);
    pending.catch(() => this.keys.delete(key));
    this.keys.set(key, pending);
  }

  /**
   * At most KEYGEN_LANES key generations at a time: a burst of orders would otherwise put
   * every thread-pool thread on RSA at once and starve the event loop (API answers, ACME
   * requests, appends) on a small machine. Keys come out in order, so the first orders
   * finish first.
   */
  private generateKey(names: string[]) {
    const i = this.keygenQueued.indexOf(Math.min(...this.keygenQueued));
    this.keygenQueued[i] += 1;
    const next = this.keygenLanes[i].then(() => this.acme.createKeyAndCsr(names)).finally(() => (this.keygenQueued[i] -= 1));
    this.keygenLanes[i] = next.catch(() => undefined);
    return next;
  }

  private takeKey(id: string, attempt: number, names: string[]) {
    const key = `${id}:${attempt}`;
    const pending = this.keys.get(key) ?? this.generateKey(names);
    this.keys.delete(key);
    return pending;
  }

  private async pollAuthorizations(attempt: number, records: ChallengeRecord[]): Promise<IssuanceCommand> {
    const urls = [...new Set(records.map((r) => r.authz_url))];
    for (let i = 0; i < AUTHZ_POLL_ATTEMPTS; i++) {
      const outcomes = await Promise.all(urls.map((u) => this.acme.authorization(u)));
      const invalid = outcomes.find((o) => o.status === 'invalid');
      if (invalid && invalid.status === 'invalid') return { type: 'RecordFailed', attempt, step: 'authorization', error: invalid.error, at: this.now() };
      if (outcomes.every((o) => o.status === 'valid')) return { type: 'RecordAuthorized', attempt, at: this.now() };
      // The first look comes soon after answering; the seed's 2-second interval applies after it.
      await this.sleepUntil(Date.now() + (i === 0 ? 250 : AUTHZ_POLL_INTERVAL_MS));
    }
    return { type: 'RecordFailed', attempt, step: 'authorization', error: `authorizations still pending after ${AUTHZ_POLL_ATTEMPTS} polls`, at: this.now() };
  }

  private async record(state: CertificateState, command: IssuanceCommand): Promise<void> {
    const result = await this.streams.handle(certificateStream(state.id), certificateDecider, command, {
      actor: 'system:certificates',
      account_id: state.accountId,
    });
    if (command.type === 'RecordFailed') this.keys.delete(`${state.id}:${command.attempt}`);
    if (result.events.length === 0) return;
    if (command.type === 'RecordIssued') {
      this.orders.inc({ outcome: 'issued' });
      this.duration.observe((Date.parse(command.at) - Date.parse(state.attemptStartedAt)) / 1000);
      this.logger.info('certificate issued', { certificate_id: state.id, serial: command.serial, attempt: command.attempt });
    } else if (command.type === 'RecordFailed') {
      this.orders.inc({ outcome: 'failed' });
      this.logger.warn('certificate issuance failed', { certificate_id: state.id, step: command.step, ca_error: command.error, attempt: command.attempt });
    }
  }

  private sleepUntil(at: number): Promise<void> {
    const ms = at - Date.now();
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakeups.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.wakeups.add(wake);
    });
  }

  private now(): string {
    return this.clock.now().toISOString();
  }
}

export const splitPem = (pem: string): string[] => pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\s*/g)?.map((p) => p.trim() + '\n') ?? [];
