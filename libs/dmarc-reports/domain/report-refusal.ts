import { AppError } from '../../shared/errors';

/**
 * Why a report was refused. The value is the `reason` label of
 * `dmarc_reports_refused_total` and part of every refusal log line, so it stays a small
 * closed set.
 */
export type RefusalReason =
  'malformed' | 'unsupported' | 'xml_entities' | 'too_large' | 'decompression_bomb' | 'unknown_domain' | 'duplicate';

const HTTP: Record<RefusalReason, { status: number; code: string }> = {
  malformed: { status: 400, code: 'malformed_report' },
  unsupported: { status: 400, code: 'unsupported_report' },
  xml_entities: { status: 400, code: 'xml_entities_refused' },
  too_large: { status: 413, code: 'report_too_large' },
  decompression_bomb: { status: 413, code: 'decompression_bomb' },
  unknown_domain: { status: 422, code: 'unknown_domain' },
  duplicate: { status: 409, code: 'duplicate_report' },
};

/** A report the pipeline will not store; carries the contract's error shape for the HTTP paths. */
export class ReportRefused extends AppError {
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(HTTP[reason].status, HTTP[reason].code, message);
    this.name = 'ReportRefused';
  }
}

export const refuse = (reason: RefusalReason, message: string): ReportRefused => new ReportRefused(reason, message);
