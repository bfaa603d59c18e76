import { useEffect, useRef } from 'preact/hooks';

/**
 * Runs `tick` every `everyMs` while `active` holds (a certificate being issued, a job
 * running); stops when it no longer does or the screen goes away. A tick still running
 * is not overlapped by the next.
 */
export function usePolling(active: boolean, everyMs: number, tick: () => Promise<unknown>): void {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    if (!active) return;
    let running = false;
    const timer = setInterval(() => {
      // A hidden tab asks for nothing; the next tick after it shows again catches up.
      if (running || document.hidden) return;
      running = true;
      void latest.current().finally(() => (running = false));
    }, everyMs);
    return () => clearInterval(timer);
  }, [active, everyMs]);
}
