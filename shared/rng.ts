/**
 * Seeded randomness for the pure engine (no `Math.random` anywhere in it).
 * mulberry32: one 32-bit word of state, so an engine state can carry it as a plain number
 * and a step stays a pure function of (state, input).
 */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(probability: number): boolean;
  /** Current state; `rngFrom(rng.state)` continues the same sequence. */
  readonly state: number;
}

export const rngFrom = (seed: number): Rng => {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => {
      if (items.length === 0) throw new Error('rng.pick: no items to pick from');
      return items[Math.floor(next() * items.length)]!;
    },
    chance: (p) => p > 0 && next() < p,
    get state() {
      return a;
    },
  };
};
