import { Controller, HttpCode, Post } from '@nestjs/common';
import { AdminOnly } from '../auth/principal';
import { RetentionService } from './retention.job';

/** Operators (and tests) run the retention pass now rather than at the next scheduled one. */
@AdminOnly()
@Controller('admin/retention')
export class RetentionController {
  constructor(private readonly retention: RetentionService) {}

  @Post('run')
  @HttpCode(200)
  run() {
    return this.retention.run();
  }
}
