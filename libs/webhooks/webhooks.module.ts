import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { CertificateExpiryProcess } from './application/certificate-expiry.process';
import { WebhookDeliverer } from './application/deliverer';
import { WebhookDeliveryProcess } from './application/delivery.process';
import { OutboxFeeder } from './application/outbox-feeder';
import { WEBHOOK_COMMAND_HANDLERS } from './application/webhook.handlers';
import { WebhookQueries } from './application/webhook.queries';
import { WebhooksController } from './http/webhooks.controller';

/** Signed webhooks (contract §19): endpoints, the outbox feeder, the delivery process and its sender. */
@Module({
  imports: [AccountsModule],
  controllers: [WebhooksController],
  providers: [
    WebhookQueries,
    ...WEBHOOK_COMMAND_HANDLERS,
    WebhookDeliverer,
    WebhookDeliveryProcess,
    OutboxFeeder,
    CertificateExpiryProcess,
  ],
  exports: [WebhookDeliveryProcess],
})
export class WebhooksModule {}
