/**
 * Names, or group words, that address rather than mention: "Ben, what ..." calls Ben; "I told
 * Ben" does not. A vocative attached to a first pair part is how its speaker selects the next
 * (Sacks et al.'s rule 1, MMAgents §2.2, §3.2.4 "estimates the agent addressed"); the first pair
 * part (first-pair-part.ts) skips them as its lead, and the addressee (addressee.ts) reads them.
 *
 *   vocativesOf(t, t.units[0]); // for "Ben, what do you think?": [{ i: 0, clause: 0, thanked: false }]
 *   selected(t, vocatives); // 'Ben', or null when several or a group are called
 */
import { ADDRESS_ONLY, ADDRESS_WORDS, AUX_WORDS, BARE_ONLY, BLOCKERS, INVERTED_SUBJECTS, MARKERS, PREDICATE_ENDS, THANKS_FILLER, THANKS_WORDS, TRAILING_ADVERBS, VOCATIVE_NEXT, WH_WORDS, words } from './lexicon';
import { isName, isVocativeWord, type ParsedUtterance, type Span, textOf, type Unit, wordAt } from './tokens';
import { GREETING, IMPERATIVE } from './pair-rules';

interface Vocative {
  readonly i: number;
  readonly clause: number;
  /** Right after "thanks": the one thanked for the last turn, not necessarily the one asked next. */
  readonly thanked: boolean;
}

/** Index after a chain of vocative words joined by "and" ("Ben and Cleo"), or `from` when there is none. */
export const chainEnd = (t: ParsedUtterance, from: number, to: number): number => {
  let k = from;
  while (k < to && isVocativeWord(t, k)) {
    k++;
    if (k + 1 < to && (wordAt(t, k) === 'and' || wordAt(t, k) === '&') && isVocativeWord(t, k + 1)) k++;
  }
  return k;
};

/** Whether what follows a name at `k` shows the name addresses someone: "Ben, what ...", "ben can you ...". */
export const addressesNext = (t: ParsedUtterance, k: number, to: number, asked: boolean): boolean => {
  if (k >= to) return true;
  const next = wordAt(t, k);
  if (VOCATIVE_NEXT.has(next)) return true;
  if (AUX_WORDS.has(next)) {
    const after = wordAt(t, k + 1);
    // "Ben can you ..." addresses Ben; "Ben can share his screen" talks about him.
    if (ADDRESS_WORDS.has(after)) return true;
    if (IMPERATIVE.test(textOf(t, k, to))) return true;
    if (!INVERTED_SUBJECTS.has(after)) return false;
    // "mr dube is there a tutoring programme": an existential question asks.
    if (/^(?:is|are|was|were)$/.test(next) && after === 'there' && THERE_ASKED.has(wordAt(t, k + 2))) return true;
    // "tariq is the budget approved" asks Tariq; "Quinn is the lead" talks about Quinn.
    const end = TRAILING_ADVERBS.has(wordAt(t, to - 1)) ? to - 1 : to;
    if (asked || PREDICATE_ENDS.has(wordAt(t, end - 1)) || (wordAt(t, end - 2) === 'or' && wordAt(t, end - 1) === 'not')) return true;
    // "kwabena was that your change": a demonstrative right after the auxiliary only inverts.
    if (/^(?:that|this|it)$/.test(after) && k + 2 < end && !/^(?:is|was|s)$/.test(wordAt(t, k + 2))) return true;
    // "bill is the contract six months or twelve": offering alternatives asks.
    for (let j = k + 2; j < end - 1; j++) if (wordAt(t, j) === 'or') return true;
    // "vic did your team see anything in the logs": "do" or a modal, a subject, then the bare verb
    // the auxiliary inverts ("Vic did your taxes", "Omar did the sign off" stay statements).
    if (/^(?:do|does|did|can|could|will|would|should)$/.test(next) && after !== 'there') {
      for (let j = k + 3; j < Math.min(end, k + 6); j++) {
        if (BASE_VERBS.has(wordAt(t, j)) && !INVERTED_SUBJECTS.has(wordAt(t, j - 1)) && !/^(?:a|an|to)$/.test(wordAt(t, j - 1))) return true;
      }
    }
    return false;
  }
  return IMPERATIVE.test(textOf(t, k, to)) || GREETING.test(textOf(t, k, to));
};

/** Bare verbs that follow an inverted subject: "did your team see ...", "can the vendor deliver ...". */
const BASE_VERBS = words(`see know get go come happen work say think want need like look hear find make take give send finish
  start end pass fail break change arrive show reply respond sign approve agree mention ask call fix run help cover include ship
  move update load crash build deploy merge match cost check notice catch deliver handle support cope manage reach meet hit
  fit scale improve increase drop slip land close open launch go out come back get back turn out mean matter`);

const THERE_ASKED = words('a an any anything anyone anybody some someone somebody something another enough room time way space');

const thankedAt = (t: ParsedUtterance, i: number): boolean => {
  for (let j = i - 1, steps = 0; j >= 0 && steps < 4; j--, steps++) {
    const w = wordAt(t, j);
    if (THANKS_WORDS.has(w)) return true;
    if (!THANKS_FILLER.has(w)) return false;
  }
  return false;
};

export const isAddressOnly = (t: ParsedUtterance, c: Span): boolean => {
  let vocatives = 0;
  for (let i = c.from; i < c.to; i++) {
    if (isVocativeWord(t, i)) vocatives++;
    else if (!ADDRESS_ONLY.has(wordAt(t, i)) && wordAt(t, i) !== '&') return false;
  }
  return vocatives > 0;
};

export const isBare = (t: ParsedUtterance, u: Span): boolean => {
  let vocatives = 0;
  for (let i = u.from; i < u.to; i++) {
    if (isName(t, i)) vocatives++;
    else if (!BARE_ONLY.has(wordAt(t, i))) return false;
  }
  return vocatives > 0;
};

/** Words after which a name is said to its bearer: "hi mr halloran", "morning everyone". */
const GREET_WORDS = words('hi hello hey heya hiya morning afternoon evening welcome bye goodbye night');
/** Verbs that take a person and then a question: "ask Omar what ...", "tell Pia where ...". */
const ASKING_VERBS = words('ask asked asking tell told telling show showed remind reminded');
/** Breakers after which a name may be called mid-clause: "... but professor can I push back". */
const CALL_BREAKERS = words('but so then okay ok well now anyway anyways also alright actually um uh erm sorry right yeah yes');

/**
 * Whether the words before a name at `i` leave it free to be a vocative: it starts the clause, or
 * only markers precede it ("and sergei you're ..."), or it follows a breaker in run-on speech
 * ("... mostly but professor can i ..."), or no word ties it into the sentence. A preposition before
 * it does not when a question follows ("before i dive in chase what are the ...").
 */
export const freeBefore = (t: ParsedUtterance, from: number, i: number, end: number, to: number): boolean => {
  if (i === from) return true;
  const before = wordAt(t, i - 1);
  if (!BLOCKERS.has(before)) return true;
  // "... this week if you want amara": a name after the condition that closes an offer.
  if (end === to && /^if (?:you|u) (?:want|like|need|prefer|wish)$/.test(textOf(t, Math.max(from, i - 3), i))) return true;
  let k = from;
  while (k < i && MARKERS.has(wordAt(t, k))) k++;
  if (k === i) return true;
  if (CALL_BREAKERS.has(before) && !isVocativeWord(t, i - 2) && end < to && AUX_WORDS.has(wordAt(t, end)) && ADDRESS_WORDS.has(wordAt(t, end + 1))) return true;
  return WH_WORDS.has(wordAt(t, end)) && AUX_WORDS.has(wordAt(t, end + 1)) && !ASKING_VERBS.has(before) && !AUX_WORDS.has(before);
};

const NEW_SUBJECTS = words('the my our we this these those thats theres there were weve hes shes theyre he she they');
const leadIn = (t: ParsedUtterance, from: number, to: number): boolean => {
  for (let k = from; k < to; k++) if (!MARKERS.has(wordAt(t, k))) return false;
  return true;
};

/** Every vocative in a sentence, with the clause it sits in. */
export const vocativesOf = (t: ParsedUtterance, u: Unit): Vocative[] => {
  const found: Vocative[] = [];
  const add = (i: number, clause: number): void => {
    if (found.some((v) => v.i === i) || wordAt(t, i) === 'and' || wordAt(t, i) === '&') return;
    found.push({ i, clause, thanked: thankedAt(t, i) });
  };
  u.clauses.forEach((c, clause) => {
    for (let i = c.from; i < c.to; i++) if (t.words[i]?.at && isName(t, i)) add(i, clause);
    if (isAddressOnly(t, c)) {
      for (let i = c.from; i < c.to; i++) if (isVocativeWord(t, i)) add(i, clause);
      return;
    }
    for (let i = c.from; i < c.to; i++) {
      if (!isVocativeWord(t, i) || (i > c.from && isVocativeWord(t, i - 1))) continue;
      const end = chainEnd(t, i, c.to);
      const free = freeBefore(t, c.from, i, end, c.to);
      // At the clause end ("what do you think ben") or before a first pair part ("ben what ...").
      const atEnd = end === c.to && i > c.from;
      const greeted = GREET_WORDS.has(wordAt(t, i - 1)) && isName(t, i);
      // "doctor kobayashi the family want ...": a name that opens the turn, followed by a new subject, calls.
      const opening = u.from === 0 && c.from === 0 && leadIn(t, 0, i) && NEW_SUBJECTS.has(wordAt(t, end)) && !t.words[end - 1]?.punct;
      if (greeted || opening || (free && (atEnd || addressesNext(t, end, c.to, u.asked)))) for (let k = i; k < end; k++) add(k, clause);
      i = end - 1;
    }
  });
  return found;
};

/** The one participant a set of vocatives selects: undefined for an empty set, null for several, a group, or an ambiguous name. */
export const selected = (t: ParsedUtterance, vocatives: readonly Vocative[]): string | null | undefined => {
  if (vocatives.length === 0) return undefined;
  const preferred = vocatives.some((v) => !v.thanked) ? vocatives.filter((v) => !v.thanked) : vocatives;
  const named = new Set<string>();
  for (const v of preferred) {
    const name = t.words[v.i]?.name;
    if (name === undefined || name === null) return null;
    named.add(name);
  }
  return named.size === 1 ? ([...named][0] ?? null) : null;
};
