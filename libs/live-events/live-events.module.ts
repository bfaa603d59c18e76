import { Module } from '@nestjs/common';
import { LiveEventsController } from './live-events.controller';
import { LiveEventHub } from './live-hub';

/** Live notices for the dashboard over Server-Sent Events (decision 0085). */
@Module({
  controllers: [LiveEventsController],
  providers: [LiveEventHub],
  exports: [LiveEventHub],
})
export class LiveEventsModule {}
