import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Where the command being handled comes from: the HTTP request (its id is the
 * correlation id; its caller and address), or the event that caused it (a process
 * manager's command). Set once at the edge — the request hook, the auth guard, the
 * process-manager runtime — and read where events are appended, so no handler builds
 * correlation and causation by hand.
 */
export interface CommandOrigin {
  correlationId?: string;
  causationId?: string;
  actor?: string;
  sourceIp?: string;
}

const storage = new AsyncLocalStorage<CommandOrigin>();

/** Runs `fn` (and everything it awaits) under `origin`. */
export const runWithOrigin = <T>(origin: CommandOrigin, fn: () => T): T => storage.run(origin, fn);

/** Makes `origin` the origin of the rest of the current request's execution (for framework hooks that cannot wrap the handler). */
export const enterOrigin = (origin: CommandOrigin): void => storage.enterWith(origin);

export const currentOrigin = (): CommandOrigin | undefined => storage.getStore();
