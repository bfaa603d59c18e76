/** A change as `GET …/history` lists it (contract §19), from the service's /openapi.json. */
import type { Schema } from '../../api/schema';

export type RecordChange = Schema<'RecordChange'>;
export type FieldChange = Schema<'FieldChange'>;
/** API keys, certificates, email-auth settings: a field the change set (secrets redacted). */
export type SettingChange = Schema<'SettingChange'>;
export type Change = HistoryChange['changes'][number];
export type HistoryChange = Schema<'HistoryChange'>;
export type HistoryPage = Schema<'HistoryPage'>;
