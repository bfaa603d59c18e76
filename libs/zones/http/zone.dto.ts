import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsInt, IsString, Length, MaxLength, ValidateNested } from 'class-validator';
import { OptionalField } from '../../shared/http/validation';

export class CreateZoneDto {
  @IsString()
  @Length(1, 253, { message: 'name must be 1 to 253 characters' })
  name: string;

  @OptionalField()
  @IsString()
  @MaxLength(1_000_000, { message: 'zone_file must be at most 1000000 characters' })
  zone_file?: string;
}

/** Shape only; the DNS rules (types, TTL range, presentation format) are the decider's. */
export class RRsetDto {
  @IsString()
  @MaxLength(253)
  subname: string;

  @IsString()
  @Length(1, 10)
  type: string;

  @IsInt({ message: 'ttl must be an integer' })
  ttl: number;

  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(4096, { each: true })
  records: string[];
}

export class UpsertRecordsDto {
  @IsArray()
  @ArrayMaxSize(1000)
  @ValidateNested({ each: true })
  @Type(() => RRsetDto)
  records: RRsetDto[];
}

export class AllowOverlapDto {
  @IsInt({ message: 'account_id must be an integer' })
  account_id: number;
}
