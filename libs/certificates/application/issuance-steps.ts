import { Inject, Injectable } from '@nestjs/common';
import { X509Certificate } from 'node:crypto';
import { EventStreams } from '../../eventstore/event-streams';
import { CLOCK, Clock } from '../../shared/clock';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import { SECRET_BOX, SecretBox } from '../../shared/crypto';
import { LOGGER, Logger } from '../../shared/logger';
import { Metrics, METRICS } from '../../shared/metrics';
import { certificateDecider, CertificateState, IssuanceCommand } from '../domain/certificate.decider';
import { certificateStream, CERTIFICATE_KEY_PURPOSE, ChallengeRecord } from '../domain/certificate.events';
import {
  AUTHZ_POLL_ATTEMPTS,
  challengeSubname,
  IssuanceStep,
  nextIssuanceStep,
  nextPollDelayMs,
} from '../domain/issuance-plan';
import { ACME_PORT, AcmePort, AcmeRefusal, AcmeRetryLater } from './acme.port';
import { ChallengeRecords } from './challenge-records';

/** An outage (no answer from the CA, a store hiccup, the CA busy) is met this many times in a row before the attempt fails. */
const OUTAGE_RETRIES = 5;
/** The wait before the n-th retry after an outage: n seconds (cleanup, retried without end, at most a minute). */
const retryDelayMs = (tries: number) => Math.min(1000 * tries, 60_000);
/** A CA asking to come back later than this (a rate limit of hours) fails the attempt instead. */
const MAX_RETRY_AFTER_MS = 3_600_000;
/** RSA key generations running at once (the thread pool has 4 threads; the target machine 2 cores). */
const KEYGEN_LANES = 2;

type Step = Exclude<IssuanceStep, { kind: 'idle' }>;

/**
 * Takes one issuance step of one certificate, for `RunIssuanceStep` (sent by the
 * `certificate-issuance-steps` process manager only): loads the certificate's stream,
 * asks the pure planner (`nextIssuanceStep`) what to do, does it (ACME, DNS through the
 * zones context) and records its outcome as the stream's next event, which brings the
 * next command. Nothing here waits or retries on a timer: an authorization still
 * pending, an outage or the CA's Retry-After is recorded with the time to look again,
 * and the process manager holds that wait as a timer of its runtime.
 */
@Injectable()
export class IssuanceSteps {
  /** Keys generated ahead, by `<certificate>:<attempt>` (memory only; a restart makes a new one). */
  private readonly keygenLanes: Promise<unknown>[] = Array.from({ length: KEYGEN_LANES }, () => Promise.resolve());
  private readonly keygenQueued: number[] = Array.from({ length: KEYGEN_LANES }, () => 0);
  /** Attempts whose order this process requested (so no earlier order of theirs can exist at the CA). */
  private readonly requestedHere = new Set<string>();
  private readonly keys = new Map<string, Promise<{ privateKeyPem: string; csrPem: string }>>();
  private readonly orders;
  private readonly duration;
  /** Cleared when this process stops running the process manager (lease lost, shutdown): a chain of steps stops at the next one. */
  private running = true;

  constructor(
    private readonly streams: EventStreams,
    private readonly records: ChallengeRecords,
    @Inject(ACME_PORT) private readonly acme: AcmePort,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(METRICS) metrics: Metrics,
  ) {
    this.orders = metrics.counter('acme_orders_total', 'ACME orders by outcome (issued, failed, rate_limited)', [
      'outcome',
    ]);
    this.duration = metrics.histogram(
      'acme_issuance_duration_seconds',
      'Time from request (or renewal) to issued',
      [1, 2, 5, 10, 20, 30, 60, 120, 300],
    );
  }

  /**
   * The steps of a certificate whose stream is still at `revision` (a newer revision has
   * its own command, so this one does nothing): each outcome is recorded before the next
   * step, and the steps that can follow at once (request → order, answer → first poll,
   * authorized → key → finalize → cleanup) are taken in the same command. A wait (the
   * propagation delay, the next poll, a retry) ends the command: the process manager
   * holds it as a timer and sends the next one.
   */
  async run(id: string, revision: number): Promise<void> {
    // Not holding the lease (yet, or any more): fail, so the runtime keeps the command to send again.
    if (!this.running) throw new Error('this process does not run the issuance process manager');
    for (let expected = revision; this.running;) {
      const { state, revision: current } = await this.streams.loadState(certificateStream(id), certificateDecider);
      if (current !== expected) return;
      const step = nextIssuanceStep(state, this.clock.now().getTime(), this.config.acmePropagationDelayMs);
      if (step.kind === 'idle') {
        // A key generated ahead for an attempt that ended another way (deleted, failed) is dropped.
        for (const key of this.keys.keys()) if (key.startsWith(`${id}:`)) this.keys.delete(key);
        return;
      }
      // Just published: the process manager holds the propagation wait as a timer from that event.
      if (step.kind === 'wait_propagation' && expected !== revision) return;
      const command = await this.attempt(state, step);
      const recorded = await this.record(state, command);
      if (recorded === null || command.type === 'RecordStepDeferred' || command.type === 'RecordAuthorizationsPending')
        return;
      expected = recorded;
    }
  }

  /** Told by the wiring when this process takes or loses the process manager's lease, so a lost lease ends its chains of steps. */
  setRunning(running: boolean): void {
    this.running = running;
  }

  /** Does one step; a CA refusal (or the last of OUTAGE_RETRIES outages) fails the attempt, an outage defers the step. */
  private async attempt(state: CertificateState, step: Step): Promise<IssuanceCommand> {
    if (step.kind === 'wait_propagation') {
      // Woken before the wait's end (the delay was raised since it was scheduled): wait for the rest.
      return {
        type: 'RecordStepDeferred',
        attempt: step.attempt,
        step: step.kind,
        error: 'waiting for DNS propagation',
        retryAt: iso(step.until),
        at: this.now(),
      };
    }
    try {
      return await this.perform(state, step);
    } catch (e) {
      const error = (e as Error).message;
      const cleanup = step.kind === 'remove_records';
      if (e instanceof AcmeRefusal && !cleanup) return this.failed(step, error);
      const d = state.deferral;
      const tries = (d && d.attempt === step.attempt && d.step === step.kind ? d.tries : 0) + 1;
      if (!cleanup && tries >= OUTAGE_RETRIES) return this.failed(step, error);
      const retryAfter = e instanceof AcmeRetryLater ? e.retryAfterMs : null;
      if (retryAfter !== null && retryAfter > MAX_RETRY_AFTER_MS && !cleanup) return this.failed(step, error);
      const retryAt = this.clock.now().getTime() + (retryAfter ?? retryDelayMs(tries));
      this.logger.warn('certificate step will be retried', {
        certificate_id: state.id,
        step: step.kind,
        error,
        tries,
        retry_at: iso(retryAt),
      });
      return {
        type: 'RecordStepDeferred',
        attempt: step.attempt,
        step: step.kind,
        error,
        retryAt: iso(retryAt),
        at: this.now(),
      };
    }
  }

  private failed(step: Step, error: string): IssuanceCommand {
    return { type: 'RecordFailed', attempt: step.attempt, step: step.kind, error, at: this.now() };
  }

  private async perform(
    state: CertificateState,
    step: Exclude<Step, { kind: 'wait_propagation' }>,
  ): Promise<IssuanceCommand> {
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
        if (!this.config.acmeDirectoryUrl)
          throw new AcmeRefusal('ACME is not configured (ACME_DIRECTORY_URL is unset)');
        this.prefetchKey(state.id, attempt, step.names);
        // Requested by an earlier run that may have crashed after the CA created the order: adopt that one.
        const requestedHere = this.requestedHere.delete(`${state.id}:${attempt}`);
        const order =
          (requestedHere ? null : await this.acme.findOpenOrder(step.names)) ??
          (await this.acme.placeOrder(step.names));
        const challenges: ChallengeRecord[] = order.authorizations.map((a) => ({
          identifier: a.identifier,
          authz_url: a.authzUrl,
          challenge_url: a.challengeUrl,
          subname: challengeSubname(a.identifier, state.zone),
          value: a.value,
        }));
        return {
          type: 'RecordOrderPlaced',
          attempt,
          orderUrl: order.orderUrl,
          finalizeUrl: order.finalizeUrl,
          challenges,
          at: this.now(),
        };
      }
      case 'publish_records':
        await this.records.publish(zone, step.records, this.now());
        await this.records.waitUntilServed(state.zone, step.records);
        return { type: 'RecordRecordsPublished', attempt, at: this.now() };
      case 'answer_challenges':
        await this.acme.answerChallenges(
          step.records.map((r) => ({ authzUrl: r.authz_url, challengeUrl: r.challenge_url })),
        );
        return { type: 'RecordChallengesAnswered', attempt, at: this.now() };
      case 'poll_authorizations':
        return this.pollAuthorizations(attempt, step.records, step.polls);
      case 'generate_key': {
        const { privateKeyPem, csrPem } = await this.takeKey(state.id, attempt, step.names);
        return {
          type: 'RecordKeyGenerated',
          attempt,
          sealedPrivateKey: this.box.seal(privateKeyPem, CERTIFICATE_KEY_PURPOSE),
          csrPem,
          at: this.now(),
        };
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
    const next = this.keygenLanes[i]
      .then(() => this.acme.createKeyAndCsr(names))
      .finally(() => (this.keygenQueued[i] -= 1));
    this.keygenLanes[i] = next.catch(() => undefined);
    return next;
  }

  private takeKey(id: string, attempt: number, names: string[]) {
    const key = `${id}:${attempt}`;
    const pending = this.keys.get(key) ?? this.generateKey(names);
    this.keys.delete(key);
    return pending;
  }

  /** One look at the authorizations; still pending, the next look is recorded as due (the first soon, then every 2 s). */
  private async pollAuthorizations(
    attempt: number,
    records: ChallengeRecord[],
    polls: number,
  ): Promise<IssuanceCommand> {
    const urls = [...new Set(records.map((r) => r.authz_url))];
    const outcomes = await Promise.all(urls.map((u) => this.acme.authorization(u)));
    const invalid = outcomes.find((o) => o.status === 'invalid');
    if (invalid && invalid.status === 'invalid')
      return { type: 'RecordFailed', attempt, step: 'authorization', error: invalid.error, at: this.now() };
    if (outcomes.every((o) => o.status === 'valid')) return { type: 'RecordAuthorized', attempt, at: this.now() };
    const poll = polls + 1;
    if (poll >= AUTHZ_POLL_ATTEMPTS) {
      return {
        type: 'RecordFailed',
        attempt,
        step: 'authorization',
        error: `authorizations still pending after ${AUTHZ_POLL_ATTEMPTS} polls`,
        at: this.now(),
      };
    }
    return {
      type: 'RecordAuthorizationsPending',
      attempt,
      nextPollAt: iso(this.clock.now().getTime() + nextPollDelayMs(poll)),
      at: this.now(),
    };
  }

  /** Records a step's outcome; answers the stream's new revision, or null when nothing was recorded. */
  private async record(state: CertificateState, command: IssuanceCommand): Promise<number | null> {
    const result = await this.streams.handle(certificateStream(state.id), certificateDecider, command, {
      actor: 'system:certificates',
      account_id: state.accountId,
    });
    if (command.type === 'RecordFailed') this.keys.delete(`${state.id}:${command.attempt}`);
    if (result.events.length === 0) return null;
    if (command.type === 'RecordIssued') {
      this.orders.inc({ outcome: 'issued' });
      this.duration.observe((Date.parse(command.at) - Date.parse(state.attemptStartedAt)) / 1000);
      this.logger.info('certificate issued', {
        certificate_id: state.id,
        serial: command.serial,
        attempt: command.attempt,
      });
    } else if (command.type === 'RecordFailed') {
      this.orders.inc({ outcome: 'failed' });
      this.logger.warn('certificate issuance failed', {
        certificate_id: state.id,
        step: command.step,
        ca_error: command.error,
        attempt: command.attempt,
      });
    }
    return result.revision;
  }

  private now(): string {
    return this.clock.now().toISOString();
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

export const splitPem = (pem: string): string[] =>
  pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\s*/g)?.map((p) => p.trim() + '\n') ?? [];
