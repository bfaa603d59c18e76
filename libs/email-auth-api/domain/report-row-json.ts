import { AggregateRecord } from '../../dmarc-reports/domain/aggregate-report';

/**
 * One aggregate-report row as the email-auth API sends it, in three pieces so the body of
 * a row page is built by concatenating strings instead of stringifying 100 objects:
 *
 *   {"index":N,"source_ip":IP,"country":  +  NETWORK  +  TAIL
 *
 * - TAIL (`,"count":…}`): everything the report itself says about the row. Rows never
 *   change once ingested, so the row-block read model stores it ready-made.
 * - NETWORK (`"US","network":{"asn":…,"org":…}`): looked up at read time from the shipped
 *   IP data, so the read model stays a pure function of the events (see SenderIdentity).
 *
 * Field order and values are those of the row object the API has always returned
 * (`rowObject` below spells it out; the spec checks the pieces against it).
 */
export interface RowNetwork {
  country: string;
  asn: string;
  as_org: string;
}

/** The row as an object, in the API's field order: the reference the string pieces are checked against. */
export function rowObject(index: number, record: AggregateRecord, net: RowNetwork) {
  return {
    index,
    source_ip: record.source_ip,
    country: net.country,
    network: { asn: net.asn, org: net.as_org },
    ...rowTailObject(record),
  };
}

/** The report's part of a row (from `count` on), with absent optional fields as the API shows them. */
function rowTailObject(r: AggregateRecord) {
  return {
    count: r.count,
    disposition: r.disposition,
    dkim: r.dkim,
    spf: r.spf,
    header_from: r.header_from,
    envelope_from: r.envelope_from ?? null,
    reasons: r.reasons ?? [],
    dkim_results: r.dkim_results.map((d) => ({ domain: d.domain, selector: d.selector ?? null, result: d.result })),
    spf_results: r.spf_results.map((d) => ({ domain: d.domain, scope: d.scope ?? null, result: d.result })),
  };
}

/** TAIL: `,"count":…}` — the row's JSON from its `count` field to its closing brace. */
export const rowTailJson = (record: AggregateRecord): string => ',' + JSON.stringify(rowTailObject(record)).slice(1);

/** NETWORK: the value of `country` and the `network` member that follows it. */
export const rowNetworkJson = (net: RowNetwork): string =>
  `${JSON.stringify(net.country)},"network":${JSON.stringify({ asn: net.asn, org: net.as_org })}`;

/** A whole row's JSON from its pieces (the source IP already as a JSON string). */
export const rowJson = (index: number, sourceIpJson: string, networkJson: string, tailJson: string): string =>
  `{"index":${index},"source_ip":${sourceIpJson},"country":${networkJson}${tailJson}`;

/** The address a JSON string holds (the parse skipped when it has no escapes, as addresses never do). */
export const sourceIpOf = (sourceIpJson: string): string =>
  sourceIpJson.includes('\\') ? (JSON.parse(sourceIpJson) as string) : sourceIpJson.slice(1, -1);
