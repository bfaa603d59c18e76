export {
  parseRecord,
  formatRecord,
  isSupportedType,
  SUPPORTED_TYPES,
  type SupportedType,
  type RecordData,
} from './rdata';
export {
  ZoneIndex,
  recordWireSize,
  MAX_RDATA_BYTES,
  type IndexChange,
  type EncodedRRset,
  type ZoneContents,
  type ZoneVersion,
  type Explained,
  type ExplainedRRset,
  type ZoneDefinition,
  type SoaFields,
  type RecordOwner,
  type LookupResult,
  type AnswerOwner,
} from './zone-index';
export { DnsServer, type DnsServerOptions } from './dns-server';
export {
  BufferedQuerySink,
  DNS_QUERY_SINK,
  isFieldQuerySink,
  type QuerySink,
  type FieldQuerySink,
  type LoggedAnswer,
  type LoggedNameSlot,
  type AnsweredQuery,
  type Transport,
  type BufferedQuerySinkOptions,
} from './query-sink';
export { canonicalName, hostnameProblem } from './names';
export type { AnswerTally } from './answer-tally';
