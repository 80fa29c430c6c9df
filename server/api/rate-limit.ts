/**
 * Rate limits, one implementation: a token bucket per person (their credential), `burst` at once,
 * then refilled at `ratePerS`. The HTTP routes that may call a vendor take it as middleware
 * (`rateLimit`: 429 with Retry-After and a message saying when to come back); the session socket
 * keeps its budgets (messages, lines, microphone seconds) in the same buckets (`createBucket`).
 *
 * ```ts
 * const asks = rateLimit({ burst: 6, ratePerS: 6 / 60, message: (s) => `At most 6 questions a minute; ask again in ${s} s.` });
 * review.post('/:id/ask', authorize(roles), asks, (c) => c.json(answer));
 * // the 7th at once: 429, Retry-After: 10, {"error":"rate-limited","message":"At most 6 questions a minute; ask again in 10 s."}
 * ```
 */
import type { Context, Env, MiddlewareHandler } from 'hono';
import { credentialOf } from './access';
import { problem } from './problem';

/** A token bucket: `burst` at most, refilled at `ratePerS`. */
export const createBucket = (burst: number, ratePerS: number, t0: number) => {
  let allowance = burst;
  let last = t0;
  const held = (t: number) => Math.min(burst, allowance + (Math.max(0, t - last) / 1000) * ratePerS);
  return {
    /** Spends `cost` if the bucket holds it at time `t`. */
    take(cost: number, t: number): boolean {
      allowance = held(t);
      last = t;
      if (allowance < cost) return false;
      allowance -= cost;
      return true;
    },
    /** How long until the bucket holds `cost`, from time `t` (ms; 0: it does now). */
    waitMs: (cost: number, t: number): number => Math.max(0, ((cost - held(t)) / ratePerS) * 1000),
  };
};
export type Bucket = ReturnType<typeof createBucket>;

export interface RateLimitOptions<E extends Env> {
  /** Requests at once. */
  burst: number;
  /** Requests a second once the burst is spent. */
  ratePerS: number;
  /** What a refusal says, given the whole seconds until the next request is let through. */
  message: (waitS: number) => string;
  /** Whose budget a request spends; default its credential (a token is one person). */
  keyOf?: (c: Context<E>) => string;
  now?: () => number;
  /** Budgets kept at most before the full ones (nobody asked for a while) are forgotten; default 256. */
  maxKeys?: number;
}

/** Lets a person's requests through while their bucket holds one; else 429 `rate-limited` with Retry-After. */
export const rateLimit = <E extends Env>(options: RateLimitOptions<E>): MiddlewareHandler<E> => {
  const { burst, ratePerS, message, keyOf = credentialOf, now = () => Date.now(), maxKeys = 256 } = options;
  const buckets = new Map<string, Bucket>();
  return async (c, next) => {
    const t = now();
    const key = keyOf(c);
    const bucket = buckets.get(key) ?? createBucket(burst, ratePerS, t);
    buckets.set(key, bucket);
    if (!bucket.take(1, t)) {
      const wait = Math.max(1, Math.ceil(bucket.waitMs(1, t) / 1000));
      return problem(c, 429, 'rate-limited', message(wait), { 'Retry-After': String(wait) });
    }
    // A full bucket is the same as none: forgotten, so the map holds only the recent askers.
    if (buckets.size > maxKeys) for (const [k, b] of buckets) if (b.waitMs(burst, t) === 0) buckets.delete(k);
    await next();
  };
};
