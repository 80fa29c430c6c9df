/**
 * Responding to what a human did with a question or said to the room: saying a question again
 * when asked (more simply the second time), saying what it meant, pressing a dodged or
 * half-answered one once, and taking up a human's line before the turn's own act. The engine's
 * dialogue state (engine/dialogue.ts) says which of these a turn is for (`cue.dialogue.task`).
 */
import type { Task } from '../../../../engine/dialogue';
import { accusation, heated, understand, type QuestionType } from '../../../../engine/understanding';
import { fill, line, shuffled } from '../compose';
import { firstNovel } from '../novel';
import { keyPhrases } from '../phrases';
import type { Turn } from '../turn';
import { capitalise, lowerFirst } from '../words';

/** A question without a vocative or an interjection in front ("Alex, which number…", "Sorry, which number…" are "which number…"), as one sentence. */
const unnamed = (turn: Turn, text: string): string =>
  text
    .replace(/^\W*(?:sorry|right|okay|ok|so|well),\s+/i, '')
    .replace(/^\W*([\p{L}'’.-]+(?: [\p{L}'’.-]+)?),\s+/u, (whole, name: string) => (turn.names.has(name.split(' ')[0]!.toLowerCase()) ? '' : whole))
    .trim();

/** The clause that asks: "Eighteen percent miss their slot; which number would you watch?" is "which number would you watch?". */
const askingClause = (turn: Turn, question: string): string => {
  const asking = unnamed(turn, understand(question).asking);
  const clause = asking.split(/;\s+|:\s+|\s+—\s+|\.\s+/).at(-1) ?? asking;
  return unnamed(turn, clause.trim());
};

/** A question said to `name`: "…, Alex?"; a request in the imperative ends as one: "Walk me through it, Alex." */
const toHim = (core: string, name: string | undefined): string => {
  const body = core.trim().replace(/[.?!]+$/, '');
  const stop = imperative(body) ? '.' : '?';
  // Said to them already ("…, Alex?"): the name once is enough.
  if (!name || new RegExp(`\\b${name}\\b`).test(body)) return `${capitalise(body)}${stop}`;
  return `${capitalise(body)}, ${name}${stop}`;
};
const imperative = (text: string): boolean =>
  understand(text).act === 'request' && !/^(?:can|could|would|will|do|does|did|is|are|was|were|have|has|may|might|shall|should|what|which|who|how|why|when|where)\b/i.test(text.trim());

/** An acknowledgement a line opened with ("Fair enough.", "Okay, no pressure."), which saying it again leaves out. */
const ACK = /^(?:(?:that is|that's) fine|fair enough|no problem|okay(?:, no pressure)?|right|mm, okay|sure|of course|sorry, yes)[.!]\s+/i;

/** What a probe or an earlier repeat put before the question ("Let me come back to my question: …"), which a repeat leaves out. */
const LEAD =
  /^(?:(?:let me|i'll|i will) (?:come back to (?:my|the|that) question|come back to that|put it (?:another way|more simply|differently)|ask (?:it|that) (?:differently|again)|say it again)|even briefly|in short|put simply|simply put|sure, let me say it again)\s*[:,.]\s*/i;

/** Saying the last question again: as it was the first time, more simply after that. */
export const repeatQuestion = (turn: Turn, task: Task): string => {
  const question = task.question!;
  // Not a question: the speaker says what they said again, plainly.
  const asked = understand(question.text).act;
  if (asked !== 'question' && asked !== 'request' && asked !== 'clarification' && !question.text.includes('?')) {
    // What they said, without the acknowledgement in front of it ("Fair enough. The escalation came late…").
    const said = question.text.trim().replace(ACK, '') || question.text.trim();
    return firstNovel(turn, shuffled([`Sorry. I said: ${said}`, `Of course. ${said}`, `I said, ${lowerFirst(said, turn.proper)}`], turn.rng), 'any');
  }
  const name = turn.name;
  const whole = unnamed(turn, understand(question.text).asking.replace(LEAD, ''));
  const short = askingClause(turn, question.text);
  const simply = question.repeats >= 2;
  function* drafts(): Generator<string> {
    if (!simply) {
      for (const lead of shuffled(['Sure.', 'Of course.', 'Sorry, yes.', 'Sure, let me say it again.'], turn.rng)) yield line(lead, toHim(whole, name));
    }
    for (const lead of shuffled(['Let me put it more simply:', 'In short:', 'Put simply:', 'Simply put:'], turn.rng)) yield `${lead} ${lowerFirst(toHim(short, name), turn.proper)}`;
  }
  return firstNovel(turn, drafts(), 'ask');
};

/** Saying what the last question meant: yes or no to a "do you mean X?", then the question again. */
export const clarifyQuestion = (turn: Turn, task: Task): string => {
  const question = task.question!;
  const asked = turn.asked;
  const short = askingClause(turn, question.text);
  const x = keyPhrases(question.text, turn.names, 'other')[0];
  function* drafts(): Generator<string> {
    const polar = asked && understand(asked.text).type === 'yes-no';
    const mentioned = asked?.phrases[0];
    const leads = polar && mentioned ? ['Yes, exactly.', 'Yes, that.', 'Right, yes.'] : x ? [`I mean ${x}.`, `I'm asking about ${x}.`] : ['I mean it plainly.'];
    for (const lead of shuffled(leads, turn.rng)) yield line(lead, toHim(short, turn.name));
  }
  return firstNovel(turn, drafts(), 'ask');
};

/** Pressing for what a half answer left out, by what was asked. */
const missing: Record<QuestionType, string[]> = {
  'how-many': ['can you put even a rough number on it', 'roughly how many would you say', 'what number would you give it, roughly'],
  when: ['roughly when was that', 'when was that, more or less'],
  who: ['who, specifically', 'who exactly do you mean'],
  where: ['where was that, exactly', 'where would that be'],
  why: ['what was the main reason, would you say', 'and why was that'],
  'yes-no': ['so is that a yes or a no', 'would you say yes or no, on balance'],
  how: ['what would your very first step be', 'what did you actually do, step by step'],
  what: ['could you give me one concrete example', 'what would that look like in practice'],
  which: ['if you had to pick one, which would it be', 'which one would you start with'],
  choice: ['if you had to choose, which way would you go', 'which would you pick'],
};

/** Acknowledging a reply that gave nothing, by what it did. */
const acknowledgements = {
  declined: ['That is fine.', 'Fair enough.', 'No problem.', 'Okay, no pressure.'],
  offTopic: ["Ha, let's park that.", 'Maybe another time.', 'Good to know, but let me bring us back.', "Let's come back to that."],
  short: ['Okay.', 'Right.', 'Mm, okay.'],
};

/**
 * Coming back once to a question a human dodged or half answered: an acknowledgement in kind,
 * then the question narrowed ("Let me come back to that: which number would you watch first?")
 * or what the answer left out ("Can you put even a rough number on it?").
 */
export const probe = (turn: Turn, task: Task): string => {
  const question = task.question!;
  const reply = task.line!;
  const type = question.type ?? 'what';
  const short = askingClause(turn, question.text);
  const x = turn.human?.phrases[0];
  const declined = reply.act === 'non-answer' || reply.act === 'empty';
  const length = understand(reply.text).length;
  // An aside: small talk, or a few words that have nothing to do with the question. A long reply that misses it is taken as a half answer.
  const offTopic = !declined && (reply.act === 'small-talk' || (reply.fit === 'not' && length < 8 && length > 3));
  const terse = !declined && !offTopic && length <= 3;
  function* drafts(): Generator<string> {
    const acks = declined ? acknowledgements.declined : offTopic ? acknowledgements.offTopic : terse ? acknowledgements.short : x ? [`${capitalise(x)}, okay.`, `Okay, ${x}.`, `Thanks, ${x} helps.`] : acknowledgements.short;
    for (const ack of shuffled(acks, turn.rng)) {
      // A half answer is asked for what it left out; a dodge, a one-word reply or an aside gets the question again, narrowed.
      if (!declined && !offTopic && !terse) for (const want of shuffled(missing[type], turn.rng)) yield line(ack, toHim(want, turn.name));
      for (const lead of shuffled(['Let me come back to my question:', 'Let me put it another way:', 'Even briefly:', 'Let me ask it differently:'], turn.rng)) {
        yield line(ack, `${lead} ${lowerFirst(toHim(short, turn.name), turn.proper)}`);
      }
      for (const want of shuffled(missing[type], turn.rng)) yield line(ack, toHim(want, turn.name));
    }
  }
  return firstNovel(turn, drafts(), 'ask');
};

/**
 * A short acknowledgement of a human's line that was not a question to the speaker, to say before
 * the turn's own act: in kind for small talk and a declined question, else picking up what they
 * said in the speaker's words. Undefined when the turn's own act takes it up already.
 */
export const acknowledgement = (turn: Turn, task: Task): string | undefined => {
  const reply = task.line;
  if (!reply) return undefined;
  const name = turn.human?.shortName;
  const x = specificPhrase(turn);
  const { rng } = turn;
  if (heated.test(reply.text)) {
    return fill(rng.pick(['I can hear this is frustrating, {name}.', "Fair enough, {name}, it's been a long session.", "Let's keep it civil, please, {name}.", 'I understand the frustration, {name}.']), { name }) ?? 'I understand the frustration.';
  }
  switch (reply.act) {
    case 'small-talk':
      return fill(rng.pick(['Ha, {x}. Good to know.', 'Ha, fair enough.', 'Nice, {x}.', 'Good to hear, {name}.']), { x, name }) ?? 'Ha, fair enough.';
    case 'non-answer':
    case 'empty':
      return rng.pick(['Fair enough.', 'That is fine.', 'Okay.']);
    case 'thanks':
      return rng.pick(['Of course.', 'Any time.', 'You are welcome.']);
    case 'greeting':
      return fill(rng.pick(['Hi, {name}.', 'Hello, {name}.', 'Good to have you, {name}.']), { name }) ?? 'Hello.';
    case 'farewell':
      return fill(rng.pick(['Thanks, {name}.', 'Take care, {name}.']), { name }) ?? 'Thanks.';
    default: {
      // A reply that missed its question is not praised: a neutral word, and the turn goes on.
      if (reply.fit === 'not') return rng.chance(0.5) ? undefined : rng.pick(['Okay.', 'Right.', 'Mm.']);
      // Half the time the act itself is enough; a number or a specific phrase is worth saying back.
      if (rng.chance(0.5)) return undefined;
      const number = numberPhrase(reply.text);
      if (number) return rng.pick([`${capitalise(number)}, that is concrete.`, `${capitalise(number)}, okay.`, `Right, ${number}.`]);
      const specific = specificPhrase(turn);
      if (specific) return fill(rng.pick(['{X}, okay.', 'Right, {x}.', 'Okay, {x}.', 'Thanks, {name}, {x} helps.']), { x: specific, X: capitalise(specific), name });
      return reply.fit === 'answered' ? rng.pick(['Thanks, that helps.', 'Okay, that is clear.', 'Good, thank you.']) : undefined;
    }
  }
};

/** Nouns too general to say back ("the company", "the team"). */
const general = /^(the|my|your|our|their|a|an) (company|team|panel|role|job|thing|work|time|people|way|point|idea|question|answer|place|room|meeting|part)$/i;

/** The human's most specific phrase: two words or more, no name, not a general noun. */
const specificPhrase = (turn: Turn): string | undefined =>
  turn.human?.phrases
    .filter((p) => p.split(/\s+/).length >= 2 && !general.test(p) && !p.split(/\s+/).some((w) => turn.names.has(w.toLowerCase())))
    .sort((a, b) => b.length - a.length)[0];

/** Asking for a line in another language again, in the room's. */
export const pardon = (turn: Turn): string => {
  const name = turn.human?.shortName ?? turn.asked?.shortName;
  const frames = ['Sorry, {name}, I did not follow that. Could you say it in English?', 'I am afraid I only speak English here. Could you put that another way, {name}?', 'Sorry, could you say that again in English, {name}?'];
  return firstNovel(turn, shuffled(frames, turn.rng).map((f) => fill(f, { name }) ?? f.replace(/,? \{name\}/, '')), 'any');
};

/** Whether `text` accuses the speaker: by name, or as "you" when it is said to them. */
export const accuses = (turn: Turn, text: string, toThem: boolean): boolean => {
  if (!accusation.test(text)) return false;
  const { name, shortName } = turn.cue.speaker;
  const called = [name, shortName, ...name.split(/\s+/).filter((w) => w.length > 2)];
  const mine = (n: string): boolean => called.some((c) => c.toLowerCase() === n.toLowerCase());
  // "Elena, Rupert saw you with the tray. I think you poisoned Henry.": the one spoken to is accused, not the witness named.
  const vocative = /^\W*([\p{Lu}][\p{L}.'’-]*(?:\s[\p{Lu}][\p{L}'’-]*)?),/u.exec(text)?.[1];
  if (vocative && /\byou\b/i.test(text)) return mine(vocative) || vocative.split(/\s+/).some(mine);
  if (toThem && /\byou\b/i.test(text)) return true;
  return called.some((n) => new RegExp(`\\b${n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'i').test(text));
};

/**
 * A persona accused by name defends themself first: a denial, then what they know of their own
 * movements (a time or a place from their material), never a confession.
 */
export const defend = (turn: Turn): string => {
  const { rng } = turn;
  const denials = ['Me? I had nothing to do with it.', 'That is simply not true.', 'You have no proof of that, {name}.', 'I did no such thing, and you know it.', 'Now wait a moment. That is absurd.'];
  const alibis = turn.gathered.material.filter((m) => (m.tags.has('time') || m.tags.has('place')) && m.source !== 'context' && m.source !== 'content');
  function* drafts(): Generator<string> {
    for (const frame of shuffled(denials, rng)) {
      const denial = fill(frame, { name: turn.human?.shortName })!;
      for (const m of alibis.slice(0, 3)) yield line(denial, m.text);
      yield denial;
    }
  }
  return firstNovel(turn, drafts(), 'close');
};

/** The first number in a line with the words that go with it: "11% in three months". */
const numberPhrase = (text: string): string | undefined => {
  // Not "one percent" of "twenty-one percent": a spelled number starts after a space, not a hyphen.
  const m = text.match(/(?<![-\w])(?:about |around |roughly |over |under )?(?:\$?\d[\d,.]*\s?(?:%|percent|k|m)?|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|fifty|a hundred) percent)(?:\s+(?:in|of|per|a|fewer|more|less|weeks?|months?|days?|clinics?|users?|people|customers?)\b(?:\s+[a-z]+){0,2})?/i);
  return m ? m[0].trim().replace(/[,.;:]+$/, '') : undefined;
};
