import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventStreams } from '../../eventstore/event-streams';
import { SqliteEventStore } from '../../eventstore/sqlite/sqlite-event-store';
import { ManualClock } from '../../shared/clock';
import { AppConfig } from '../../shared/config';
import { SecretBox } from '../../shared/crypto';
import { certificateDecider } from '../domain/certificate.decider';
import { CertificateEvent, certificateStream } from '../domain/certificate.events';
import { AcmePort, AcmeRefusal, AcmeRetryLater, PlacedOrder } from './acme.port';
import { ChallengeRecords } from './challenge-records';
import { IssuanceSteps } from './issuance-steps';
import { specMetrics } from '../../shared/testing/spec-metrics';

const newMetrics = specMetrics();

/**
 * One step per command, no sleeps: a CA that is down, busy or rate limiting, or
 * authorizations still pending, are recorded with the time to look again (the process
 * manager's timer); the attempt fails after the fifth outage in a row, or at once on a
 * refusal or a Retry-After beyond an hour. On a real SQLite event store; the CA is a stub
 * here because pebble cannot be made to answer 429 or to go down on cue.
 */
describe('IssuanceSteps: outcomes and waits recorded, never slept on', () => {
  const ID = 'c0ffee00-0000-4000-8000-0000000000aa';
  const T0 = '2026-01-01T00:00:00.000Z';
  let dir: string;
  let store: SqliteEventStore;
  let streams: EventStreams;
  let clock: ManualClock;
  let acme: { findOpenOrder: jest.Mock; placeOrder: jest.Mock; authorization: jest.Mock };
  let steps: IssuanceSteps;

  const requested: CertificateEvent = {
    type: 'CertificateRequested',
    data: {
      certificate_id: ID,
      account_id: 1,
      zone_id: 'z1',
      zone: 'example.com',
      domain: 'example.com',
      sans: [],
      names: ['example.com'],
      is_wildcard: false,
      auto_renew: false,
      at: T0,
    },
  };
  const orderRequested: CertificateEvent = {
    type: 'AcmeOrderRequested',
    data: { certificate_id: ID, attempt: 1, at: T0 },
  };
  const events = async () =>
    (await store.readStream(certificateStream(ID))).map((e) => ({
      type: e.type,
      data: e.data as Record<string, unknown>,
    }));
  const revision = async () => (await streams.loadState(certificateStream(ID), certificateDecider)).revision;
  const given = (history: CertificateEvent[]) => store.appendToStream(certificateStream(ID), history, 'no_stream');

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'issuance-steps-'));
    store = new SqliteEventStore({ file: join(dir, 'events.db'), pollIntervalMs: 10 });
    streams = new EventStreams(store);
    clock = new ManualClock(new Date(T0));
    acme = { findOpenOrder: jest.fn(), placeOrder: jest.fn(), authorization: jest.fn() };
    const config = { acmePropagationDelayMs: 0, acmeDirectoryUrl: 'https://ca.test/dir' } as AppConfig;
    const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
    steps = new IssuanceSteps(
      streams,
      {} as ChallengeRecords,
      acme as unknown as AcmePort,
      {} as SecretBox,
      clock,
      config,
      logger,
      newMetrics(),
    );
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a busy CA (429 with Retry-After) defers the step to its Retry-After; a newer revision makes the old command do nothing', async () => {
    await given([requested, orderRequested]);
    acme.findOpenOrder.mockRejectedValue(new AcmeRetryLater('HTTP 429: rateLimited', 7000));
    await steps.run(ID, 1);
    const last = (await events()).at(-1)!;
    expect(last).toEqual({
      type: 'IssuanceStepDeferred',
      data: {
        certificate_id: ID,
        attempt: 1,
        step: 'place_order',
        tries: 1,
        error: 'HTTP 429: rateLimited',
        retry_at: '2026-01-01T00:00:07.000Z',
        at: T0,
      },
    });
    await steps.run(ID, 1); // decided on revision 1; the stream is at 2 now
    expect(await events()).toHaveLength(3);
  });

  it('an outage is retried after tries seconds, and the fifth in a row fails the attempt with its message', async () => {
    await given([requested, orderRequested]);
    acme.findOpenOrder.mockRejectedValue(new Error('connect ECONNREFUSED'));
    for (let tries = 1; tries <= 4; tries++) {
      await steps.run(ID, await revision());
      const last = (await events()).at(-1)!;
      expect([last.type, last.data.tries, last.data.retry_at]).toEqual([
        'IssuanceStepDeferred',
        tries,
        new Date(Date.parse(T0) + tries * 1000).toISOString(),
      ]);
    }
    await steps.run(ID, await revision());
    expect((await events()).at(-1)).toEqual({
      type: 'IssuanceFailed',
      data: { certificate_id: ID, attempt: 1, step: 'place_order', error: 'connect ECONNREFUSED', at: T0 },
    });
  });

  it('a Retry-After beyond an hour fails the attempt at once', async () => {
    await given([requested, orderRequested]);
    acme.findOpenOrder.mockRejectedValue(new AcmeRetryLater('HTTP 429: rateLimited for a week', 7 * 86_400_000));
    await steps.run(ID, 1);
    expect((await events()).at(-1)).toMatchObject({
      type: 'IssuanceFailed',
      data: { step: 'place_order', error: 'HTTP 429: rateLimited for a week' },
    });
    expect(acme.placeOrder).not.toHaveBeenCalled();
  });

  it('one command records the order request and goes on to place it (no wait between); a refusal fails the attempt at once', async () => {
    await given([requested]);
    acme.placeOrder.mockRejectedValue(new AcmeRefusal('urn:ietf:params:acme:error:rejectedIdentifier: no'));
    await steps.run(ID, 0);
    expect((await events()).map((e) => e.type)).toEqual([
      'CertificateRequested',
      'AcmeOrderRequested',
      'IssuanceFailed',
    ]);
    // Requested by this very command: no earlier order of it can exist at the CA, so none is looked for.
    expect(acme.findOpenOrder).not.toHaveBeenCalled();
  });

  it('not running the process manager (lease lost): the command fails, so the runtime keeps it, and nothing is done', async () => {
    await given([requested]);
    steps.setRunning(false);
    await expect(steps.run(ID, 0)).rejects.toThrow(/does not run/);
    expect(await events()).toHaveLength(1);
    steps.setRunning(true);
    acme.placeOrder.mockRejectedValue(new AcmeRefusal('no'));
    await steps.run(ID, 0);
    expect(await events()).toHaveLength(3);
  });

  it('authorizations still pending: recorded with the next poll 250 ms on, then 2 s on; the command ends there', async () => {
    const order: PlacedOrder = {
      orderUrl: 'https://ca.test/order/1',
      finalizeUrl: 'https://ca.test/finalize/1',
      authorizations: [
        {
          identifier: 'example.com',
          authzUrl: 'https://ca.test/authz/1',
          challengeUrl: 'https://ca.test/chall/1',
          value: 'v',
        },
      ],
    };
    await given([
      requested,
      orderRequested,
      {
        type: 'AcmeOrderPlaced',
        data: {
          certificate_id: ID,
          attempt: 1,
          order_url: order.orderUrl,
          finalize_url: order.finalizeUrl,
          challenges: [
            {
              identifier: 'example.com',
              authz_url: 'https://ca.test/authz/1',
              challenge_url: 'https://ca.test/chall/1',
              subname: '_acme-challenge',
              value: 'v',
            },
          ],
          at: T0,
        },
      },
      { type: 'ChallengeRecordsPublished', data: { certificate_id: ID, attempt: 1, at: T0 } },
      { type: 'ChallengesAnswered', data: { certificate_id: ID, attempt: 1, at: T0 } },
    ]);
    acme.authorization.mockResolvedValue({ status: 'pending' });
    await steps.run(ID, 4);
    await steps.run(ID, 5);
    const pending = (await events())
      .filter((e) => e.type === 'AuthorizationsPending')
      .map((e) => [e.data.poll, e.data.next_poll_at]);
    expect(pending).toEqual([
      [1, '2026-01-01T00:00:00.250Z'],
      [2, '2026-01-01T00:00:02.000Z'],
    ]);
    expect(acme.authorization).toHaveBeenCalledTimes(2);
  });
});
