import { useEffect, useRef } from 'preact/hooks';
import { api } from '../api/client';

/**
 * Live notices from `GET /account/events/stream` (decision 0085): the server says which of
 * the account's data changed (`topics`), never the data; a screen that shows it reads again.
 * One EventSource serves the whole page, opened with the first listener and closed a little
 * after the last one leaves (a route change does not reconnect).
 */
export type LiveTopic = 'uptime' | 'certificates' | 'email_auth' | 'audit' | 'ddns' | 'zones';

export interface LiveChange {
  topics: LiveTopic[];
  type: string;
  ref?: string;
}

interface Listener {
  topics: readonly LiveTopic[];
  /** `null`: the stream (re)connected, anything may have changed meanwhile. */
  notify(change: LiveChange | null): void;
}

const STREAM = '/account/events/stream';
/** A listener that comes back this soon (the next screen) reuses the open stream. */
const LINGER_MS = 5000;

const listeners = new Set<Listener>();
let source: EventSource | null = null;
let readyOnce = false;
let closeTimer: ReturnType<typeof setTimeout> | undefined;

function openStream(): void {
  if (source || typeof EventSource === 'undefined') return;
  readyOnce = false;
  const es = (source = new EventSource(STREAM));
  es.addEventListener('ready', () => {
    // After a reconnect, notices sent meanwhile are lost: everyone reads again.
    if (readyOnce) listeners.forEach((l) => l.notify(null));
    readyOnce = true;
  });
  es.addEventListener('change', (e) => {
    let change: LiveChange;
    try {
      change = JSON.parse((e as MessageEvent<string>).data) as LiveChange;
    } catch {
      return;
    }
    listeners.forEach((l) => l.topics.some((t) => change.topics.includes(t)) && l.notify(change));
  });
  es.addEventListener('session_ended', () => {
    closeStream();
    // Nobody listens: the page signed out itself (a logout) and the stream was only lingering.
    if (listeners.size === 0) return;
    // The next read answers 401, which signs the page out with the "session ended" notice.
    void api.get('/account').catch(() => undefined);
  });
}

function closeStream(): void {
  source?.close();
  source = null;
}

function add(l: Listener): () => void {
  clearTimeout(closeTimer);
  listeners.add(l);
  openStream();
  return () => {
    listeners.delete(l);
    if (listeners.size === 0) closeTimer = setTimeout(closeStream, LINGER_MS);
  };
}

/**
 * Runs `action` at most once at a time: a call while it runs queues one more run after it,
 * so a burst of notices costs two reads, not one per notice.
 */
export function coalesce(action: () => Promise<unknown>): () => void {
  let running = false;
  let again = false;
  const run = (): void => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    void action()
      .catch(() => undefined)
      .finally(() => {
        running = false;
        if (again) {
          again = false;
          run();
        }
      });
  };
  return run;
}

/**
 * Calls `onChange` when the server says data of one of `topics` changed (and after a
 * reconnect). `filter` narrows to the notices that concern the screen (a monitor's id).
 */
export function useLive(
  topics: readonly LiveTopic[],
  onChange: () => Promise<unknown>,
  filter?: (c: LiveChange) => boolean,
): void {
  const latest = useRef({ onChange, filter });
  latest.current = { onChange, filter };
  const key = topics.join(' ');
  useEffect(() => {
    const run = coalesce(() => latest.current.onChange());
    return add({
      topics,
      notify: (change) => {
        if (change && latest.current.filter && !latest.current.filter(change)) return;
        run();
      },
    });
  }, [key]);
}

/**
 * Keeps the stream open while signed in, whatever the screen: the server's `session_ended`
 * signs the page out at once (with the "session ended" notice) rather than at the next click.
 */
export function useLiveSession(signedIn: boolean): void {
  useEffect(() => (signedIn ? add({ topics: [], notify: () => undefined }) : undefined), [signedIn]);
}
