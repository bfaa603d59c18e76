import { IsBoolean, IsDefined } from 'class-validator';

export class SetMonitorDto {
  @IsDefined({ message: 'enabled is required' })
  @IsBoolean({ message: 'enabled must be a boolean' })
  enabled: boolean;
}
