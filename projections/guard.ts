import { Collection, Doc, isDuplicateKeyError, Update } from '../libs/readstore/read-store.port';

/** A write's result dropped: a projection's apply resolves with nothing. */
export const settled = (): void => undefined;

/** The upsert collided with the existing document: it was already at or past this event. */
function unlessDuplicate(e: unknown): void {
  if (!isDuplicateKeyError(e)) throw e;
}

/**
 * Applies an update to one document at most once per event: the document remembers
 * the global position of the last event applied (`_pos`), so redelivery after a crash
 * (at-least-once subscriptions) changes nothing. Not an async function: a projection that
 * returns this promise as its apply's costs one promise and microtask turn per event, not
 * three (every DDNS update passes here twice; decision 0126).
 */
export function guardedUpdate<T extends Doc>(
  collection: Collection<T>,
  id: T['_id'],
  position: number,
  update: Update,
  options: { upsert?: boolean } = { upsert: true },
): Promise<void> {
  // Not `{ ...update.$set, _pos: position }`: on Node 20 an object spread followed by a
  // property the source lacks takes V8's slow path (~1 µs, a tenth of a projection's
  // per-event budget); Object.assign copies do not.
  const $set = Object.assign({}, update.$set);
  $set._pos = position;
  const withPos: Update = Object.assign({}, update, { $set });
  try {
    return collection
      .updateOne({ _id: id, $or: [{ _pos: { $lt: position } }, { _pos: { $exists: false } }] }, withPos, {
        upsert: options.upsert ?? true,
      })
      .then(settled, unlessDuplicate);
  } catch (e) {
    return Promise.reject(e as Error);
  }
}
