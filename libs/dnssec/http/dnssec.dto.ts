import { IsBoolean, IsInt } from 'class-validator';
import { OptionalField } from '../../shared/http/validation';

export class SetDnssecDto {
  @IsBoolean({ message: 'enabled must be a boolean' })
  enabled: boolean;

  /** 13 (ECDSAP256SHA256, the default) or 15 (ED25519); other values are refused by the command. */
  @OptionalField()
  @IsInt({ message: 'algorithm must be an integer' })
  algorithm?: number;
}
