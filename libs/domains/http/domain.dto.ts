import { IsIn, IsString, Length } from 'class-validator';
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

export class UpdateDomainDto {
  @IsString()
  @Length(1, 64, { message: 'record_ip must be an IP address' })
  record_ip: string;
}
