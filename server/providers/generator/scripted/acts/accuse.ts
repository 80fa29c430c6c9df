/**
 * Naming a suspect. In the part of an investigation whose goal is to name one ("the detective lays
 * out the timeline and names a suspect"), whoever asks the questions names, once, the person that
 * what the room has heard points at most, to their face, with what was said about them, and asks
 * them to answer it. The accused then defends themself (respond.ts), as any persona accused does.
 *
 * ```ts
 * accuse(turn);
 * // 'Elena, I think it was you. Agnes told us: "At quarter past ten, Dr. Marsh asked me to rinse
 * //  the port decanter." And Rupert: "…I passed Elena in the hallway carrying the port tray…".
 * //  What do you say to that?'
 * ```
 */
import { accusation } from '../../../../engine/understanding';
import { shuffled } from '../compose';
import { firstNovel } from '../novel';
import type { Turn } from '../turn';
import { escapeRegExp } from '../words';

/** A part whose goal is to name someone: "names a suspect", "the accusation", "the culprit". */
const naming = /\b(names?|naming|accus\w*|culprit|the killer|who did it)\b/i;

/** Whether this turn is the asker's moment to name a suspect: an investigation's naming part, nobody named by them yet, no answer owed. */
export const accusationDue = (turn: Turn): boolean =>
  turn.kind === 'investigative' &&
  turn.cue.role.part === 'asker' &&
  !turn.cue.obligation &&
  naming.test(turn.cue.snippet.goal) &&
  !turn.cue.said.some((s) => accusation.test(s));

/**
 * A person named as someone who did something: their short name, or a title and their surname
 * ("Dr. Marsh"; a bare surname may be a relative's), before what they did or after who saw them
 * ("Elena in the hallway", "Dr. Marsh asked me", "passed Elena"); not their name said to them.
 */
const calledBy = (name: string, shortName: string): RegExp => {
  const parts = name.split(/\s+/);
  const title = /^(Dr|Mr|Mrs|Ms|Prof)\.?$/.test(parts[0]!) ? parts[0]!.replace(/\.?$/, '.') : undefined;
  const forms = [shortName, ...(title && parts.length > 1 ? [`${title} ${parts.at(-1)}`] : [])].map(escapeRegExp).join('|');
  const did = '(?:was|went|took|asked|told|said|had|left|came|carried|carrying|holding|in|with|at|on|by|near|argued|saw|got|put|washed|signed|did|is|has|wanted|knew|needed|gave|brought)';
  return new RegExp(`\\b(?:${forms})\\s+${did}\\b|\\b(?:saw|passed|met|heard|with|behind|followed|asked)\\s+(?:${forms})\\b`);
};

/**
 * What a line says about someone, as it can be quoted: a statement that names them (not a question
 * put to them, not their name said to them), without the vocative it began with, cut at a clause
 * before the summary's ellipsis.
 */
const testimony = (text: string, pattern: RegExp): string | undefined => {
  if (text.includes('?')) return undefined;
  let said = text.trim().replace(/^\W*(?:[A-Z][\w.'’-]*,\s*)+/, '');
  if (said.endsWith('…')) {
    // The summary cut it short: end it at a phrase boundary after the name, three words on at least.
    const words = said.slice(0, -1).split(/\s+/);
    const at = words.findLastIndex((w) => pattern.test(w));
    if (at < 0) return undefined;
    let cut = words.findIndex((w, i) => i >= at + 3 && (/^(and|but|carrying|holding|with|to|toward|towards|as|while|when|because)$/i.test(w) || /,$/.test(words[i - 1]!)));
    if (cut < 0) cut = words.length - 1;
    const kept = words.slice(0, cut);
    while (kept.length && /^(the|a|an|of|in|on|at|to|and|but|with|her|his|their|my)$/i.test(kept.at(-1)!)) kept.pop();
    said = kept.join(' ');
  }
  said = said.replace(/[,;:\s]+$/, '');
  if (!pattern.test(said) || said.split(/\s+/).length < 6) return undefined;
  return `${said.charAt(0).toUpperCase()}${said.slice(1)}${/[.!]$/.test(said) ? '' : '.'}`;
};

const openings = ['{name}, I think it was you.', '{name}, I believe you did this.', 'It was you, {name}.'];
const closings = ['What do you say to that?', 'Can you explain that?', 'How do you answer that, {name}?'];

export const accuse = (turn: Turn): string | undefined => {
  const { cue, rng } = turn;
  // What each person said last on each sub-topic (MUCA's accumulative summary), and the line just said.
  const heard = [...cue.topics.summary.flatMap((s) => s.points), ...(cue.lastMessage ? [{ who: cue.lastMessage.shortName, text: cue.lastMessage.text }] : [])].filter(
    (p) => p.who !== cue.speaker.shortName,
  );
  let best: { id: string; shortName: string; against: { who: string; text: string }[] } | undefined;
  for (const p of cue.participants) {
    if (p.id === cue.speaker.id || p.kind !== 'ai') continue;
    const pattern = calledBy(p.name, p.shortName);
    // What others said that names them; not what they said of themselves.
    const against = heard
      .filter((h) => h.who !== p.shortName)
      .map((h) => ({ who: h.who, text: testimony(h.text, pattern) }))
      .filter((h): h is { who: string; text: string } => !!h.text)
      .filter((h, i, all) => all.findIndex((o) => o.text === h.text) === i);
    const witnesses = new Set(against.map((h) => h.who)).size;
    if (against.length && (!best || witnesses > new Set(best.against.map((h) => h.who)).size)) best = { id: p.id, shortName: p.shortName, against };
  }
  // Nothing heard points anywhere: whoever the turn is put to is named, and asked to explain themself.
  const addressee = cue.participants.find((p) => p.id === cue.addressee?.id && p.kind === 'ai');
  if (!best && !addressee) return undefined;
  const suspect = best ?? { id: addressee!.id, shortName: addressee!.shortName, against: [] };
  const evidence = suspect.against.filter((h, i, all) => all.findIndex((o) => o.who === h.who) === i).slice(0, 2);
  const quoted = (h: { who: string; text: string }, i: number): string => `${i === 0 ? `${h.who} told us` : `And ${h.who}`}: "${h.text.trim()}"`;
  function* drafts(): Generator<string> {
    for (const opening of shuffled(openings, rng)) {
      const closing = rng.pick(closings);
      const lead = evidence.length ? [] : [rng.pick(["I've heard enough to say it.", 'Let me lay it out.', 'Here is where I have landed.'])];
      yield [...lead, opening, ...evidence.map(quoted), closing].join(' ').replace(/\{name\}/g, suspect.shortName);
    }
  }
  return firstNovel(turn, drafts(), 'ask');
};
