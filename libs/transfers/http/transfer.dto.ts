import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsString, Length, MaxLength, ValidateNested } from 'class-validator';
import { OptionalField } from '../../shared/http/validation';

export class UpdateAllowDto {
  @IsString()
  @Length(1, 253)
  name: string;

  @OptionalField()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @MaxLength(10, { each: true })
  types?: string[];
}

export class CreateTsigKeyDto {
  @IsString()
  @Length(1, 253, { message: 'name must be 1 to 253 characters' })
  name: string;

  @OptionalField()
  @IsIn(['hmac-sha256', 'hmac-sha512'], { message: 'algorithm must be hmac-sha256 or hmac-sha512' })
  algorithm?: string;

  @IsIn(['transfer', 'update'], { message: 'purpose must be transfer or update' })
  purpose: string;

  @IsArray()
  @ArrayMaxSize(250)
  @IsString({ each: true })
  @MaxLength(253, { each: true })
  zones: string[];

  @OptionalField()
  @IsArray()
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => UpdateAllowDto)
  allow?: UpdateAllowDto[];
}

export class AddSecondaryDto {
  @IsString()
  @Length(1, 60, { message: 'address must be an IP address, optionally with :port' })
  address: string;

  @IsString()
  @Length(1, 253)
  tsig_key: string;
}
