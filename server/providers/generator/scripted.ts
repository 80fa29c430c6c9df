/**
 * The scripted generator: the embedded default that needs no key and no network, and the first
 * conversation partner every new user meets. It writes from the structured `request.cue` only,
 * never from the prompt: it composes each line from the scene (topic, context, contents, the
 * persona's backstory, goals, traits, mood, authored questions and talking points) through
 * dialogue acts, and picks up what was just said.
 *
 * ```ts
 * const text = await complete(createScriptedGenerator(), request);
 * // "You mentioned your reminder redesign. What would you cut from it if you had half the time, Alex?"
 * ```
 *
 * The pieces, in scripted/:
 * - `turn.ts` prepares a cue once: kind of meeting, the persona's `voice.ts` and `material.ts`
 *   (what they can say, in their own words: `person.ts`, `paraphrase.ts`, `goals.ts`), and the
 *   noun phrases of what was said (`phrases.ts`);
 * - `acts/` draft candidate lines for the engine's plan: ask, answer, statement (react, point,
 *   close), facilitate (hand over, sum up, move on), interject (cut in, deviate);
 * - `novel.ts` says the first draft that is new and safe by the engine's own definitions
 *   (engine/novelty.ts): no repeat, no reused opening, no quoted or hinted secret, and the pair
 *   the plan asks for.
 *
 * `cue.variant` seeds every choice, so the same request always gives the same text and a resample
 * with another variant gives a different one (MPOD §3.2 anti-repetition).
 */
import { rngFrom } from '../../../shared/rng';
import type { GenerateRequest } from '../../engine/requests';
import type { Generator } from './port';
import { answer } from './scripted/acts/answer';
import { direct } from './scripted/acts/direct';
import { ask, greet, offer, request } from './scripted/acts/ask';
import { facilitate } from './scripted/acts/facilitate';
import { deviate, interrupt } from './scripted/acts/interject';
import { heated, understand } from '../../engine/understanding';
import { accuses, acknowledgement, clarifyQuestion, defend, pardon, probe, repeatQuestion } from './scripted/acts/respond';
import { statement } from './scripted/acts/statement';
import { accuse, accusationDue } from './scripted/acts/accuse';
import { line } from './scripted/compose';
import { selectNext, think } from './scripted/bids';
import { prepare, type Turn } from './scripted/turn';

const utterance = (turn: Turn): string => {
  const act = turn.cue.act;
  // The investigation's naming part: whoever asks names the suspect what was heard points at.
  if ((act === 'question' || act === 'statement') && accusationDue(turn)) {
    const named = accuse(turn);
    if (named) return named;
  }
  // Asked something at that moment, the detective answers it first and then names the suspect: the last part may hold no other turn of theirs.
  if (act === 'answer' && turn.cue.obligation && accusationDue({ ...turn, cue: { ...turn.cue, obligation: null } })) {
    const named = accuse({ ...turn, cue: { ...turn.cue, obligation: null } });
    if (named) return line(answer(turn), named);
  }
  switch (act) {
    case 'statement':
      return statement(turn);
    case 'answer':
      return answer(turn);
    case 'question':
      return ask(turn);
    case 'request':
      return request(turn);
    case 'offer':
      return offer(turn);
    case 'greeting':
      return greet(turn);
    case 'interrupt':
      return interrupt(turn);
    case 'deviation':
      return deviate(turn);
    case 'moderate':
    case 'invitation':
    case 'encourage':
    case 'summarize':
    case 'transition':
    case 'resolve-conflict':
    case 'chime-in':
      return facilitate(turn, act);
  }
};

/**
 * The dialogue manager's turn: the engine's task for it first (engine/dialogue.ts), then the
 * plan's act. A question asked to be repeated is said again, one asked to be explained is
 * explained, a dodged one is pressed once, and a human's line is taken up before the turn's act.
 */
const converse = (turn: Turn): string => {
  const { cue } = turn;
  const task = cue.dialogue?.task;
  const toThem = task?.line && cue.addressee?.id === task.line.speaker;
  switch (task?.kind) {
    case 'repeat':
      return repeatQuestion(turn, task);
    case 'clarify':
      return clarifyQuestion(turn, task);
    case 'probe':
      if (task.line?.act === 'foreign') return pardon(turn);
      // Pressed after an outburst, the asker says they heard the frustration before asking again.
      if (cue.act === 'question' && toThem) return heated.test(task.line?.text ?? '') ? line(acknowledgement(turn, task), probe(turn, task)) : probe(turn, task);
      break;
    case 'answer':
      if (cue.obligation && accuses(turn, cue.obligation.text, true)) return defend(turn);
      if (cue.obligation && understand(cue.obligation.text).act === 'foreign') return pardon(turn);
      break;
    case 'take-up': {
      if (task.line && accuses(turn, task.line.text, cue.addressee?.id === task.line.speaker)) return defend(turn);
      if (task.line?.act === 'foreign') return pardon(turn);
      // They answered the speaker's question and are asked again: a follow-up on their own words.
      if (cue.act === 'question' && toThem && task.line?.fit === 'answered' && !cue.move) return utterance({ ...turn, cue: { ...cue, move: 'follow-up' } });
      // A statement reacts to what was just said by itself; other acts say they heard it first.
      const reacts = cue.act === 'statement' && !['small-talk', 'non-answer', 'empty', 'thanks', 'greeting', 'farewell'].includes(task.line?.act ?? '');
      const angry = heated.test(task.line?.text ?? '');
      const heard = reacts && !angry ? undefined : acknowledgement(turn, task);
      // Nothing to follow up in small talk or a non-answer: the question is a fresh one.
      // "ok", "sure", "yes, that works", "I like turtles": nothing to react to or follow up either.
      const aside =
        angry ||
        ['small-talk', 'non-answer', 'empty', 'foreign', 'thanks', 'greeting', 'farewell'].includes(task.line?.act ?? '') ||
        understand(task.line?.text ?? '').words.length < 2 ||
        assent.test(task.line?.text ?? '');
      // Nothing in it to react to or follow up: the turn says its own piece.
      return line(heard, utterance(aside ? { ...turn, last: null, cue: { ...cue, move: cue.move === 'follow-up' ? null : cue.move } } : turn));
    }
  }
  return utterance(turn);
};

/** A short yes: "Yes, that works.", "Sure.", "Sounds good." */
const assent = /^\W*(yes|yeah|yep|sure|ok|okay|fine|great|perfect|right|sounds good|that works|works for me)\b[^.!?]{0,20}[.!?]*\s*$/i;

/** FNV-1a, to mix the turn's identity into the variant's seed. */
const hash = (text: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
};

/** A variant is a number in [0, 1) or an integer; either seeds the same way, mixed with who speaks and how. */
const seedOf = ({ purpose, cue }: GenerateRequest): number => {
  const variant = Number.isInteger(cue.variant) ? cue.variant : Math.floor(cue.variant * 2 ** 32);
  return (variant ^ hash(`${purpose}|${cue.act}|${cue.speaker.id}|${cue.intent ?? ''}`)) >>> 0;
};

const write = (request: GenerateRequest): string => {
  const rng = rngFrom(seedOf(request));
  const { cue } = request;
  switch (request.purpose) {
    case 'select':
      return JSON.stringify({ next: selectNext(cue, rng) });
    case 'think':
      return JSON.stringify(think(cue, rng));
    case 'proposal':
      return deviate(prepare(cue, rng));
    case 'utterance': {
      const turn = prepare(cue, rng);
      // The instructor's direction, in the persona's words; one the rules cannot read leaves the turn as planned.
      const directed = cue.direction ? direct(turn, cue.direction) : null;
      if (!directed) return converse(turn);
      if (directed.kind === 'manner') return line(directed.opener, converse(turn));
      // An answer owed comes first, the direction after: it never takes the answer's place.
      return cue.obligation ? line(converse(turn), directed.text) : directed.text;
    }
    case 'normalize':
      // No model: the engine's rules have already extracted the facts; an empty answer keeps them.
      return '';
  }
};

/** About three deltas, split on spaces, so streaming consumers are exercised. */
const deltasOf = (text: string): string[] => {
  // Each word with the space after it, as text.split(/(?<= )/) gives them: that lookbehind cost
  // the simulator more than the rest of streaming.
  const words: string[] = [];
  let from = 0;
  for (let space = text.indexOf(' '); space !== -1; space = text.indexOf(' ', from)) {
    words.push(text.slice(from, space + 1));
    from = space + 1;
  }
  if (from < text.length || words.length === 0) words.push(text.slice(from));
  const size = Math.max(1, Math.ceil(words.length / 3));
  const deltas: string[] = [];
  for (let i = 0; i < words.length; i += size) deltas.push(words.slice(i, i + size).join(''));
  return deltas;
};

/** Every generator `createScriptedGenerator` made: the ones that need no fallback (`isScripted`). */
const made = new WeakSet<Generator>();

export const createScriptedGenerator = (): Generator => {
  const generator: Generator = {
    name: 'scripted',
    async *stream(request, signal) {
      for (const delta of deltasOf(write(request))) {
        signal?.throwIfAborted();
        yield delta;
      }
    },
  };
  made.add(generator);
  return generator;
};

/**
 * Whether `generator` is this module's own, not merely named "scripted" (tests' stand-ins are): it
 * has no network to fail and no time to run out, and its fallback would be itself.
 */
export const isScripted = (generator: Generator): boolean => made.has(generator);
