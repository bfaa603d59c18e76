/**
 * DNSSEC timings (docs/dnssec.md). Signatures are valid 14 days from an hour in the past
 * (clock skew of validators), and refreshed once they have 7 days left, so a zone survives
 * a week without its signer. Rollover waits follow RFC 7583 from the zone's TTLs.
 */
export const SIGNATURE_VALIDITY_SECONDS = 14 * 86_400;
export const INCEPTION_BACKDATE_SECONDS = 3_600;
export const REFRESH_BEFORE_EXPIRY_SECONDS = 7 * 86_400;
/** TTL of DNSKEY, CDS and CDNSKEY (the apex TTL the DNS role serves). */
export const KEY_TTL_SECONDS = 3_600;
/** The parent's DS TTL assumed when waiting for old DS records to leave caches (a day: most TLDs). */
export const PARENT_DS_TTL_SECONDS = 86_400;
/** Propagation delay to secondaries and the publish safety margin of RFC 7583. */
export const PROPAGATION_SECONDS = 3_600;
/** The parent's DS is looked at this often while a rollover or unsigning waits for it. */
export const DS_CHECK_INTERVAL_SECONDS = 3_600;

export function signatureWindow(at: Date): { inception: number; expiration: number } {
  const now = Math.floor(at.getTime() / 1000);
  return { inception: now - INCEPTION_BACKDATE_SECONDS, expiration: now + SIGNATURE_VALIDITY_SECONDS };
}

/**
 * The process manager's waits. Defaults follow RFC 7583 from the TTLs above; the
 * DNSSEC_*_SECONDS settings shorten them for tests (a "fast clock" whose validators cache
 * nothing), never for production zones.
 */
export function dnssecTimings(config: {
  dnssecPublishWaitSeconds: number | null;
  dnssecRetireWaitSeconds: number | null;
  dnssecDsCheckSeconds: number | null;
}) {
  return {
    refreshBeforeSeconds: REFRESH_BEFORE_EXPIRY_SECONDS,
    publishWaitSeconds: config.dnssecPublishWaitSeconds ?? KEY_TTL_SECONDS + PROPAGATION_SECONDS,
    retireWaitSeconds: config.dnssecRetireWaitSeconds ?? PARENT_DS_TTL_SECONDS + PROPAGATION_SECONDS,
    dsCheckSeconds: config.dnssecDsCheckSeconds ?? DS_CHECK_INTERVAL_SECONDS,
  };
}
