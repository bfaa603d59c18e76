/**
 * The event types an endpoint can subscribe to (contract §19). `webhook.test` is sent by
 * `POST /webhooks/{id}/test` whatever the endpoint's `event_types`, so it is a known type
 * but never needs subscribing.
 */
export const WEBHOOK_EVENT_TYPES = [
  'ddns.host.address_changed',
  'zone.changed',
  'uptime.down',
  'uptime.up',
  'certificate.issued',
  'certificate.failed',
  'certificate.expiring',
  'dmarc.report.received',
  'tls.report.received',
  'email_auth.alert.raised',
  'email_auth.alert.resolved',
  'webhook.test',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

const KNOWN: ReadonlySet<string> = new Set(WEBHOOK_EVENT_TYPES);

export const isWebhookEventType = (t: string): t is WebhookEventType => KNOWN.has(t);

/** `["*"]` subscribes to every type, present and future. */
export const ALL_TYPES = '*';

/** Whether an endpoint subscribed to `subscribed` receives an event of `type`. */
export const subscribes = (subscribed: readonly string[], type: string): boolean =>
  subscribed.includes(ALL_TYPES) || subscribed.includes(type);
