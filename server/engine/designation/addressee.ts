/**
 * Stage 5 of detectDesignation (index.ts): whom a first pair part addresses. MMAgents §3.2.4
 * "estimates the agent addressed": a name the part designates ("over to Cleo", "my question is for
 * Jules"), else the vocative attached to it (vocatives.ts), else a group (which selects nobody:
 * the turn is open to self-selection, Sacks et al.'s rule 2), else "you", meaning the previous
 * speaker.
 *
 *   addressee(t, { pair: 'question', unit: 0, clause: 0, at: 0 }, 'Omar'); // "What do you think?" → 'Omar'
 */
import type { PairType } from '../../../shared/events';
import { isName, type ParsedUtterance, type Span, textOf, type Unit, wordAt } from './tokens';
import { AUX, PLURAL_YOU, POINTED, SINGULAR_YOU } from './pair-rules';
import { isAddressOnly, isBare, selected, vocativesOf } from './vocatives';
import type { FirstPairPart } from './first-pair-part';

const POINTED_AT = new RegExp(`^${POINTED}`);
const PLURAL_YOU_ANYWHERE = new RegExp(`\\b${PLURAL_YOU}\\b`, 'g');
/**
 * Said to everyone: "does anybody ...", "are there any ...", "who wants ...". Selects nobody. Not "who's
 * doing the images?", which asks after a task already in hand (of the one who just spoke about it).
 */
const GROUP_CUE = new RegExp(
  `\\b(?:${PLURAL_YOU}|everyone|everybody|anyone|anybody|someone|somebody|guys|folks|ladies and gentlemen|(?:hi|hello|hey|morning|thanks|thank you|welcome|bye) all|any (?:more |other |further |last |final )?(?:questions|thoughts|comments|objections|concerns|ideas|feedback|takers|volunteers|suggestions|reactions|input|corrections|amendments|additions|announcements|blockers|other business|last words|final words)|next (?:question|questions|speaker|caller|person|hand)|a todos|tout le monde|(?:is|are|was|were) there(?= (?:any|anyone|anybody|anything|someone|somebody|something|other|more|further|people|volunteers?|questions?|comments?|objections?)\b)|who(?:s| is| wants| has| knows| needs| can| could| will| would| else| here)\\b(?! (?:${AUX} )?(?:you|u)\\b)(?<!\\bwho(?:s| is)(?= (?!going\\b)\\w+ing (?:the|it|that|this|these|those|them|our|their|his|her)\\b)))`,
);

const designees: ReadonlyArray<{ pairs: readonly PairType[]; re: RegExp }> = [
  {
    pairs: ['invitation'],
    re: /\b(?:(?:over|back) to|hear (?:more )?from|hear what|(?:start|begin|kick off|continue|go) with|(?:hand|pass|turn)(?: it| things| the floor)?(?: over| back)? to|next (?:up )?(?:is |will be )?)(?: )?(qq[np]\d+)|\b(qqn\d+) (?:is|s|will be) (?:up|next)|\b(qqp\d+) turn/g,
  },
  {
    pairs: ['question', 'request', 'offer', 'invitation'],
    re: /\b(?:question|one|this|that|these) (?:is |s |are )?for (qqn\d+)|\b(?:let me|i want to|i wanted to|id like to|i would like to|i wanna|ill|i will|im going to|im gonna|can i|may i|could i|allow me to|i need to|i have to) ask (qqn\d+)/g,
  },
  { pairs: ['request'], re: /\b(?:need|want|like|love) (qqn\d+) to\b/g },
];

/** Names the first pair part designates without a vocative: "over to Cleo", "my question is for Jules". */
const designeesOf = (t: ParsedUtterance, u: Unit, pair: PairType): number[] => {
  const text = textOf(t, u.from, u.to);
  const out: number[] = [];
  for (const { pairs, re } of designees) {
    if (!pairs.includes(pair)) continue;
    for (const m of text.matchAll(re)) {
      const token = m.slice(1).find(Boolean);
      if (token) out.push(Number(token.slice(3)));
    }
  }
  // "My question is for Jules:" with the colon that announces the question.
  for (let i = u.from + 1; i < u.to; i++) if (wordAt(t, i - 1) === 'for' && isName(t, i) && t.words[i]?.punct.includes(':')) out.push(i);
  return out;
};

export const addressee = (t: ParsedUtterance, fpp: FirstPairPart, previous: string | null): string | null => {
  const u = t.units[fpp.unit];
  if (!u) return null;
  // "I have one question for Nadia. Why did we switch vendors?": the announcement designates.
  // "I wanted to ask Ahmed something, is he still there?" asks about him, so not him.
  const aboutThem = /\b(?:is|was|does|did|has|can|could|will|would|isnt|wasnt|doesnt|didnt|hasnt) (?:he|she|they)\b/.test(textOf(t, fpp.at, u.to));
  for (let k = fpp.unit; k >= 0 && !aboutThem; k--) {
    const fixed = designeesOf(t, t.units[k] ?? u, fpp.pair);
    if (fixed.length > 0) return selected(t, fixed.map((i) => ({ i, clause: fpp.clause, thanked: false }))) ?? null;
  }

  // MMAgents §3.2.4 "estimates the agent addressed": the vocative attached to the first pair part
  // wins ("Thanks, Cleo. Ada, would you like to go next?" selects Ada), then any vocative of its sentence.
  const all = vocativesOf(t, u);
  let from = fpp.clause;
  while (from > 0 && u.clauses[from - 1] && isAddressOnly(t, u.clauses[from - 1] as Span)) from--;
  let to = fpp.clause;
  while (u.clauses[to + 1] && isAddressOnly(t, u.clauses[to + 1] as Span)) to++;
  const own = selected(t, all.filter((v) => v.clause >= from && v.clause <= to));
  if (own !== undefined) return own;
  const inSentence = selected(t, all);
  if (inSentence !== undefined) return inSentence;

  const text = textOf(t, u.from, u.to);
  const youSingular = SINGULAR_YOU.test(text.replace(PLURAL_YOU_ANYWHERE, ''));
  const tail = textOf(t, fpp.at, u.to);
  if (!youSingular && GROUP_CUE.test(text)) return null;

  // "What do you think? Ben?": a bare vocative right after, else the last one addressed before.
  const after = t.units[fpp.unit + 1];
  if (after && isBare(t, after)) {
    const bare = selected(t, vocativesOf(t, after));
    if (bare !== undefined) return bare;
  }
  for (let k = fpp.unit - 1; k >= 0; k--) {
    const before = t.units[k];
    const v = before ? selected(t, vocativesOf(t, before)) : undefined;
    if (v !== undefined) return v;
  }
  for (let k = fpp.unit + 1; k < t.units.length; k++) {
    const later = t.units[k];
    const v = later ? selected(t, vocativesOf(t, later)) : undefined;
    if (v !== undefined) return v;
  }

  // No name: "you" is the previous speaker (the one the turn responds to). A question about a third
  // person ("What did Omar say?") is put to the previous speaker too; a stated offer without "you"
  // ("I'm happy to take notes") is to the room.
  // "Yes, you in the blue shirt." points at someone who is not in the room's list.
  if (fpp.pair === 'invitation' && POINTED_AT.test(tail)) return null;
  switch (fpp.pair) {
    case 'offer':
      return youSingular || u.asked || /^(?:shall|should|can|could|may|would|do|did|will|want|wanna|need|how|what)\b/.test(tail)
        ? previous
        : null;
    default:
      return previous;
  }
};
