import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { targetProblem } from '../../shared/target-ranges';

export interface ProbeResult {
  up: boolean;
  /** Connect time in whole milliseconds when up, else null. */
  responseTimeMs: number | null;
  error: string | null;
  port: number;
}

/** The contract's error texts for the system errors a connect can end in; others keep the system's text. */
const ERROR_TEXTS: Record<string, string> = {
  ETIMEDOUT: 'connection timeout',
  ECONNREFUSED: 'connection refused',
  EHOSTUNREACH: 'host unreachable',
  EHOSTDOWN: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENETDOWN: 'network unreachable',
};

export const errorText = (e: NodeJS.ErrnoException): string => (e.code && ERROR_TEXTS[e.code]) || e.message;

export type Probe = (ip: string, port: number, timeoutMs: number) => Promise<ProbeResult>;

/**
 * One TCP connect attempt. Success is the completed handshake; the socket is then
 * closed with a reset, as load-balancer health checks do, so the checker leaves no
 * TIME_WAIT behind (100k checks per interval would otherwise exhaust its ephemeral ports)
 * and the checked server spends nothing on a graceful close.
 */
export const tcpProbe: Probe = (ip, port, timeoutMs) =>
  new Promise((resolve) => {
    const started = performance.now();
    const socket = connect({ host: ip, port, noDelay: true });
    const finish = (result: ProbeResult) => {
      clearTimeout(timer);
      socket.removeAllListeners();
      socket.on('error', () => undefined);
      if (socket.connecting || socket.destroyed) socket.destroy();
      else socket.resetAndDestroy();
      resolve(result);
    };
    const timer = setTimeout(
      () => finish({ up: false, responseTimeMs: null, error: ERROR_TEXTS.ETIMEDOUT, port }),
      timeoutMs,
    );
    socket.once('connect', () =>
      finish({ up: true, responseTimeMs: Math.max(0, Math.round(performance.now() - started)), error: null, port }),
    );
    socket.once('error', (e: NodeJS.ErrnoException) =>
      finish({ up: false, responseTimeMs: null, error: errorText(e), port }),
    );
  });

/**
 * The contract's check: each port in turn, up at the first that connects within the
 * timeout. When none does, the result is the last port's failure.
 */
export async function checkHost(
  ip: string,
  ports: readonly number[],
  timeoutMs: number,
  probe: Probe = tcpProbe,
  allowPrivate = false,
): Promise<ProbeResult> {
  // Checked again here, not only when the address is stored: it may predate the rule (or
  // the operator may have turned ALLOW_PRIVATE_TARGETS off since). Nothing is connected to.
  const refused = targetProblem(ip, allowPrivate);
  if (refused)
    return { up: false, responseTimeMs: null, error: `target refused: ${ip} is ${refused}`, port: ports[0] ?? 0 };
  let result: ProbeResult = { up: false, responseTimeMs: null, error: 'no port to check', port: 0 };
  for (const port of ports) {
    result = await probe(ip, port, timeoutMs);
    if (result.up) return result;
  }
  return result;
}
