/**
 * The turn: everything the acts read from one cue, prepared once. What kind of meeting this is,
 * the persona's voice and material, whom they speak to, and the words they may pick up: the last
 * speaker's and the trainee's key phrases, seen from the speaker's side.
 */
import { memoizeByIdentity } from '../../../engine/memo';
import type { Cue } from '../../../engine/requests';
import type { Rng } from '../../../../shared/rng';
import { agendaItem } from './goals';
import { gather, type Gathered } from './material';
import { keyPhrases, topicRef } from './phrases';
import { voiceOf, type Voice } from './voice';
import { contentWords, properNouns, tokens } from './words';

/** What kind of conversation this is: which frames fit it. */
export type Kind = 'social' | 'investigative' | 'deliberative' | 'talk' | 'interview';

const kindPatterns: [Kind, RegExp][] = [
  ['investigative', /\b(killed|kill|murder\w*|death|dead|crime|detective|suspects?|alibis?|mystery|culprit)\b/i],
  ['interview', /\b(interview\w*|hiring|candidate)\b/i],
  ['social', /\b(lunch|dinner party|party|small talk|strangers|networking|getting to know|mingl\w*|drinks|reception)\b/i],
  ['talk', /\b(q&a|questions after|poster|talk|presentation|seminar|lecture|panel)\b/i],
  ['deliberative', /\b(decid\w*|decision|plan|planning|launch|release|stand-?up|deadline|budget|ready|approve|roadmap|priorit\w*|ship|date|sprint|review|rating|critique|retro\w*)\b/i],
];

const kindOfForm: Record<string, Kind> = {
  interview: 'interview',
  qa: 'talk',
  poster: 'talk',
  standup: 'deliberative',
  critique: 'deliberative',
  review: 'deliberative',
  retro: 'deliberative',
  discussion: 'deliberative',
  investigation: 'investigative',
  social: 'social',
};

/** The scene's declared form decides; else the topic; else the snippet goal. */
const kindOf = (cue: Cue): Kind =>
  (cue.role.form ? kindOfForm[cue.role.form] : undefined) ??
  kindPatterns.find(([, pattern]) => pattern.test(cue.topic))?.[0] ??
  kindPatterns.find(([, pattern]) => pattern.test(cue.snippet.goal))?.[0] ??
  'talk';

/** Someone's words, to pick up (what they said, as the scripted generator reads it). */
export interface Said {
  id: string;
  shortName: string;
  text: string;
  /** Key noun phrases, said back to them ("my redesign" as "your redesign"). */
  phrases: readonly string[];
  words: ReadonlySet<string>;
}

export interface Turn {
  cue: Cue;
  rng: Rng;
  kind: Kind;
  voice: Voice;
  /** Lower-case name words of everyone in the scene: never a phrase to pick up. */
  names: ReadonlySet<string>;
  gathered: Gathered;
  /** The addressee's short name. */
  name?: string;
  /** The last message, when someone else said it. */
  last: Said | null;
  /** The trainee's (or a simulated human's) last words, when someone else said them. */
  human: Said | null;
  /** What the speaker was asked, when they owe an answer. */
  asked: Said | null;
  topic?: string;
  agenda?: string;
  /** Names and other words written with a capital mid-sentence in the scene: never lowered. */
  proper: Set<string>;
}

/** A drift off the subject ("this reminds me of the game last night"): nothing in it to pick up. */
const drift = /\b(reminds me of|off topic|totally unrelated|random thought|completely different subject|on my mind all day)\b/i;

const heard = (who: { id: string; shortName: string; text: string } | null | undefined, cue: Cue, names: ReadonlySet<string>): Said | null => {
  if (!who || who.id === cue.speaker.id || !who.text.trim()) return null;
  // Said to the person who said it, their "my" is "your"; said to someone else, "the".
  const perspective = cue.addressee?.id === who.id || cue.obligation?.from === who.id ? 'speaker' : 'other';
  return { ...who, phrases: drift.test(who.text) ? [] : keyPhrases(who.text, names, perspective), words: contentWords(who.text) };
};

/** The name words of a room, once per participant list (the engine gives a session's cues one list). */
const nameWordsOf = memoizeByIdentity((participants: Cue['participants']): ReadonlySet<string> => new Set(participants.flatMap((p) => tokens(`${p.name} ${p.shortName}`))));

export const prepare = (cue: Cue, rng: Rng): Turn => {
  const names = nameWordsOf(cue.participants);
  const last = cue.lastMessage ? heard({ id: cue.lastMessage.speaker, shortName: cue.lastMessage.shortName, text: cue.lastMessage.text }, cue, names) : null;
  const human = heard(cue.human, cue, names);
  const asked = cue.obligation ? heard({ id: cue.obligation.from, shortName: cue.obligation.fromShortName, text: cue.obligation.text }, cue, names) : null;
  const topic = topicRef(cue.topic);
  const proper = properNouns([cue.context, cue.topic, cue.speaker.backstory ?? '', ...cue.bank.questions, ...cue.bank.points, ...cue.facts]);
  for (const n of names) proper.add(n);
  const agenda = agendaItem(cue);
  return {
    cue,
    rng,
    kind: kindOf(cue),
    voice: voiceOf(cue),
    names,
    gathered: gather(cue, rng, names),
    ...(cue.addressee ? { name: cue.addressee.shortName } : {}),
    last,
    human,
    asked,
    ...(topic ? { topic } : {}),
    ...(agenda ? { agenda } : {}),
    proper,
  };
};

/** The participant's full name, as the designation detector spells it. */
export const fullName = (cue: Cue, id: string | undefined): string | null => (id ? (cue.participants.find((p) => p.id === id)?.name ?? null) : null);
