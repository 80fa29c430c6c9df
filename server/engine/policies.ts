/**
 * Next-speaker policies as small pure functions. The session (session.ts) decides which one
 * applies; these decide who.
 */
import type { Rng } from '../../shared/rng';

export interface Bid {
  participant: string;
  action: 'speak' | 'listen';
  importance: number;
  thought: string;
}

/** The next allowed participant after `after` in `order`, wrapping around; null when none is allowed. */
export const nextInOrder = (order: readonly string[], after: string | null, allowed: (id: string) => boolean): string | null => {
  const start = after === null ? -1 : order.indexOf(after);
  for (let step = 1; step <= order.length; step++) {
    const id = order[(start + step + order.length) % order.length]!;
    if (allowed(id)) return id;
  }
  return null;
};

/**
 * MMAgents §3.2.2 selectMostImportant(): among those who chose "speak", the highest importance
 * wins; ties are broken at random (the uncertainty of who starts first); when everybody
 * listens, the current speaker keeps the floor (Sacks et al. rule 3).
 */
export const selectMostImportant = (
  bids: readonly Bid[],
  current: string | null,
  rng: Rng,
): { speaker: string | null; reason: 'self-selected' | 'continues' } => {
  let best = -1;
  let top: string[] = [];
  for (const bid of bids) {
    if (bid.action !== 'speak') continue;
    if (bid.importance > best) {
      best = bid.importance;
      top = [bid.participant];
    } else if (bid.importance === best) top.push(bid.participant);
  }
  if (top.length === 0) return { speaker: current, reason: 'continues' };
  return { speaker: top.length === 1 ? top[0]! : rng.pick(top), reason: 'self-selected' };
};

const jsonObject = (raw: string): Record<string, unknown> | null => {
  const start = raw.indexOf('{');
  const end = raw.lastIndexOf('}');
  if (start < 0 || end <= start) return null;
  try {
    const value: unknown = JSON.parse(raw.slice(start, end + 1));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
};

/** Reads a think() answer: {"thought", "action": "speak"|"listen", "importance": 0-9}. Null when malformed. */
export const parseBid = (participant: string, raw: string): Bid | null => {
  const o = jsonObject(raw);
  if (!o) return null;
  const action = typeof o.action === 'string' ? o.action.toLowerCase() : '';
  const importance = typeof o.importance === 'number' ? o.importance : Number(o.importance);
  if ((action !== 'speak' && action !== 'listen') || !Number.isFinite(importance)) return null;
  return {
    participant,
    action,
    importance: Math.max(0, Math.min(9, Math.round(importance))),
    thought: typeof o.thought === 'string' ? o.thought : '',
  };
};

/** Reads the MPOD turn selector's JSON answer {"next": "<name>"}; null unless it names a candidate. */
export const parseSelection = (raw: string, candidates: readonly { id: string; names: readonly string[] }[]): string | null => {
  const o = jsonObject(raw);
  const next = o && (o.next ?? o.speaker ?? o.name);
  if (typeof next !== 'string') return null;
  const wanted = next.trim().toLowerCase();
  const match = candidates.find((c) => c.id === wanted || c.names.some((n) => n.toLowerCase() === wanted));
  return match?.id ?? null;
};

/**
 * DialogLab Algorithm 1 selectNextParty(): `free` picks another party at random, `round-robin`
 * the next in order; `moderated` alternates between the moderator's party and the party of the
 * first approved speaker.
 */
export const selectNextParty = <P extends { id: string }>(
  parties: readonly P[],
  current: P | undefined,
  mode: 'free' | 'round-robin',
  rng: Rng,
): P => {
  if (!current || parties.length === 1) return current && parties.length === 1 ? current : parties[0]!;
  if (mode === 'round-robin') return parties[(parties.indexOf(current) + 1) % parties.length]!;
  const others = parties.filter((p) => p.id !== current.id);
  return rng.pick(others);
};

/** MUCA §3.3.1 Eq. 6-8: a discretised, clipped log-normal utterance length in words. */
export const sampleUtteranceLength = (length: { min: number; avg: number; max: number }, rng: Rng): number => {
  const w = 0.3;
  const alpha = 0.67;
  const mu = Math.log(w * length.min + (1 - w) * length.avg);
  const sigma = alpha * (Math.log(length.max) - mu);
  // Box-Muller from the seeded generator.
  const u1 = Math.max(rng.next(), 1e-12);
  const u2 = rng.next();
  const normal = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  return Math.max(length.min, Math.min(length.max, Math.round(Math.exp(mu + sigma * normal))));
};
