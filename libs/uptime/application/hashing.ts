/**
 * A 32-bit integer mix (MurmurHash3's finalizer) of a domain id with a seed. Domain ids
 * are sequential, so they are mixed before being reduced modulo anything: a plain
 * `id mod n` would put neighbouring domains (often one account's) in neighbouring slots.
 * Different seeds give independent hashes, so the worker split and the phase within the
 * interval do not correlate.
 */
export function mix32(id: number, seed: number): number {
  let h = (id ^ seed ^ Math.floor(id / 0x1_0000_0000)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85eb_ca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2_ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export const PHASE_SEED = 0x9e37_79b9;
export const PARTITION_SEED = 0x7f4a_7c15;

/** Which share of the domains one worker checks: `mix32(id) mod count === index`. */
export interface Partition {
  index: number;
  count: number;
}

export const ownsDomain = (p: Partition, domainId: number): boolean =>
  mix32(domainId, PARTITION_SEED) % p.count === p.index;
