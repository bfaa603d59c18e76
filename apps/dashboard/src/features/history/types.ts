/** A change as `GET …/history` lists it (contract §19). */
export interface RecordChange {
  subname: string;
  type: string;
  before: string[] | null;
  after: string[] | null;
  before_ttl?: number | null;
  after_ttl?: number | null;
}

export interface FieldChange {
  field: 'ipv4' | 'ipv6' | 'ttl';
  before: string | number | null;
  after: string | number | null;
}

export interface HistoryChange {
  id: string;
  type: string;
  occurred_at: string;
  actor: { type: 'user' | 'api_key' | 'system' | 'operator'; id: string | null; name: string | null };
  source_ip: string | null;
  correlation_id: string | null;
  changes: Array<RecordChange | FieldChange>;
  restored_from?: string;
}

export interface HistoryPage {
  data: HistoryChange[];
  next_cursor: string | null;
}
