import { createHash } from 'node:crypto';
import { EventStreams } from '../../eventstore/event-streams';
import { EventStore } from '../../eventstore/event-store.port';
import { SecretBox } from '../../shared/crypto';

const ACCOUNT_KEY_PURPOSE = 'acme-account-key';
export const acmeAccountStream = (directoryUrl: string) =>
  `acme-account-${createHash('sha256').update(directoryUrl).digest('hex').slice(0, 16)}`;

/**
 * The service's ACME account key for one directory: created once, kept sealed in the
 * event store (`AcmeAccountKeyCreated`), so every worker and every restart uses the same
 * account. Two workers creating it at once race on a NO_STREAM append; the loser reads
 * the winner's key.
 */
export async function loadOrCreateAccountKey(
  store: EventStore,
  streams: EventStreams,
  box: SecretBox,
  directoryUrl: string,
  createKey: () => Promise<string>,
): Promise<string> {
  const stream = acmeAccountStream(directoryUrl);
  const read = async () => {
    const events = await store.readStream(stream);
    const sealed = events.find((e) => e.type === 'AcmeAccountKeyCreated')?.data.sealed_account_key as
      string | undefined;
    return sealed ? box.openString(sealed, ACCOUNT_KEY_PURPOSE) : null;
  };
  const existing = await read();
  if (existing) return existing;
  const key = await createKey();
  const event = {
    type: 'AcmeAccountKeyCreated',
    data: { directory_url: directoryUrl, sealed_account_key: box.seal(key, ACCOUNT_KEY_PURPOSE) },
  };
  if (await streams.reserve(stream, event, { actor: 'system:certificates' })) return key;
  const winner = await read();
  if (!winner) throw new Error('ACME account key stream exists without a key');
  return winner;
}
