import { IsIn, IsInt, IsString, Length, Max, Min } from 'class-validator';
import { NullableField, OptionalField } from '../../shared/http/validation';
import { MAX_HOST_TTL, MIN_HOST_TTL } from '../domain/domain.events';
import { RecordType } from '../domain/addresses';

export class CreateDomainDto {
  // Only type and length here: the name rules answer `invalid_fqdn` (contract §4), not validation_failed.
  @IsString()
  @Length(1, 255, { message: 'fqdn must be 1 to 255 characters' })
  fqdn: string;

  @IsIn(['A', 'AAAA'], { message: 'record_type must be "A" or "AAAA"' })
  record_type: RecordType;

  @IsString()
  @Length(1, 64, { message: 'record_ip must be an IP address' })
  record_ip: string;
}

/**
 * Every field optional, at least one given (decision 0091): `record_ip` sets the family of
 * its form (the contract's field), `ipv4`/`ipv6` set that family or, as null, remove it.
 */
export class UpdateDomainDto {
  @OptionalField()
  @IsString()
  @Length(1, 64, { message: 'record_ip must be an IP address' })
  record_ip?: string;

  @NullableField()
  @IsString({ message: 'ipv4 must be an IPv4 address, or null to remove it' })
  @Length(1, 64, { message: 'ipv4 must be an IPv4 address' })
  ipv4?: string | null;

  @NullableField()
  @IsString({ message: 'ipv6 must be an IPv6 address, or null to remove it' })
  @Length(1, 64, { message: 'ipv6 must be an IPv6 address' })
  ipv6?: string | null;

  @OptionalField()
  @IsInt({ message: `ttl must be a whole number of seconds from ${MIN_HOST_TTL} to ${MAX_HOST_TTL}` })
  @Min(MIN_HOST_TTL, { message: `ttl must be a whole number of seconds from ${MIN_HOST_TTL} to ${MAX_HOST_TTL}` })
  @Max(MAX_HOST_TTL, { message: `ttl must be a whole number of seconds from ${MIN_HOST_TTL} to ${MAX_HOST_TTL}` })
  ttl?: number;
}
