import { nameBasedEventId } from '../../eventstore/event-id';

/**
 * A delivery row's id: one per attempt of one outbox item (an event, or a redelivery
 * request, at its outbox revision), so the row a failure schedules (`pending`) and that
 * attempt's outcome meet, and an attempt sent again after a crash is one row.
 */
export const deliveryId = (webhookId: string, revision: number, attempt: number): string =>
  nameBasedEventId(`delivery:${webhookId}:${revision}:${attempt}`);
