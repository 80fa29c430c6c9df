/**
 * The debrief's written feedback and its question box (issue 17, part 3): "with a generator key, an
 * optional written feedback paragraph from the LLM, grounded in the transcript, and a question box
 * answered from the transcript with links to the moments; offline, rule-based feedback."
 *
 * `feedback`: a vendor generator is shown the seat's lines (each with the line before it, which
 * they answered) with their times and the seat's figures, and asked for a short paragraph in JSON
 * that cites moments by time. A cited time that names no quoted line is dropped. Offline (the
 * scripted generator), or when the vendor fails or twice answers without the JSON asked for
 * (review/model.ts), the paragraph is written from the seat's figures and debrief.ts's observations.
 *
 * `answer`: the question is a person's text: cleaned (protocol/text.ts), capped, and put inside
 * <question> tags as data. A vendor answers from the transcript only, citing moments by time;
 * offline, the lines most like the question in meaning (engine/similarity.ts) are offered instead.
 *
 * ```ts
 * const lines = linesOf(report);
 * await feedback(report, lines, 'jordan', generator); // { paragraph, moments: [{ startMs, text }], by: 'model', vendor: 'gemini' }
 * await answer('When did I dodge the salary question?', lines, 'jordan', generator); // { answer, moments, by }
 * ```
 */
import { z } from 'zod';
import { similarityTo } from '../engine/similarity';
import type { Generator } from '../providers/generator/port';
import { cleanText } from '../protocol/text';
import { clock, debriefOf, gist } from './debrief';
import { MAX_QUESTION_CHARS, type Answer, type Feedback } from './answers';
import { askForJson, dataRule, isVendor, jsonIn, lineAt, quoteLine, untagged, type Line } from './model';
import type { ParticipantReport, Report } from './report';

/** Lines quoted in a prompt at most: a two-hour session's transcript would not fit, nor be read. */
export const MAX_QUOTED_LINES = 200;
/** Moments the offline answer offers. */
const RETRIEVED = 3;

export const cleanQuestion = (question: string): string => cleanText(question).slice(0, MAX_QUESTION_CHARS).trim();

const percent = (share: number) => `${Math.round(share * 100)}%`;

/** The seat's lines, each with the line before it (what they answered), in time order, at most MAX_QUOTED_LINES. */
const seatLines = (transcript: readonly Line[], seat: string): Line[] => {
  const picked = new Set<number>();
  transcript.forEach((line, i) => {
    if (line.speaker !== seat) return;
    if (i > 0 && transcript[i - 1]!.speaker !== seat) picked.add(i - 1);
    picked.add(i);
  });
  return [...picked].sort((a, b) => a - b).slice(0, MAX_QUOTED_LINES).map((i) => transcript[i]!);
};

/** The line a moment falls in: the one starting then, else the last one started before it (an interruption lands mid-line). */
const lineOf = (transcript: readonly Line[], ms: number): Line | undefined => transcript.find((l) => l.startMs === ms) ?? transcript.findLast((l) => l.startMs <= ms);

const times = (n: number) => (n === 1 ? 'once' : `${n} times`);

/**
 * The rules' paragraph, from the seat's figures (as debrief.ts reads them): their share of the
 * talk against the even split, pace and fillers, questions and interruptions, then the most
 * notable thing to work on, if any. Its moments are that thing's: what the paragraph advises on.
 */
const rulesFeedback = (report: Report, transcript: readonly Line[], seat: string, note?: string): Feedback => {
  const debrief = debriefOf(report, seat);
  const observations = debrief?.observations ?? [];
  // The paragraph's advice is its one thing to work on: its moments are that observation's (the fastest turns for pace…), else the one it names.
  const improve = observations.find((o) => o.tone === 'improve');
  const cited = debrief && debrief.you.turns === 0 ? observations[0] : improve;
  const at = [...new Set(cited?.moments.map((m) => m.startMs) ?? [])].sort((a, b) => a - b);
  let paragraph: string;
  if (!debrief) paragraph = `There is no seat "${seat}" in this session's record.`;
  else if (debrief.you.turns === 0) paragraph = observations[0]?.text ?? 'You did not speak in this session.';
  else {
    const { you } = debrief;
    paragraph = [
      `You took ${you.turns} turn${you.turns === 1 ? '' : 's'} and ${percent(you.speakingShare)} of the talk, against about ${percent(debrief.expectedShare)} expected: ${debrief.expectedBasis}.`,
      you.wordsPerMinute === null ? '' : `You spoke at ${Math.round(you.wordsPerMinute)} words per minute (comfortable: 140–160) with ${you.fillers.count === 0 ? 'no fillers' : `${you.fillers.count} filler${you.fillers.count === 1 ? '' : 's'}`}.`,
      `${answersSentence(you)}, and ${you.interruptionsMade === 0 ? 'interrupted nobody' : `interrupted others ${times(you.interruptionsMade)}`}.`,
      improve ? `The main thing to work on: ${improve.text.charAt(0).toLowerCase()}${improve.text.slice(1)}` : 'Nothing in the figures stands out to work on.',
    ]
      .filter(Boolean)
      .join(' ');
  }
  return {
    paragraph,
    moments: at.map((startMs) => ({ startMs, text: gist(lineOf(transcript, startMs)?.text ?? clock(startMs)) })),
    by: 'rules',
    ...(note ? { note } : {}),
  };
};

/** The questions put to them by name, by what their replies said; by who spoke next only in a report without that. */
const answersSentence = (you: ParticipantReport): string => {
  const given = you.answersGiven;
  const asked = given?.questions ?? you.questionsReceived;
  const questions = `question${asked === 1 ? '' : 's'}`;
  if (asked === 0) return 'Nobody put a question to you by name';
  if (!given) return `You spoke next after ${you.questionsAnswered} of ${asked} ${questions} put to you by name`;
  return `Your replies answered ${given.answered} of ${asked} ${questions} put to you by name${given.partly > 0 ? ` (${given.partly} in part)` : ''}`;
};

const FeedbackAnswer = z.object({ paragraph: z.string().min(1), moments: z.array(z.object({ at: z.unknown() }).passthrough()).default([]) });

export const feedbackPrompt = (report: Report, transcript: readonly Line[], seat: string) => {
  const you = report.participants.find((p) => p.id === seat);
  const name = you?.name ?? seat;
  const quoted = seatLines(transcript, seat);
  const debrief = debriefOf(report, seat);
  const figures = you
    ? [
        `talk share ${percent(you.speakingShare)} (about ${percent(debrief?.expectedShare ?? 0)} expected)`,
        `${you.turns} turns`,
        you.wordsPerMinute === null ? null : `${Math.round(you.wordsPerMinute)} words per minute (comfortable: 140-160)`,
        `${you.fillers.count} fillers`,
        you.answersGiven
          ? `their replies answered ${you.answersGiven.answered} of the ${you.answersGiven.questions} questions put to them by content (${you.answersGiven.partly} in part); they spoke next after ${you.questionsAnswered} of ${you.questionsReceived}`
          : `spoke next after ${you.questionsAnswered} of ${you.questionsReceived} questions put to them`,
        `interrupted others ${you.interruptionsMade} times`,
      ].filter(Boolean)
    : [];
  return {
    quoted,
    system: [
      'You are a meeting coach. A trainee rehearsed a meeting with AI personas; write them short, specific, kind feedback grounded only in the transcript below. Never invent what was not said.',
      dataRule,
      'Answer with JSON only, in this format:',
      '{"paragraph": "<3 to 5 sentences to the trainee, as you>", "moments": [{"at": "<m:ss>", "why": "<a few words>"}]}',
      'Cite 1 to 4 moments, each at a time shown in brackets in the transcript.',
    ].join('\n'),
    prompt: [
      `The trainee is ${untagged(name)}.${figures.length ? ` Their figures: ${figures.join('; ')}.` : ''}`,
      quoted.length
        ? `The trainee's lines, each with the line before it, times from the start of the session:\n\n${quoted.map(quoteLine).join('\n')}`
        : 'The trainee did not speak in this session.',
    ].join('\n\n'),
  };
};

/** Written feedback for `seat`: by the model when `generator` is a vendor that answers, else from the figures. */
export const feedback = async (report: Report, transcript: readonly Line[], seat: string, generator: Generator, signal?: AbortSignal): Promise<Feedback> => {
  if (!isVendor(generator) || !report.participants.some((p) => p.id === seat)) return rulesFeedback(report, transcript, seat);
  const { system, prompt, quoted } = feedbackPrompt(report, transcript, seat);
  const asked = await askForJson(
    generator,
    { system, prompt, maxTokens: 700 },
    (text) => {
      const parsed = FeedbackAnswer.safeParse(jsonIn(text));
      return parsed.success ? parsed.data : null;
    },
    signal,
  );
  if (!asked.ok) return rulesFeedback(report, transcript, seat, `${asked.why}; written from the figures instead`);
  const cited = new Map<number, Line>();
  for (const m of asked.value.moments) {
    const line = lineAt(m.at, quoted);
    if (line) cited.set(line.startMs, line);
  }
  const dropped = asked.value.moments.length - cited.size;
  return {
    paragraph: cleanText(asked.value.paragraph),
    moments: [...cited.values()].map((l) => ({ startMs: l.startMs, text: gist(l.text) })),
    by: 'model',
    vendor: generator.name,
    ...(dropped > 0 ? { note: `${dropped} cited moment${dropped === 1 ? '' : 's'} not in the transcript left out` } : {}),
  };
};

const QuestionAnswer = z.object({ answer: z.string().min(1), moments: z.array(z.object({ at: z.unknown() }).passthrough()).default([]) });

/**
 * How close a line must be to the question to be offered. Measured on simulated job interviews
 * (scripted, seed 1): questions about nothing said there ("the weather on Mars") still score up to
 * 0.18 against some line, while the line a question is about scores 0.33-0.50. Among the few lines
 * the question's own words point to (the asker's, or those put to them) the bar is lower: "When did
 * I talk about my weaknesses?" scores 0.14 against "I have never worked in healthcare and am worried
 * it shows" and 0.09-0.13 against the candidate's other lines; "the capital of France" scores 0.04
 * at most against any line.
 */
export const RELATED = 0.2;
export const RELATED_AMONG_FEW = 0.1;

/** The lines most like `question` in meaning, best first, at least `threshold` close. */
export const relevantLines = (question: string, transcript: readonly Line[], count: number, threshold = 0): Line[] => {
  const to = similarityTo(question);
  return transcript
    .map((line, i) => ({ line, i, score: to(line.text) }))
    .filter((s) => s.score > threshold)
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, count)
    .map((s) => s.line);
};

const momentOf = (l: Line): Answer['moments'][number] => ({ startMs: l.startMs, endMs: l.endMs, text: l.text, speaker: l.speaker, name: l.name });

/** "When did they ask me…", "did Raj question me": the lines put to the asker. */
const askedOfAsker = /\b(ask|asked|asking|question|questioned|press|pressed|put)\b(?:\s+\w+){0,2}?\s+me\b/i;
/** "I", "my", "me": the question is about the asker's own lines. */
const firstPerson = /\b(i|i'm|i've|i'd|me|my|mine|myself)\b/i;

/** Where a question looks first, by its words: the lines put to the asker, the asker's own, else everyone's. */
const poolsFor = (question: string, transcript: readonly Line[], seat: string) => {
  const pools: { lines: Line[]; threshold: number; answer: string }[] = [];
  if (askedOfAsker.test(question)) pools.push({ lines: transcript.filter((l) => l.speaker !== seat && l.addressee === seat), threshold: RELATED_AMONG_FEW, answer: 'These lines put to you look relevant:' });
  else if (firstPerson.test(question)) pools.push({ lines: transcript.filter((l) => l.speaker === seat), threshold: RELATED_AMONG_FEW, answer: 'These lines of yours look relevant:' });
  pools.push({ lines: [...transcript], threshold: RELATED, answer: 'These moments look relevant:' });
  return pools;
};

const retrieved = (question: string, transcript: readonly Line[], seat: string, note?: string): Answer => {
  for (const pool of poolsFor(question, transcript, seat)) {
    const lines = relevantLines(question, pool.lines, RETRIEVED, pool.threshold).sort((a, b) => a.startMs - b.startMs);
    if (lines.length) return { answer: pool.answer, moments: lines.map(momentOf), by: 'rules', ...(note ? { note } : {}) };
  }
  return { answer: 'Nothing in the transcript looks related to that question.', moments: [], by: 'rules', ...(note ? { note } : {}) };
};

export const answerPrompt = (question: string, transcript: readonly Line[], seat: string, seatName: string) => {
  // A long transcript is cut to the lines most like the question, kept in time order.
  const quoted = transcript.length <= MAX_QUOTED_LINES ? [...transcript] : relevantLines(question, transcript, MAX_QUOTED_LINES).sort((a, b) => a.startMs - b.startMs);
  return {
    quoted,
    system: [
      'You answer a trainee\'s question about a meeting they rehearsed, from its transcript only. If the transcript does not answer it, say so. Never invent what was not said.',
      dataRule,
      'Answer with JSON only, in this format:',
      '{"answer": "<one to three sentences, to the trainee, as you>", "moments": [{"at": "<m:ss>"}]}',
      'Cite the moments your answer rests on (at most 4), each at a time shown in brackets in the transcript.',
    ].join('\n'),
    prompt: [
      `The trainee is ${untagged(seatName)} (participant id ${untagged(seat)}).`,
      `The transcript, times from the start of the session${quoted.length < transcript.length ? ` (the ${quoted.length} lines most related to the question)` : ''}:\n\n${quoted.map(quoteLine).join('\n')}`,
      `The trainee's question:\n<question>${untagged(question)}</question>`,
    ].join('\n\n'),
  };
};

/** An answer to `question` (cleaned and capped here too) from the transcript: the model's, or the most relevant lines. */
export const answer = async (question: string, transcript: readonly Line[], seat: string, generator: Generator, signal?: AbortSignal): Promise<Answer> => {
  const asking = cleanQuestion(question);
  if (!isVendor(generator)) return retrieved(asking, transcript, seat);
  const seatName = transcript.find((l) => l.speaker === seat)?.name ?? seat;
  const { system, prompt, quoted } = answerPrompt(asking, transcript, seat, seatName);
  const asked = await askForJson(
    generator,
    { system, prompt, maxTokens: 500 },
    (text) => {
      const parsed = QuestionAnswer.safeParse(jsonIn(text));
      return parsed.success ? parsed.data : null;
    },
    signal,
  );
  if (!asked.ok) return retrieved(asking, transcript, seat, `${asked.why}; the most related lines instead`);
  const cited = new Map<number, Line>();
  for (const m of asked.value.moments) {
    const line = lineAt(m.at, quoted);
    if (line) cited.set(line.startMs, line);
  }
  return { answer: cleanText(asked.value.answer), moments: [...cited.values()].sort((a, b) => a.startMs - b.startMs).map(momentOf), by: 'model', vendor: generator.name };
};
