import { nameBasedEventId } from '../../eventstore/event-id';

/** A delivery row's id, derived from the command that made the attempt, so the pending row and its outcome meet. */
export const deliveryId = (commandId: string): string => nameBasedEventId(`delivery:${commandId}`);
