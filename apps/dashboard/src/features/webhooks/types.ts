import type { Body } from '../../api/schema';

/** A webhook endpoint as the API gives it (contract §19); `secret` only in the creation answer. */
export type Webhook = Body<'WebhooksController_list'>['webhooks'][number] & { secret?: string };

export type Delivery = Body<'WebhooksController_deliveries'>['data'][number];

/** The types an endpoint can subscribe to, with the words the screen uses for them (`webhook.test` is sent on request only). */
export const EVENT_TYPES: { type: string; label: string }[] = [
  { type: 'ddns.host.address_changed', label: 'DDNS host address changed' },
  { type: 'zone.changed', label: 'Zone records changed' },
  { type: 'uptime.down', label: 'Uptime: down' },
  { type: 'uptime.up', label: 'Uptime: up again' },
  { type: 'certificate.issued', label: 'Certificate issued' },
  { type: 'certificate.failed', label: 'Certificate failed' },
  { type: 'certificate.expiring', label: 'Certificate expiring' },
  { type: 'dmarc.report.received', label: 'DMARC report received' },
  { type: 'tls.report.received', label: 'TLS report received' },
  { type: 'email_auth.alert.raised', label: 'Email-auth alert raised' },
  { type: 'email_auth.alert.resolved', label: 'Email-auth alert resolved' },
];

export const typesLabel = (types: string[]): string =>
  types.includes('*') ? 'All events' : types.map((t) => EVENT_TYPES.find((e) => e.type === t)?.label ?? t).join(', ');
