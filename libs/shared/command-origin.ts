import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Where the command being handled comes from: the HTTP request (its id is the
 * correlation id; its caller and address), or the event that caused it (a process
 * manager's command). Set once at the edge — the request hook, the auth guard, the
 * process-manager runtime — and read where events are appended, so no handler builds
 * correlation and causation by hand.
 *
 * The hottest writes (dynamic-DNS updates, the API's host edit) state their origin in the
 * command instead and run with none here: while any `AsyncLocalStorage` is enabled, Node 20
 * runs its promise hooks for every promise of the process (5–6 % of the main thread under
 * `bench:ddns`, decision 0107). So the storage is enabled only while a scope is open and
 * disabled again once none has been open for `IDLE_BEFORE_DISABLE_MS` (decision 0109).
 */
export interface CommandOrigin {
  correlationId?: string;
  causationId?: string;
  actor?: string;
  sourceIp?: string;
}

const storage = new AsyncLocalStorage<CommandOrigin>();

/**
 * How long the storage stays enabled after the last scope closed. A scope closes when its
 * answer has gone (HTTP) or its promise settled (process managers); work a handler still
 * does after that (a client that hung up mid-command) keeps its origin for this long. It
 * is past the 5-s read-your-writes wait, the longest a command goes on after its events.
 */
export const IDLE_BEFORE_DISABLE_MS = 10_000;

let open = 0;
let idleTimer: NodeJS.Timeout | undefined;

const openScope = (): void => {
  open++;
  if (idleTimer) {
    clearTimeout(idleTimer);
    idleTimer = undefined;
  }
};

const closeScope = (): void => {
  if (--open > 0 || idleTimer) return;
  idleTimer = setTimeout(() => {
    idleTimer = undefined;
    // Disabling drops no store: promises made in a scope keep theirs for when it is enabled again.
    if (open === 0) storage.disable();
  }, IDLE_BEFORE_DISABLE_MS);
  idleTimer.unref();
};

/** Runs `fn` (and everything it awaits) under `origin`. */
export const runWithOrigin = <T>(origin: CommandOrigin, fn: () => T): T => {
  openScope();
  let result: T;
  try {
    result = storage.run(origin, fn);
  } catch (e) {
    closeScope();
    throw e;
  }
  if (result instanceof Promise) result.then(closeScope, closeScope);
  else closeScope();
  return result;
};

/**
 * Runs `fn` (and everything it starts) under `origin` until `close` is called once: for
 * framework hooks whose continuation is a callback (the request's answer closes it).
 */
export const openOrigin = (origin: CommandOrigin, fn: () => void): (() => void) => {
  openScope();
  let closed = false;
  try {
    storage.run(origin, fn);
  } catch (e) {
    closed = true;
    closeScope();
    throw e;
  }
  return () => {
    if (closed) return;
    closed = true;
    closeScope();
  };
};

export const currentOrigin = (): CommandOrigin | undefined => storage.getStore();

/** Whether the storage, and with it Node's promise hooks, is on (for specs). */
export const originTracking = (): { open: number; enabled: boolean } => ({
  open,
  enabled: (storage as unknown as { enabled: boolean }).enabled,
});
