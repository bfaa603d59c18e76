import { BimiSettings, DkimKey, DmarcSettings, MtaStsSettings, SpfSettings, TlsRptSettings } from './settings';
import { spfRecord } from './spf';

/**
 * The TXT records a zone's email-authentication settings publish (contract §7), as
 * TXT presentation text: quoted character-strings of at most 255 bytes each.
 */
export interface GeneratedTxt {
  /** Owner relative to the zone ("" for the apex). */
  subname: string;
  /** Version tag that marks the record as ours (the zones context replaces only those). */
  family: string;
  /** The record text as a receiver reads it (character-strings joined). */
  value: string;
}

export const DMARC_FAMILY = 'v=DMARC1';
export const SPF_FAMILY = 'v=spf1';
export const DKIM_FAMILY = 'v=DKIM1';
export const MTA_STS_FAMILY = 'v=STSv1';
export const TLS_RPT_FAMILY = 'v=TLSRPTv1';
export const BIMI_FAMILY = 'v=BIMI1';

/**
 * `_dmarc` read the same way by RFC 7489 and RFC 9989 (DMARCbis) receivers. DMARCbis
 * dropped `pct` for the `t` (testing) flag: `t=y` asks receivers to apply the next
 * lower policy, which is what an RFC 7489 receiver does with the messages `pct` leaves
 * out. So a full policy (percentage 100) carries neither tag (both defaults mean
 * "apply p to everything"), and a partial one carries `pct=N` for RFC 7489 receivers
 * plus `t=y` for DMARCbis ones, which cannot sample and so stay one step lower until
 * the stage is full. `p=none` has nothing to sample or test and carries neither.
 */
export function dmarcRecord(s: DmarcSettings): string {
  const tags = ['v=DMARC1', `p=${s.policy}`];
  if (s.subdomain_policy) tags.push(`sp=${s.subdomain_policy}`);
  if (s.policy !== 'none' && s.percentage < 100) tags.push(`pct=${s.percentage}`, 't=y');
  if (s.rua.length) tags.push(`rua=${s.rua.join(',')}`);
  if (s.ruf.length) tags.push(`ruf=${s.ruf.join(',')}`);
  if (s.adkim !== 'r') tags.push(`adkim=${s.adkim}`);
  if (s.aspf !== 'r') tags.push(`aspf=${s.aspf}`);
  if (s.fo !== '0') tags.push(`fo=${s.fo}`);
  return tags.join('; ');
}

/** RFC 6376 §3.6.1; Ed25519 keys publish the raw 32-byte key (RFC 8463 §4.2), RSA keys the SPKI DER. */
export function dkimRecord(k: DkimKey): string {
  if (k.key_type === 'ed25519') {
    const raw = Buffer.from(k.public_key, 'base64').subarray(-32).toString('base64');
    return `v=DKIM1; k=ed25519; p=${raw}`;
  }
  return `v=DKIM1; k=rsa; p=${k.public_key}`;
}

export const mtaStsRecord = (s: MtaStsSettings) => `v=STSv1; id=${s.id}`;
export const tlsRptRecord = (s: TlsRptSettings) => `v=TLSRPTv1; rua=${s.rua.join(',')}`;
export const bimiRecord = (s: BimiSettings) => `v=BIMI1; l=${s.logo_url}` + (s.vmc_url ? `; a=${s.vmc_url}` : '');

/** RFC 8461 §3.2 policy file; CRLF line ends. */
export function mtaStsPolicyFile(s: MtaStsSettings): string {
  return (
    ['version: STSv1', `mode: ${s.mode}`, ...s.mx.map((h) => `mx: ${h}`), `max_age: ${s.max_age}`].join('\r\n') + '\r\n'
  );
}

export interface ZoneSettings {
  dmarc: DmarcSettings | null;
  spf: SpfSettings | null;
  dkim: DkimKey[];
  mtaSts: MtaStsSettings | null;
  tlsRpt: TlsRptSettings | null;
  bimi: BimiSettings | null;
}

/** Every record the settings publish. */
export function generatedRecords(s: ZoneSettings): GeneratedTxt[] {
  const out: GeneratedTxt[] = [];
  if (s.dmarc) out.push({ subname: '_dmarc', family: DMARC_FAMILY, value: dmarcRecord(s.dmarc) });
  if (s.spf) out.push({ subname: '', family: SPF_FAMILY, value: spfRecord(s.spf) });
  for (const k of s.dkim) out.push({ subname: `${k.selector}._domainkey`, family: DKIM_FAMILY, value: dkimRecord(k) });
  if (s.mtaSts) out.push({ subname: '_mta-sts', family: MTA_STS_FAMILY, value: mtaStsRecord(s.mtaSts) });
  if (s.tlsRpt) out.push({ subname: '_smtp._tls', family: TLS_RPT_FAMILY, value: tlsRptRecord(s.tlsRpt) });
  if (s.bimi) out.push({ subname: 'default._bimi', family: BIMI_FAMILY, value: bimiRecord(s.bimi) });
  return out;
}

/** TXT presentation text: the value split into quoted strings of at most 255 bytes (RFC 1035 §3.3.14). */
export function txtPresentation(value: string): string {
  const bytes = Buffer.from(value, 'utf8');
  const parts: string[] = [];
  for (let at = 0; at < bytes.length; at += 255) {
    parts.push(
      `"${bytes
        .subarray(at, at + 255)
        .toString('latin1')
        .replace(/["\\]/g, (c) => `\\${c}`)}"`,
    );
  }
  return parts.join(' ');
}
