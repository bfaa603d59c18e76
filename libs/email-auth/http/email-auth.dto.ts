import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsString, MaxLength } from 'class-validator';
import { OptionalField, NullableField } from '../../shared/http/validation';

/**
 * Shapes only; the email-authentication rules (URI schemes, SPF limits, key sizes...)
 * are the domain's, which answer with a 400 naming the field.
 */
const POLICY = ['none', 'quarantine', 'reject'];

export class DmarcDto {
  @IsIn(POLICY, { message: 'policy must be none, quarantine or reject' })
  policy: string;

  @NullableField()
  @IsIn(POLICY, { message: 'subdomain_policy must be none, quarantine, reject or null' })
  subdomain_policy?: string | null;

  @OptionalField()
  @IsInt({ message: 'percentage must be an integer from 1 to 100' })
  percentage?: number;

  @OptionalField()
  @IsArray()
  @ArrayMaxSize(10)
  @IsString({ each: true })
  @MaxLength(512, { each: true })
  rua?: string[];

  @OptionalField()
  @IsArray()
  @ArrayMaxSize(10)
  @IsString({ each: true })
  @MaxLength(512, { each: true })
  ruf?: string[];

  @OptionalField()
  @IsIn(['r', 's'], { message: 'adkim must be r or s' })
  adkim?: string;

  @OptionalField()
  @IsIn(['r', 's'], { message: 'aspf must be r or s' })
  aspf?: string;

  @OptionalField()
  @IsString()
  @MaxLength(16)
  fo?: string;
}

export class SpfDto {
  @OptionalField()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @MaxLength(253, { each: true })
  include?: string[];

  @OptionalField()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(18, { each: true })
  ip4?: string[];

  @OptionalField()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(43, { each: true })
  ip6?: string[];

  @NullableField()
  @IsIn(['-all', '~all', '?all'], { message: 'all must be -all, ~all or ?all' })
  all?: string | null;

  /** Later than contract §7's four fields, all optional: the zone's own hosts as `@`, or other domains. */
  @OptionalField()
  @IsArray()
  @ArrayMaxSize(10)
  @IsString({ each: true })
  @MaxLength(253, { each: true })
  a?: string[];

  @OptionalField()
  @IsArray()
  @ArrayMaxSize(10)
  @IsString({ each: true })
  @MaxLength(253, { each: true })
  mx?: string[];

  @OptionalField()
  @IsArray()
  @ArrayMaxSize(10)
  @IsString({ each: true })
  @MaxLength(253, { each: true })
  exists?: string[];

  @NullableField()
  @IsString()
  @MaxLength(253)
  redirect?: string | null;
}

export class DkimDto {
  @OptionalField()
  @IsString()
  @MaxLength(2048, { message: 'public_key must be at most 2048 characters' })
  public_key?: string;

  @OptionalField()
  @IsBoolean({ message: 'generate must be a boolean' })
  generate?: boolean;
}

export class MtaStsDto {
  @IsIn(['enforce', 'testing', 'none'], { message: 'mode must be enforce, testing or none' })
  mode: string;

  @OptionalField()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @MaxLength(253, { each: true })
  mx?: string[];

  @OptionalField()
  @IsInt({ message: 'max_age must be an integer number of seconds' })
  max_age?: number;
}

export class TlsRptDto {
  @IsArray()
  @ArrayMaxSize(10)
  @IsString({ each: true })
  @MaxLength(512, { each: true })
  rua: string[];
}

export class BimiDto {
  @IsString()
  @MaxLength(512)
  logo_url: string;

  @NullableField()
  @IsString()
  @MaxLength(512)
  vmc_url?: string | null;
}

export class AdvanceDto {
  /** Checked by the wizard (400 `confirmation_required` unless true), so any JSON value is let through here. */
  @OptionalField()
  confirm?: unknown;

  @OptionalField()
  @IsInt({ message: 'percentage must be an integer from 1 to 100' })
  percentage?: number;
}

export class NightlyJobDto {
  @OptionalField()
  @IsString()
  @MaxLength(40)
  now?: string;
}
