import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsString, Length, Matches, Max, Min } from 'class-validator';
import { OptionalField } from '../../shared/http/validation';
import { KeyAccess } from '../domain/api-key.events';

export class CreateApiKeyDto {
  @IsString()
  @Length(1, 255, { message: 'name must be 1 to 255 characters' })
  name: string;

  @OptionalField()
  @IsIn(['account', 'email_auth:read'], { message: 'access must be "account" or "email_auth:read"' })
  access?: KeyAccess;

  @OptionalField()
  @IsArray()
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  @Matches(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i, {
    each: true,
    message: 'domains must be zone names',
  })
  domains?: string[];

  @OptionalField()
  @IsBoolean()
  failure_report_subjects?: boolean;

  @OptionalField()
  @IsInt()
  @Min(1)
  @Max(1095)
  expires_in_days?: number;
}
