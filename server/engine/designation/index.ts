/**
 * detectDesignation: does an utterance open an adjacency pair, of which type, and whom does it
 * select to speak next?
 *
 * MMAgents §3.2.4 asks an LLM this after every turn. This is a fast local detector (well under a
 * millisecond) so the pure engine can apply Sacks et al.'s "current speaker selects next" rule
 * (MMAgents §2.2, rule 1) on every utterance, in the simulator, the live room and the browser.
 *
 *   detectDesignation({ participants: ['Nora', 'Omar'], speaker: 'Nora', text: 'Omar, what did the client say?' })
 *   // → { next: 'Omar', pair: 'question' }
 *
 * Pipeline, top to bottom, a file per stage (this file runs them):
 *   1. names.ts: every way each participant may be called (lexicon.ts folds names and text alike);
 *   2. tokens.ts: the text as words, names collapsed into tokens, split into sentences and clauses;
 *   3. pair-rules.ts: what a first pair part looks like, clause by clause;
 *   4. first-pair-part.ts: the turn's last first pair part (the obligation usually sits in the last
 *      question or request of a turn), read from the last sentence back;
 *   5. addressee.ts: whom that part addresses: a vocative (vocatives.ts), else a group (which
 *      selects nobody), else "you", meaning the previous speaker.
 * A turn with no first pair part may still oblige someone it calls or names (below).
 */
import type { PairType } from '../../../shared/events';
import { memoize } from '../memo';
import { APOSTROPHES, fold } from './lexicon';
import { nameIndexFor } from './names';
import { parseUtterance, wordAt } from './tokens';
import { isBare, selected, vocativesOf } from './vocatives';
import { type FirstPairPart, unitPair } from './first-pair-part';
import { addressee } from './addressee';

export interface DesignationInput {
  /** Display names as given, e.g. "Nora", "Alexandra Kim", "Dr. Priya Raman". */
  participants: readonly string[];
  speaker: string;
  previousSpeaker?: string | null;
  text: string;
}

export interface Designation {
  /** The participant obliged to speak next, spelled exactly as in `participants`; null when nobody is selected. */
  next: string | null;
  pair: PairType;
}

const NONE: Designation = { next: null, pair: 'none' };

/**
 * Detects whether `text` is a first pair part (question, request, offer, greeting, invitation)
 * and which participant it selects as next speaker. Pure and deterministic.
 */
export const detectDesignation = (input: DesignationInput): Designation =>
  detectRemembered([input.participants.join('\u0000'), input.speaker, input.previousSpeaker ?? '', input.text].join('\u0001'));

// A generated line is read when it is drafted and again when it is said: one reading serves both.
const detectRemembered = memoize((key: string): Designation => {
  // The text comes last and may hold any character: only the first three separators split.
  const [participants, speaker, previousSpeaker] = key.split('\u0001', 3) as [string, string, string];
  const text = key.slice(participants.length + speaker.length + previousSpeaker.length + 3);
  return Object.freeze(detect({ participants: participants ? participants.split('\u0000') : [], speaker, previousSpeaker: previousSpeaker || null, text }));
}, 1024);

/**
 * MMAgents: naming someone obliges them even without a question. A turn that opens by calling one
 * person and goes on to talk to "you" ("Masato, I saw you near the lounge last night") invites
 * their reply; a third-person designation ("Takeshi should tell us what he saw", "Yukiko would
 * know") asks them to speak. Only when one participant, not the speaker, is so named.
 */
const namedObligation = (input: DesignationInput): Designation | null => {
  const speaker = fold(input.speaker);
  const text = fold(input.text.replace(APOSTROPHES, "'").trim());
  const hits: Designation[] = [];
  for (const name of input.participants) {
    const { folded, vocative, third, knows } = obligationPatterns(name);
    if (folded === speaker) continue;
    if (vocative.test(text)) hits.push({ next: name, pair: 'invitation' });
    else if (third.test(text)) hits.push({ next: name, pair: 'request' });
    else if (knows.test(text)) hits.push({ next: name, pair: 'invitation' });
  }
  return hits.length === 1 ? hits[0]! : null;
};

// A room keeps its names for the whole session: each name's patterns are compiled once, not per line read.
const obligationPatterns = memoize((name: string) => {
  const forms = [...new Set([name, name.split(/\s+/)[0]!])].map((n) => escapeName(fold(n))).join('|');
  return {
    folded: fold(name),
    vocative: new RegExp(`^(?:(?:so|well|now|and|okay|ok|right|look|listen|honestly)[, ]+)?(?:${forms}),(?=[^.?!]*\\b(?:you|your|youre|youve|youd|yourself)\\b)`),
    third: new RegExp(`\\b(?:${forms}) (?:(?:should|must|could|can|might|may) (?:probably |really |maybe )?|needs to |has to |ought to |(?:might|may) want to )(?:tell|explain|answer|say|share|walk|describe|clarify|show|confirm|speak|fill|talk|give|comment|weigh|account)\\b`),
    knows: new RegExp(`\\b(?:${forms}) (?:would know|knows (?:more|best|the answer)|can answer that|is the one to ask)\\b`),
  };
}, 1024);

const escapeName = (name: string): string => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const detect = (input: DesignationInput): Designation => {
  const speaker = fold(input.speaker);
  const t = parseUtterance(input.text, nameIndexFor(input.participants), speaker);
  if (t.words.length === 0) return NONE;

  // The obligation sits in the turn's last first pair part (a bare "Ben?" only points at someone):
  // read from the end, the sentences before it need no reading.
  let found: FirstPairPart | null = null;
  for (let unit = t.units.length - 1; unit >= 0 && !found; unit--) {
    const u = t.units[unit]!;
    if (!isBare(t, u)) found = unitPair(t, u, unit);
  }
  const prev = input.previousSpeaker;
  const previous = prev && input.participants.includes(prev) && fold(prev) !== speaker ? prev : null;

  if (!found) {
    // A turn that ends by calling someone ("Ben?", "Yes, Daniel.") hands them the floor; a call
    // followed by more talk ("Nonna! We've been dating for three months.") only exclaims.
    const last = t.units[t.units.length - 1];
    const called =
      last && isBare(t, last) && (/[?!]/.test(t.words[last.to - 1]?.punct ?? '') || wordAt(t, last.from) === 'yes') ? last : undefined;
    const next = called ? selected(t, vocativesOf(t, called)) : undefined;
    return next ? { next, pair: 'invitation' } : (namedObligation(input) ?? NONE);
  }
  const next = addressee(t, found, previous);
  // Never the speaker, even when two participants' names fold to the same spelling.
  return { next: next !== null && fold(next) !== speaker ? next : null, pair: found.pair };
};
