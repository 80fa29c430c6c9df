/**
 * Lip sync: the mouth shape of a reply at any moment of its speech. The server sends viseme cues
 * with each piece of audio (`audio.cues`: a viseme becoming dominant at `t` ms from the start of
 * the draft's speech); this timeline turns them into smooth morph target weights.
 *
 * Each cue cross-fades from the one before it over `rampMs` (or the gap between them, if
 * shorter) and is fully dominant at its own time; the first cue ramps in over `rampMs` before its
 * time. `sil` is the closed mouth: every weight goes to 0. The mouth closes at the end of the last
 * cue (the end of the audio given to `add`, or `holdMs` after the last cue when that is unknown)
 * and fades shut over `rampMs` after a stop point, as the sound is cut there.
 *
 * ```ts
 * const lipSync = createLipSync();
 * lipSync.add('d1', [{ t: 0, viseme: 'PP' }, { t: 90, viseme: 'aa' }, { t: 260, viseme: 'sil' }]);
 * useFrame(() => {
 *   const weights = lipSync.weightsAt('d1', msIntoSpeech);
 *   for (const viseme of visemes) head.morphTargetInfluences![head.morphTargetDictionary![visemeMorph(viseme)]!] = weights[viseme] ?? 0;
 * });
 * ```
 *
 * Pure and allocation-light: it runs every frame for every avatar, so `weightsAt` fills and
 * returns one object per draft instead of a new one; read it before asking again for that draft.
 */
import { visemes, type Viseme, type VisemeCue } from '../../../shared/visemes';

/** Morph target weights 0..1 by viseme; a missing viseme is 0. */
export type VisemeWeights = Readonly<Partial<Record<Viseme, number>>>;

export interface LipSyncOptions {
  /** How long a viseme takes to fade in (and the previous one out). */
  rampMs?: number;
  /** How long the last cue holds when the end of the audio is not known. */
  holdMs?: number;
}

const defaults = { rampMs: 60, holdMs: 150 } satisfies Required<LipSyncOptions>;

export interface LipSync {
  /**
   * Adds a draft's cues (times in ms from the start of its speech; any order, pieces may come one
   * by one). `endMs`, where the audio these cues belong to ends, closes the mouth there unless
   * later cues follow.
   */
  add(draft: string, cues: readonly VisemeCue[], endMs?: number): void;
  /** The draft's speech is cut at `atMs`: the mouth closes right after it, whatever cues remain. */
  stop(draft: string, atMs: number): void;
  /** The weights `ms` into the draft's speech; every viseme is present, 0 when closed. */
  weightsAt(draft: string, ms: number): VisemeWeights;
  /** Drops a draft that will not be asked about again. */
  forget(draft: string): void;
}

interface Timeline {
  /** Ordered by `t`; of cues at one instant, the later added one shows. */
  cues: VisemeCue[];
  endMs: number | undefined;
  stopMs: number;
  weights: Record<Viseme, number>;
}

/** Every viseme at 0: a fresh object to fill in place. */
export const closedMouth = (): Record<Viseme, number> =>
  Object.fromEntries(visemes.map((viseme) => [viseme, 0])) as Record<Viseme, number>;

/** The index of the first cue after `ms` (`cues.length` if none). */
const firstCueAfter = (cues: readonly VisemeCue[], ms: number): number => {
  let low = 0;
  let high = cues.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (cues[middle]!.t <= ms) low = middle + 1;
    else high = middle;
  }
  return low;
};

const clamp01 = (value: number): number => Math.min(1, Math.max(0, value));

export const createLipSync = (options?: LipSyncOptions): LipSync => {
  const { rampMs, holdMs } = { ...defaults, ...options } satisfies Required<LipSyncOptions>;
  const timelines = new Map<string, Timeline>();
  const unknown = closedMouth();

  const timelineOf = (draft: string): Timeline => {
    let timeline = timelines.get(draft);
    if (!timeline) {
      timeline = { cues: [], endMs: undefined, stopMs: Infinity, weights: closedMouth() };
      timelines.set(draft, timeline);
    }
    return timeline;
  };

  const share = (weights: Record<Viseme, number>, cue: VisemeCue | undefined, amount: number) => {
    if (cue && cue.viseme !== 'sil') weights[cue.viseme] += (cue.weight ?? 1) * amount;
  };

  return {
    add(draft, cues, endMs) {
      const timeline = timelineOf(draft);
      let ordered = true;
      for (const cue of cues) {
        const last = timeline.cues.at(-1);
        if (last && cue.t < last.t) ordered = false;
        timeline.cues.push(cue);
      }
      // Array.prototype.sort is stable: cues at one instant keep the order they were added in.
      if (!ordered) timeline.cues.sort((a, b) => a.t - b.t);
      if (endMs !== undefined) timeline.endMs = Math.max(endMs, timeline.endMs ?? endMs);
    },

    stop(draft, atMs) {
      const timeline = timelineOf(draft);
      timeline.stopMs = Math.min(timeline.stopMs, atMs);
    },

    weightsAt(draft, ms) {
      const timeline = timelines.get(draft);
      if (!timeline) return unknown;
      const { cues, weights } = timeline;
      for (const viseme of visemes) weights[viseme] = 0;
      const last = cues.at(-1);
      const fade = ms <= timeline.stopMs ? 1 : 1 - (ms - timeline.stopMs) / rampMs;
      if (!last || fade <= 0) return weights;

      // The end of the speech acts as a final `sil` cue.
      const endMs = timeline.endMs === undefined ? last.t + holdMs : Math.max(timeline.endMs, last.t);
      const next = firstCueAfter(cues, ms);
      if (next === cues.length && ms >= endMs) return weights;
      const current = cues[next - 1];
      const upcoming = cues[next];
      const upcomingMs = upcoming?.t ?? endMs;
      const ramp = current ? Math.min(rampMs, upcomingMs - current.t) : rampMs;
      const progress = clamp01((ms - (upcomingMs - ramp)) / ramp);
      share(weights, current, (1 - progress) * fade);
      share(weights, upcoming, progress * fade);
      return weights;
    },

    forget(draft) {
      timelines.delete(draft);
    },
  };
};
