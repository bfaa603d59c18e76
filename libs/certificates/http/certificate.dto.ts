import { ArrayMaxSize, IsArray, IsBoolean, IsDefined, IsISO8601, IsOptional, IsString, MaxLength } from 'class-validator';
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

  @IsOptional()
  @IsArray({ message: 'sans must be an array of names' })
  @ArrayMaxSize(MAX_SANS, { message: `sans: at most ${MAX_SANS} names` })
  @IsString({ each: true, message: 'sans must be an array of names' })
  @MaxLength(253, { each: true, message: 'each of sans must be at most 253 characters' })
  sans?: string[];

  @IsOptional()
  @IsBoolean({ message: 'wildcard must be a boolean' })
  wildcard?: boolean;

  @IsOptional()
  @IsBoolean({ message: 'auto_renew must be a boolean' })
  auto_renew?: boolean;
}

export class AutoRenewDto {
  @IsDefined({ message: 'auto_renew is required' })
  @IsBoolean({ message: 'auto_renew must be a boolean' })
  auto_renew: boolean;
}

export class RenewalJobDto {
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'now must be an ISO 8601 timestamp' })
  now?: string;
}
