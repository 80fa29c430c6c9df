/**
 * Is the configured LiveKit server answering? One `ListRooms` call with a short timeout, cached, so
 * `/api/health` stays fast and a dead LiveKit costs one failed request per interval, not one per
 * health check. Nothing else waits on it: sessions are created and tokens minted either way, and
 * while LiveKit is unreachable clients stay on the embedded WebSocket transport.
 *
 * ```ts
 * const probe = createLiveKitProbe(config.livekit, { intervalMs: 15_000 });
 * await probe.status(); // { configured: true, reachable: false, checkedAt: '…', error: 'cannot connect (ECONNREFUSED)' }
 * ```
 */
import { RoomServiceClient } from 'livekit-server-sdk';
import type { LiveKitConfig } from '../config';

export interface LiveKitStatus {
  configured: true;
  reachable: boolean;
  /** When the check this reports was made (ISO 8601). */
  checkedAt: string;
  /** Why it is not reachable. */
  error?: string;
}

export interface LiveKitProbe {
  /** The latest check; one older than `intervalMs` is refreshed in the background. The first call waits for the first check. */
  status(): Promise<LiveKitStatus>;
  /** Checks now; concurrent callers share one request. */
  check(): Promise<LiveKitStatus>;
}

export interface ProbeOptions {
  /** At most one check per interval. Default 15 s. */
  intervalMs?: number;
  /** A check that takes longer fails. Default 2 s. */
  timeoutMs?: number;
  /** The room service to ask (tests pass a fake); default: LiveKit's at `livekit.url`. */
  rooms?: Pick<RoomServiceClient, 'listRooms'>;
  now?: () => number;
}

const defaults = { intervalMs: 15_000, timeoutMs: 2_000 };

/** A short reason for an operator: the HTTP status LiveKit answered, the socket error, or the timeout. */
const describeFailure = (error: unknown, timeoutMs: number): string => {
  const status = (error as { status?: unknown } | undefined)?.status;
  if (typeof status === 'number') {
    return status === 401 || status === 403 ? `LiveKit refused the API key or secret (HTTP ${status})` : `LiveKit answered HTTP ${status}`;
  }
  const name = (error as Error | undefined)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  // fetch wraps the socket's failure: 'fetch failed', with ECONNREFUSED, ENOTFOUND… or 'bad port' as its cause.
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const reason = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : error instanceof Error ? error.message : String(error);
  return `cannot connect (${reason})`;
};

export const createLiveKitProbe = (livekit: LiveKitConfig, options: ProbeOptions = {}): LiveKitProbe => {
  const { intervalMs, timeoutMs } = { ...defaults, ...options };
  const now = options.now ?? (() => Date.now());
  // Region failover only applies to LiveKit Cloud and would multiply the wait; one try is the probe.
  const rooms = options.rooms ?? new RoomServiceClient(livekit.url, livekit.apiKey, livekit.apiSecret, { requestTimeout: timeoutMs / 1000, failover: false });
  let latest: { status: LiveKitStatus; at: number } | null = null;
  let inFlight: Promise<LiveKitStatus> | null = null;

  const check = (): Promise<LiveKitStatus> =>
    (inFlight ??= (async () => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error('timed out'), { name: 'TimeoutError' })), timeoutMs);
      });
      let status: LiveKitStatus;
      try {
        await Promise.race([rooms.listRooms(), timeout]);
        status = { configured: true, reachable: true, checkedAt: new Date(now()).toISOString() };
      } catch (error) {
        status = { configured: true, reachable: false, checkedAt: new Date(now()).toISOString(), error: describeFailure(error, timeoutMs) };
      } finally {
        clearTimeout(timer);
      }
      latest = { status, at: now() };
      inFlight = null;
      return status;
    })());

  return {
    check,
    async status() {
      if (!latest) return check();
      if (now() - latest.at >= intervalMs) void check();
      return latest.status;
    },
  };
};
