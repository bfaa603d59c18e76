import { EventMetadata } from '../../eventstore/event-store.port';

/** What a webhook's create and update carry (contract §19). */
export interface WebhookInput {
  url?: string;
  event_types?: string[];
  description?: string | null;
  enabled?: boolean;
}

export class CreateWebhook {
  constructor(
    readonly accountId: number,
    readonly input: WebhookInput & { url: string; event_types: string[] },
    readonly metadata: EventMetadata,
  ) {}
}

export class UpdateWebhook {
  constructor(
    readonly accountId: number,
    readonly webhookId: string,
    readonly input: WebhookInput,
    readonly metadata: EventMetadata,
  ) {}
}

export class DeleteWebhook {
  constructor(
    readonly accountId: number,
    readonly webhookId: string,
    readonly metadata: EventMetadata,
  ) {}
}

/** The delivery process giving up on an endpoint after 5 days of failure. */
export class DisableFailingWebhook {
  constructor(
    readonly accountId: number,
    readonly webhookId: string,
  ) {}
}

/** `webhook.test` to an enabled endpoint, queued behind what it already has. */
export class TestWebhook {
  constructor(
    readonly accountId: number,
    readonly webhookId: string,
    readonly metadata: EventMetadata,
  ) {}
}

/** A delivered (or failed) event sent again, as the endpoint's next attempt. */
export class RedeliverWebhook {
  constructor(
    readonly accountId: number,
    readonly webhookId: string,
    readonly deliveryId: string,
    readonly metadata: EventMetadata,
  ) {}
}
