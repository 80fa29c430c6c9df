/**
 * The dialogue state: what each question of the session became (asked, answered, partly answered,
 * dodged, still open) and what each turn is to do with it. The engine keeps it as utterances are
 * accepted and hands each speaker its view (`Cue.dialogue`), so the scripted dialogue manager and
 * an LLM's prompt are told the same things: the act to perform, the human's line to take up, what
 * they already asked and answered, and what they must not ask again.
 *
 * Pure, like the rest of the engine: the state is rebuilt from the log by replaying it.
 *
 * ```ts
 * let exchanges = opened([], { id: 'u3', asker: 'raj', to: 'alex', text: 'How many clinics use it?' });
 * exchanges = replied(exchanges, 'u3', { id: 'u4', speaker: 'alex', text: 'Pass.' }); // status 'dodged'
 * taskFor(...) // { kind: 'probe', ... }: Raj comes back to his question once
 * ```
 */
import { REPETITION_THRESHOLD, similarity } from './similarity';
import { answerFit, understand, type Fit, type LineAct, type QuestionType } from './understanding';
import { contentWords } from './vocabulary';

/** What became of a question. `dodged`: the reply turned it aside or said nothing to it. */
export type ExchangeStatus = 'open' | 'answered' | 'partly' | 'dodged';

/** A question (or a request for information) put to someone, and what became of it. */
export interface Exchange {
  /** The utterance that asked. */
  id: string;
  asker: string;
  to: string;
  text: string;
  type?: QuestionType;
  status: ExchangeStatus;
  /** The reply, once there is one. */
  answer?: { id: string; speaker: string; text: string };
  /** How often the asker came back to it (a probe or a re-ask): at most once. */
  pressed: number;
  /** How often it was asked to be repeated. */
  repeats: number;
}

/** How many exchanges the state keeps: enough for a long session's questions, bounded for the prompt. */
const KEPT = 40;

/**
 * A question put to `to`. `probing`: it presses an earlier one; `repeats`: it says again one asked
 * to be repeated that often, so a second request gets it more simply. A repeat request ("could you repeat that?") opens none: it asks for the last question again. */
export const opened = (
  exchanges: readonly Exchange[],
  line: { id: string; asker: string; to: string; text: string },
  how: { probing?: boolean; repeats?: number } = {},
): Exchange[] => {
  const understood = understand(line.text);
  if (understood.act !== 'question' && understood.act !== 'request' && understood.act !== 'clarification') return [...exchanges];
  // A probe is the question pressed already: it is not pressed again.
  const exchange: Exchange = { ...line, ...(understood.type ? { type: understood.type } : {}), status: 'open', pressed: how.probing ? 1 : 0, repeats: how.repeats ?? 0 };
  return [...exchanges, exchange].slice(-KEPT);
};

const statusOf = (fit: Fit): ExchangeStatus => (fit === 'not' ? 'dodged' : fit);

/**
 * A reply to the exchange opened by `question`: its status by what the reply gives (understanding.ts).
 * A repeat request marks the exchange as asked to be repeated; it stays open.
 */
export const replied = (exchanges: readonly Exchange[], question: string, reply: { id: string; speaker: string; text: string }, names?: ReadonlySet<string>): Exchange[] =>
  exchanges.map((e) => {
    if (e.id !== question) return e;
    const act = understand(reply.text).act;
    if (act === 'repeat-request') return { ...e, repeats: e.repeats + 1 };
    return { ...e, status: statusOf(answerFit(e.text, reply.text, names)), answer: reply };
  });

/** The asker came back to an exchange (probed it, asked it again): it is pressed once, never twice. */
export const pressed = (exchanges: readonly Exchange[], id: string): Exchange[] => exchanges.map((e) => (e.id === id ? { ...e, pressed: e.pressed + 1 } : e));

/**
 * What the turn is to do, beyond its plan's act:
 * - `answer` a question put to the speaker (`question`), from what they know, or say they don't;
 * - `repeat` the speaker's last question, asked to repeat it (rephrased when asked again);
 * - `clarify` what the speaker's last question meant;
 * - `probe` the asker comes back to their question, which the reply dodged or half answered;
 * - `take-up` acknowledge and build on a human's line (`line`), which answered the speaker's
 *   question or was said to them or the room;
 * - `own` say something of one's own (ask, make a point, close), as the plan says.
 */
export type TaskKind = 'answer' | 'repeat' | 'clarify' | 'probe' | 'take-up' | 'own';

export interface Task {
  kind: TaskKind;
  /** The question this turn answers, repeats, clarifies or probes. */
  question?: { id: string; text: string; type?: QuestionType; repeats: number; asker: string };
  /**
   * An answer: how often the speaker already answered the same question this session (by meaning).
   * Said again, an answer refers back to what was said rather than reciting it as news.
   */
  again?: number;
  /** The line taken up: what it does and how well it answered the speaker's question, when it replied to one. */
  line?: { id: string; speaker: string; text: string; act: LineAct; fit?: Fit };
}

/** What a speaker is shown of the dialogue state. */
export interface DialogueView {
  task: Task;
  /** Questions the speaker asked this session and what became of them, oldest first (at most 8). */
  asked: { to: string; text: string; status: ExchangeStatus }[];
  /** Questions the speaker answered, oldest first (at most 8): a fact once given is referred to, not recited again. */
  answered: { from: string; question: string; answer: string }[];
  /** Every question put to the speaker before this turn, answered or not, oldest first (at most 12): what they have been pressed on. */
  putTo: string[];
}

/** The last exchange `speaker` opened with `to` (the one a reply of theirs answers). */
const lastAskedBy = (exchanges: readonly Exchange[], speaker: string, to?: string): Exchange | undefined =>
  exchanges.findLast((e) => e.asker === speaker && (to === undefined || e.to === to));

export interface TaskInput {
  speaker: string;
  /** The obligation the plan carries: the first pair part this turn answers. */
  obligation: { utterance: string; from: string; text: string } | null;
  /** The last line of the session, by whom and whether a human said it. */
  last: { id: string; speaker: string; text: string; human: boolean; replyTo: string | null; addressee: string | null } | null;
  exchanges: readonly Exchange[];
  /** The line before the last one: what "could you repeat that?" asks to hear again. */
  previous?: { speaker: string; text: string } | null;
}

/** The task of a turn (see `TaskKind`). */
export const taskFor = ({ speaker, obligation, last, exchanges, previous }: TaskInput): Task => {
  if (obligation) {
    const act = understand(obligation.text).act;
    const mine = lastAskedBy(exchanges, speaker, obligation.from);
    if (act === 'repeat-request') {
      // What they asked to hear again: the speaker's line just before, a question or not, else their last question.
      if (mine && (!previous || previous.speaker !== speaker || previous.text === mine.text)) return { kind: 'repeat', question: questionOf(mine) };
      if (previous?.speaker === speaker) return { kind: 'repeat', question: { id: '', text: previous.text, repeats: 0, asker: speaker } };
    }
    if (act === 'clarification' && mine && mine.id !== obligation.utterance) return { kind: 'clarify', question: questionOf(mine) };
    const own = exchanges.find((e) => e.id === obligation.utterance);
    const again = exchanges.filter((e) => e.id !== obligation.utterance && e.to === speaker && e.answer?.speaker === speaker && e.status !== 'dodged' && sameQuestion(e.text, obligation.text)).length;
    return {
      kind: 'answer',
      question: { id: obligation.utterance, text: obligation.text, ...(own?.type ? { type: own.type } : {}), repeats: 0, asker: obligation.from },
      ...(again ? { again } : {}),
    };
  }
  if (!last || !last.human || last.speaker === speaker) return { kind: 'own' };
  const act = understand(last.text).act;
  const line = { id: last.id, speaker: last.speaker, text: last.text, act };
  // The human answered a question: its asker probes a dodge or a half answer once; anyone takes the answer up, knowing how well it answered.
  const answered = exchanges.find((e) => e.answer?.id === last.id);
  if (answered) {
    const fit: Fit = answered.status === 'dodged' ? 'not' : answered.status === 'partly' ? 'partly' : 'answered';
    if (answered.asker === speaker && fit !== 'answered' && answered.pressed === 0) return { kind: 'probe', question: questionOf(answered), line: { ...line, fit } };
    return { kind: 'take-up', line: { ...line, fit } };
  }
  return { kind: 'take-up', line };
};

const questionOf = (e: Exchange): NonNullable<Task['question']> => ({ id: e.id, text: e.text, ...(e.type ? { type: e.type } : {}), repeats: e.repeats, asker: e.asker });

/**
 * Whether two questions ask the same thing: the same kind of answer, and the same content words in
 * any order ("Hannah, why did the last PM leave?" / "Why did the last PM leave, Hannah?") or the
 * same meaning in other words.
 */
export const sameQuestion = (a: string, b: string): boolean => {
  // Asking for the same kind of thing, about the same things; whom it is put to ("Vivian, …") is not what it asks.
  if (understand(a).type !== understand(b).type) return false;
  const [p, q] = [unaddressed(understand(a).asking), unaddressed(understand(b).asking)];
  const x = new Set(contentWords(p));
  const y = new Set(contentWords(q));
  let both = 0;
  for (const w of x) if (y.has(w)) both++;
  const union = x.size + y.size - both;
  return union > 0 && (both / union >= SAME_WORDS || (both / union >= 0.5 && similarity(p, q) > REPETITION_THRESHOLD));
};
/** A question without the name it is put to: "Vivian, did you see anything?" asks "did you see anything?". */
const unaddressed = (text: string): string => text.replace(/^\W*[\p{Lu}][\p{L}.'’-]*(\s[\p{Lu}][\p{L}.'’-]*)?,\s*/u, '').replace(/,\s*[\p{Lu}][\p{L}.'’-]*\s*\?$/u, '?');
/** The share of content words two questions must share (Jaccard) to ask the same thing. */
const SAME_WORDS = 0.75;

/** Whether the task says again what was said before (a question repeated on request or pressed, an answer to a question asked again): it may echo the speaker's own words. */
export const echoes = (task: Task): boolean => task.kind === 'repeat' || task.kind === 'probe' || (task.kind === 'answer' && !!task.again);

/** The speaker's view of the dialogue state, for the cue. */
export const viewFor = (exchanges: readonly Exchange[], speaker: string, task: Task): DialogueView => ({
  task,
  asked: exchanges
    .filter((e) => e.asker === speaker)
    .slice(-8)
    .map((e) => ({ to: e.to, text: e.text, status: e.status })),
  answered: exchanges
    .filter((e) => e.answer?.speaker === speaker && e.status !== 'dodged')
    .slice(-8)
    .map((e) => ({ from: e.asker, question: e.text, answer: e.answer!.text })),
  putTo: exchanges
    .filter((e) => e.to === speaker && e.id !== task.question?.id)
    .slice(-12)
    .map((e) => e.text),
});
