import { ArrayMaxSize, IsArray, IsBoolean, IsDefined, IsString, MaxLength } from 'class-validator';
import { OptionalField } from '../../shared/http/validation';
import { validationFailed } from '../../shared/errors';
import { MAX_SANS } from '../domain/certificate-rules';

export class CreateCertificateDto {
  @IsDefined({ message: 'zone is required' })
  @IsString({ message: 'zone must be a string' })
  @MaxLength(253, { message: 'zone must be at most 253 characters' })
  zone: string;

  @IsDefined({ message: 'domain is required' })
  @IsString({ message: 'domain must be a string' })
  @MaxLength(253, { message: 'domain must be at most 253 characters' })
  domain: string;

  @OptionalField()
  @IsArray({ message: 'sans must be an array of names' })
  @ArrayMaxSize(MAX_SANS, { message: `sans: at most ${MAX_SANS} names` })
  @IsString({ each: true, message: 'sans must be an array of names' })
  @MaxLength(253, { each: true, message: 'each of sans must be at most 253 characters' })
  sans?: string[];

  @OptionalField()
  @IsBoolean({ message: 'wildcard must be a boolean' })
  wildcard?: boolean;

  @OptionalField()
  @IsBoolean({ message: 'auto_renew must be a boolean' })
  auto_renew?: boolean;
}

export class AutoRenewDto {
  @IsDefined({ message: 'auto_renew is required' })
  @IsBoolean({ message: 'auto_renew must be a boolean' })
  auto_renew: boolean;
}

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** `{}`, `{"now": ISO}` or no body at all; anything else is 400 naming the field. */
export function jobBody(body: unknown): { now?: string } {
  if (body === undefined || body === null || body === '') return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw validationFailed('The request body must be a JSON object');
  for (const key of Object.keys(body)) if (key !== 'now') throw validationFailed(`${key}: unknown field`);
  const now = (body as { now?: unknown }).now;
  if (now === undefined) return {};
  if (typeof now !== 'string' || !ISO_TIMESTAMP.test(now) || Number.isNaN(Date.parse(now)))
    throw validationFailed('now must be an ISO 8601 timestamp');
  return { now };
}
