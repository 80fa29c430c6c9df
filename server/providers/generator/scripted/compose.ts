/**
 * Composing a line from parts, so that lines open in many ways: an optional discourse marker in
 * the persona's voice ("Frankly,"), the addressee's name in front, at the end or after the marker,
 * and a frame around the content. Frames are data: `{x}` is a noun phrase picked up from what
 * was said, and a frame whose slot has no value is not drawn.
 */
import type { Rng } from '../../../../shared/rng';
import type { Turn } from './turn';
import { capitalise, clause, lowerFirst, question, sentence } from './words';

/** Fills `{x}` (and any other slot) in a frame; undefined when a slot has no value. */
export const fill = (frame: string, slots: Record<string, string | undefined>): string | undefined => {
  let missing = false;
  const text = frame.replace(/\{(\w+)\}/g, (_, key: string) => {
    const value = slots[key];
    if (!value) missing = true;
    return value ?? '';
  });
  return missing ? undefined : text;
};

export const shuffled = <T>(items: readonly T[], rng: Rng): T[] => {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
};

/** A marker from the persona's voice, or none, by chance. */
export const marker = (turn: Turn, chance = 0.35): string | undefined => (turn.rng.chance(chance) ? turn.rng.pick(turn.voice.markers) : undefined);

/** Prefixes a marker: "Frankly, the cron job is older than me." ("Hmm." stays a sentence of its own). */
export const withMarker = (text: string, mark: string | undefined, proper?: ReadonlySet<string>): string => {
  // A line that opens with a marker of its own ("Hmm, ...", "So, ...") takes no second one.
  if (!mark || opensWithMarker.test(text)) return capitalise(text);
  return /[.!]$/.test(mark) ? `${mark} ${capitalise(text)}` : `${mark} ${lowerFirst(text, proper)}`;
};

const opensWithMarker = /^(hmm|well|so|right|oh|yes|honestly|actually|okay|look|frankly|sorry|um|now|indeed|plainly|ha|wait|hold on|hang on)\b[,.!]?/i;

export type Placement = 'front' | 'end' | 'none';

/**
 * A sentence said to `name`: in front ("Alex, the cron job ..."), at the end ("..., Alex.") or not
 * at all. `ask` ends it with a question mark.
 */
export const toName = (core: string, name: string | undefined, placement: Placement, ask = false): string => {
  const body = clause(core);
  const end = ask ? '?' : '.';
  if (!name || placement === 'none') return ask ? question(body) : sentence(body);
  if (placement === 'front') return `${name}, ${lowerFirst(body)}${end}`;
  return `${capitalise(body)}, ${name}${end}`;
};

export const placement = (rng: Rng, allowNone: boolean): Placement => {
  const draw = rng.next();
  return draw < 0.45 ? 'front' : draw < 0.85 || !allowNone ? 'end' : 'none';
};

/** Joins sentences into a line. */
export const line = (...parts: (string | undefined | null | false)[]): string => parts.filter((p): p is string => !!p && !!p.trim()).join(' ');
