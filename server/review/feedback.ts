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
 * `answer`: the question is a person's text: cleaned (shared/protocol/text.ts), capped, and put inside
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
import { cleanText } from '../../shared/protocol/text';
import { understand } from '../engine/understanding';
import { fillersIn } from './fillers';
import { debriefOf, dodges } from './debrief';
import { clock, comfortablePace, gist, MAX_QUESTION_CHARS, type Answer, type Debrief, type Feedback, type Outcome, type QuestionPut } from '../../shared/review/answers';
import { askForJson, dataRule, isVendor, jsonIn, lineAt, quoteLine, untagged, type Line } from './model';
import type { Report } from '../../shared/review/report';

/** Lines quoted in a prompt at most: a two-hour session's transcript would not fit, nor be read. */
export const MAX_QUOTED_LINES = 200;
/** Moments the offline answer offers. */
const RETRIEVED = 3;

export const cleanQuestion = (question: string): string => cleanText(question).slice(0, MAX_QUESTION_CHARS).trim();

const percent = (share: number) => `${Math.round(share * 100)}%`;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

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

/** How their lines came in, when not all spoken: "(3 spoken, 5 typed)". */
const inputs = (debrief: Debrief): string => {
  const { speech, typed, simulated, instructor } = debrief.lines;
  const parts = [speech && `${speech} spoken`, typed && `${typed} typed`, simulated && `${simulated} by the stand-in`, instructor && `${instructor} said for you by the instructor`].filter(Boolean);
  return parts.length > 1 || (parts.length === 1 && !speech) ? ` (${parts.join(', ')})` : '';
};

/** Pace and fillers as measured, or why they were not: the same words the page shows. */
const speechSentence = (debrief: Debrief): string => {
  const { speech } = debrief;
  if (speech.wordsPerMinute === null) return debrief.lines.typed > 0 ? 'Your lines were typed, so no pace, fillers or pauses were measured.' : '';
  const fillers = speech.fillers.count === 0 ? 'no fillers' : plural(speech.fillers.count, 'filler');
  return `When you spoke, your pace was ${Math.round(speech.wordsPerMinute)} words per minute (comfortable: ${comfortablePace.low}–${comfortablePace.high}), with ${fillers}.`;
};

/** The questions put to them by name, by what their replies gave; by who spoke next only in a report without that. */
export const answersSentence = (debrief: Debrief): string => {
  const given = debrief.questions.byContent;
  const asked = given?.questions ?? debrief.questions.received;
  if (asked === 0) return 'Nobody put a question to you by name';
  if (!given) return `You spoke next after ${debrief.questions.answeredNext} of ${plural(asked, 'question')} put to you by name`;
  const dodged = debrief.questions.dodged;
  if (asked === 1) return `Your reply ${given.answered ? 'answered' : given.partly ? 'answered in part' : dodged ? 'turned aside' : 'did not answer'} the one question put to you by name`;
  return `Your replies answered ${given.answered} of ${plural(asked, 'question')} put to you by name${given.partly > 0 ? ` (${given.partly} more in part)` : ''}${dodged > 0 ? `; you turned aside ${dodged}` : ''}`;
};

/**
 * The rules' paragraph, from the seat's debrief (the figures and observations the page shows, so
 * the two cannot disagree): their turns and share of the talk, pace and fillers of their speech
 * (or that none were measured), questions and interruptions, then the most notable thing to work
 * on, if any. Its moments are that thing's: what the paragraph advises on.
 */
const rulesFeedback = (report: Report, transcript: readonly Line[], seat: string, note?: string): Feedback => {
  const debrief = debriefOf(report, seat);
  const observations = debrief?.observations ?? [];
  const improve = observations.find((o) => o.tone === 'improve');
  const cited = debrief && debrief.you.turns === 0 ? observations[0] : (improve ?? observations[0]);
  const at = [...new Set(cited?.moments.map((m) => m.startMs) ?? [])].sort((a, b) => a - b);
  let paragraph: string;
  if (!debrief) paragraph = `There is no seat "${seat}" in this session's record.`;
  else if (debrief.you.turns === 0) paragraph = observations[0]?.text ?? 'You did not speak in this session.';
  else {
    const { you } = debrief;
    paragraph = [
      `You took ${plural(you.turns, 'turn')}${inputs(debrief)} and ${percent(you.speakingShare)} of the talk, against about ${percent(debrief.expectedShare)} expected: ${debrief.expectedBasis}.`,
      speechSentence(debrief),
      `${answersSentence(debrief)}, and ${you.interruptionsMade === 0 ? 'you interrupted nobody' : `you interrupted others ${times(you.interruptionsMade)}`}.`,
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

const outcomeWords: Record<Outcome, string> = {
  answered: 'answered it',
  partly: 'answered it in part',
  'non-answer': 'a non-answer',
  evasive: 'turned it aside without giving anything',
  not: 'did not give what it asked for',
  'no-reply': 'no reply from the trainee',
};

/** What the record holds about the seat, for a model's prompt: the same figures the page shows, and what became of each question. */
const figuresOf = (debrief: Debrief): string[] => {
  const { you, speech } = debrief;
  const given = debrief.questions.byContent;
  return [
    `${you.turns} turns${inputs(debrief)}`,
    `talk share ${percent(you.speakingShare)} (about ${percent(debrief.expectedShare)} expected)`,
    speech.wordsPerMinute === null
      ? `pace, fillers and pauses: not measured (${debrief.unmeasured ?? 'no speech'}); do not mention any`
      : `${Math.round(speech.wordsPerMinute)} words per minute of speech (comfortable: ${comfortablePace.low}-${comfortablePace.high}), ${speech.fillers.count} fillers${speech.responseMs.median === null ? '' : `, reply time ${(speech.responseMs.median / 1000).toFixed(1)} s at the median`}`,
    given ? `of ${given.questions} questions put to them by name, their replies answered ${given.answered}, ${given.partly} in part, and they turned aside ${debrief.questions.dodged}` : `they spoke next after ${debrief.questions.answeredNext} of ${debrief.questions.received} questions put to them`,
    `interrupted others ${you.interruptionsMade} times`,
  ];
};

const questionFacts = (debrief: Debrief | null): string =>
  debrief && debrief.questions.put.length
    ? `What became of each question put to the trainee by name (judged by rules from the words):\n${debrief.questions.put
        .slice(0, MAX_QUOTED_LINES / 4)
        .map((q) => `[${clock(q.startMs)}] ${untagged(q.askerName)} asked; ${q.reply ? `[${clock(q.reply.startMs)}] the reply: ${outcomeWords[q.outcome]}` : outcomeWords[q.outcome]}`)
        .join('\n')}`
    : '';

const FeedbackAnswer = z.object({ paragraph: z.string().min(1), moments: z.array(z.object({ at: z.unknown() }).passthrough()).default([]) });

export const feedbackPrompt = (report: Report, transcript: readonly Line[], seat: string) => {
  const you = report.participants.find((p) => p.id === seat);
  const name = you?.name ?? seat;
  const quoted = seatLines(transcript, seat);
  const debrief = debriefOf(report, seat);
  const figures = debrief ? figuresOf(debrief) : [];
  return {
    quoted,
    system: [
      'You are a meeting coach. A trainee rehearsed a meeting with AI personas; write them short, specific, kind feedback grounded only in the transcript below. Never invent what was not said.',
      dataRule,
      'Answer with JSON only, in this format:',
      '{"paragraph": "<3 to 5 sentences to the trainee, as you>", "moments": [{"at": "<m:ss>", "why": "<a few words>"}]}',
      'Cite 1 to 4 moments, each at a time shown in brackets in the transcript. State only figures given below; a figure not given was not measured.',
    ].join('\n'),
    prompt: [
      `The trainee is ${untagged(name)}.${figures.length ? ` Their figures: ${figures.join('; ')}.` : ''}`,
      questionFacts(debrief),
      quoted.length
        ? `The trainee's lines, each with the line before it, times from the start of the session:\n\n${quoted.map(quoteLine).join('\n')}`
        : 'The trainee did not speak in this session.',
    ]
      .filter(Boolean)
      .join('\n\n'),
    debrief,
  };
};

/** "2:05" times, then the other numbers a text states (digits only: "six" is not read). */
const clocks = /\b\d{1,2}:\d{2}\b/g;
const numbers = /\d+(?:\.\d+)?/g;

/**
 * Why a model's paragraph states what the record does not hold, or null: a number that is none of
 * the figures it was given nor said in a quoted line (or a question's number in the facts), a time
 * of no quoted line, a pace when none was measured. The rules write instead, so the page never
 * shows a figure the debrief contradicts.
 */
export const ungrounded = (paragraph: string, given: readonly string[]): string | null => {
  const allowed = new Set<string>();
  const known = given.join('\n');
  for (const m of known.match(clocks) ?? []) allowed.add(m);
  for (const m of known.replace(clocks, ' ').match(numbers) ?? []) allowed.add(String(Number(m)));
  for (const m of paragraph.match(clocks) ?? []) if (!allowed.has(m)) return `it cited ${m}, when no line was said`;
  for (const m of paragraph.replace(clocks, ' ').match(numbers) ?? []) if (!allowed.has(String(Number(m)))) return `it stated ${m}, a figure the record does not hold`;
  return null;
};

/** Written feedback for `seat`: by the model when `generator` is a vendor that answers, else from the figures. */
export const feedback = async (report: Report, transcript: readonly Line[], seat: string, generator: Generator, signal?: AbortSignal): Promise<Feedback> => {
  if (!isVendor(generator) || !report.participants.some((p) => p.id === seat)) return rulesFeedback(report, transcript, seat);
  const { system, prompt, quoted, debrief } = feedbackPrompt(report, transcript, seat);
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
  const off = ungrounded(asked.value.paragraph, [...(debrief ? figuresOf(debrief) : []), questionFacts(debrief), `${comfortablePace.low} ${comfortablePace.high}`, ...quoted.map((l) => `${clock(l.startMs)} ${l.text}`)]);
  if (off) return rulesFeedback(report, transcript, seat, `${generator.name}'s paragraph was left out (${off}); written from the figures instead`);
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

/** What a question asks about, by its words: the figures and moments that answer it, before any search by meaning. */
type Topic = 'dodged' | 'unanswered' | 'answered' | 'interruptions' | 'pauses' | 'fillers' | 'pace' | 'own-questions';
const topics: [Topic, RegExp][] = [
  ['dodged', /\b(dodg\w*|evad\w*|evasi\w*|avoid\w*|sidestep\w*|side-step\w*|deflect\w*|duck\w*|skirt\w*|turn(?:ed)? aside|non-?answers?|refus\w*|declin\w*|pass(?:ed)? on)\b/i],
  ['unanswered', /\b((didn't|did not|failed to|never|not|forgot to|couldn't|could not) (really |properly |fully )?(answer|reply|respond)|unanswered|miss(ed)? (a |any |the )?questions?|left (a |any )?questions? open)\b/i],
  ['answered', /\b((which|what|how many) (of the )?questions? did i answer|answer(ed)? (well|best|properly|fully|clearly)|(good|best|strong) answers?|did i answer)\b/i],
  ['interruptions', /\b(interrupt\w*|cut (\w+ )?off|talk(ed)? over|barg(e|ed|ing) in)\b/i],
  ['pauses', /\b(paus\w*|silen\w*|hesitat\w*|slow to (answer|reply|respond)|took (me )?(too )?(long|a while)|response times?|latency|how (fast|quickly) did i (answer|reply|respond))\b/i],
  ['fillers', /\b(fillers?|um+s?|uh+s?|erm?s?|filler words?)\b/i],
  ['pace', /\b(pace|too fast|too slow|speed|words per minute|wpm|(speak|talk)(ing)? (too )?(fast|quickly|slowly))\b/i],
  ['own-questions', /\b(questions? (did )?i ask(ed)?|my (own )?questions|did i ask)\b/i],
];
const topicOf = (question: string): Topic | null => topics.find(([, pattern]) => pattern.test(question))?.[0] ?? null;

/** Why their speech was not measured, as a clause. */
const whyUnmeasured = (debrief: Debrief): string =>
  debrief.lines.typed > 0 ? `your lines were typed` : debrief.lines.simulated > 0 ? `this seat's lines were the stand-in's, simulated` : debrief.you.turns === 0 ? 'you did not speak' : 'none of your lines was transcribed speech';

/** Shown with the moments of a question put to the seat and of its reply. */
const LISTED = 4;

/** The question and its reply as moments, in time order. */
const pairMoments = (qs: readonly QuestionPut[], transcript: readonly Line[], seat: string): Answer['moments'] =>
  qs.slice(0, LISTED).flatMap((q) => {
    const asked = transcript.find((l) => l.startMs === q.startMs && l.speaker === q.asker);
    const replied = q.reply ? transcript.find((l) => l.startMs === q.reply!.startMs && l.speaker === seat) : undefined;
    return [asked, replied].filter((l): l is Line => l !== undefined).map(momentOf);
  });

const described = (q: QuestionPut): string => {
  const asked = `at ${clock(q.startMs)} ${q.askerName.split(/\s+/)[0]} asked “${gist(q.text, 10)}”`;
  if (!q.reply) return `${asked} and got no reply from you`;
  const how: Record<Outcome, string> = { answered: 'which answered it', partly: 'which answered it in part', 'non-answer': 'a non-answer', evasive: 'which turned it aside', not: 'which did not give what it asked for', 'no-reply': '' };
  return `${asked} and you said “${gist(q.reply.text, 10)}”, ${how[q.outcome]}`;
};
const listed = (qs: readonly QuestionPut[]) => `${qs.slice(0, LISTED).map(described).join('; ')}${qs.length > LISTED ? `; and ${qs.length - LISTED} more` : ''}.`;

/**
 * The rules' answer to a question about one of the debrief's topics, from its facts: the questions
 * put to the seat and what became of them, their interruptions, pauses, fillers and pace (speech
 * only), their own questions. Each finding is a moment; finding none, it says so. Null: the
 * question is about none of these, and is searched by meaning.
 */
const topicAnswer = (topic: Topic, question: string, debrief: Debrief, report: Report, transcript: readonly Line[], seat: string): Pick<Answer, 'answer' | 'moments'> => {
  // "Did I answer Raj?": the questions a participant the question names put to them.
  const named = report.participants.filter((p) => p.id !== seat && p.name.split(/\s+/).some((w) => w.length > 1 && new RegExp(`\\b${w.replace(/[^\p{L}'-]/gu, '')}\\b`, 'iu').test(question)));
  const put = named.length ? debrief.questions.put.filter((q) => named.some((p) => p.id === q.asker)) : debrief.questions.put;
  const by = named.length ? ` by ${named.map((p) => p.name.split(/\s+/)[0]).join(' or ')}` : ' by name';
  const mine = transcript.filter((l) => l.speaker === seat);
  const none = (answer: string, moments: Answer['moments'] = []) => ({ answer, moments });
  if (mine.length === 0 && topic !== 'interruptions') {
    return none(put.length ? `You did not speak in this session: ${put.length === 1 ? 'the question' : `the ${put.length} questions`} put to you by name got no reply from you.` : 'You did not speak in this session, so there is nothing of yours to find.', pairMoments(put, transcript, seat));
  }
  switch (topic) {
    case 'dodged':
    case 'unanswered':
    case 'answered': {
      if (put.length === 0) return none(`${named.length ? named.map((p) => p.name.split(/\s+/)[0]).join(' or ') : 'Nobody'} put ${named.length ? 'no' : 'a'} question to you by name, so there is no ${topic === 'answered' ? 'answer' : 'dodge'} of yours to find.`);
      const wanted = (q: QuestionPut) => (topic === 'dodged' ? dodges.has(q.outcome) : topic === 'answered' ? q.outcome === 'answered' || q.outcome === 'partly' : q.outcome !== 'answered');
      const found = put.filter(wanted);
      if (found.length === 0) {
        if (topic === 'answered') return none(`${put.length === 1 ? 'Your reply did not answer the question' : `None of your replies answered the ${put.length} questions`} put to you${by}: ${listed(put)}`, pairMoments(put, transcript, seat));
        const other = topic === 'dodged' ? put.filter((q) => q.outcome === 'not' || q.outcome === 'no-reply') : [];
        return none(
          topic === 'dodged'
            ? `I found no dodge: none of the ${plural(put.length, 'question')} put to you${by} got a non-answer or was turned aside.${other.length ? ` ${other.length === 1 ? 'One' : other.length} got a reply that did not give what was asked, though: ${listed(other)}` : ''}`
            : `Your replies answered all ${plural(put.length, 'question')} put to you${by}.`,
          pairMoments(other, transcript, seat),
        );
      }
      const lead =
        topic === 'dodged'
          ? `You turned aside ${found.length} of the ${plural(put.length, 'question')} put to you${by} (a non-answer, or a reply that gives nothing of what was asked): `
          : topic === 'answered'
            ? `Your replies answered ${found.filter((q) => q.outcome === 'answered').length} of the ${plural(put.length, 'question')} put to you${by}${found.some((q) => q.outcome === 'partly') ? `, and ${found.filter((q) => q.outcome === 'partly').length} more in part` : ''}: `
            : `${found.length} of the ${plural(put.length, 'question')} put to you${by} did not get an answer from you: `;
      return { answer: `${lead}${listed(found)}`, moments: pairMoments(found, transcript, seat) };
    }
    case 'interruptions': {
      const cuts = report.timeline.filter((i) => i.kind === 'interruption' && (i.participant === seat || i.of === seat));
      if (cuts.length === 0) return none('Nobody interrupted anyone where you were concerned: you cut nobody off, and nobody cut you off.');
      const made = cuts.filter((i) => i.participant === seat);
      const lines = cuts.slice(0, LISTED).map((i) => transcript.findLast((l) => l.startMs <= i.startMs) ?? transcript[0]!).filter(Boolean);
      return {
        answer: `You interrupted others ${made.length === 1 ? 'once' : `${made.length} times`}, and were interrupted ${cuts.length - made.length === 1 ? 'once' : `${cuts.length - made.length} times`}: ${cuts.slice(0, LISTED).map((i) => `at ${clock(i.startMs)} ${i.participant === seat ? `you cut in on ${report.participants.find((p) => p.id === i.of)?.name ?? i.of}` : `${report.participants.find((p) => p.id === i.participant)?.name ?? i.participant} cut in on you`}`).join('; ')}.`,
        moments: [...new Map(lines.map((l) => [l.startMs, momentOf(l)])).values()],
      };
    }
    case 'pauses': {
      const pause = debrief.speech.longestPause;
      if (!pause) return none(debrief.unmeasured ? `No pauses were measured: ${whyUnmeasured(debrief)}, and pauses are measured on speech only.` : 'You never spoke right after someone else, so there was no pause of yours to measure.');
      const at = transcript.find((l) => l.startMs === pause.atMs && l.speaker === seat);
      const after = transcript.find((l) => l.startMs === pause.after.startMs);
      return {
        answer: `Your longest pause before speaking was ${(pause.ms / 1000).toFixed(1)} s, at ${clock(pause.atMs)}, after ${pause.after.name.split(/\s+/)[0]} said “${gist(pause.after.text, 10)}” (time the session was paused is not counted). Your median was ${(debrief.speech.responseMs.median! / 1000).toFixed(1)} s over ${plural(debrief.speech.responseMs.samples, 'reply', 'replies')}.`,
        moments: [after, at].filter((l): l is Line => l !== undefined).map(momentOf),
      };
    }
    case 'fillers': {
      if (debrief.unmeasured) return none(`No fillers were counted: ${whyUnmeasured(debrief)}, and fillers are counted in speech only.`);
      const filled = mine.filter((l) => fillersIn(l.text).length > 0);
      if (filled.length === 0) return none('You used no fillers (um, uh, like…) as you spoke.');
      return { answer: `You used ${plural(debrief.speech.fillers.count, 'filler')} as you spoke (${debrief.speech.fillersPerMinute} a minute), most often “${debrief.speech.fillers.list[0]!.filler}”; these lines have the most:`, moments: [...filled].sort((a, b) => fillersIn(b.text).length - fillersIn(a.text).length).slice(0, 3).sort((a, b) => a.startMs - b.startMs).map(momentOf) };
    }
    case 'pace': {
      const wpm = debrief.speech.wordsPerMinute;
      if (wpm === null) return none(`No pace was measured: ${whyUnmeasured(debrief)}, and pace is measured on speech only.`);
      const band = wpm > comfortablePace.high ? 'above' : wpm < comfortablePace.low ? 'below' : 'within';
      const longest = [...mine].sort((a, b) => b.endMs - b.startMs - (a.endMs - a.startMs)).slice(0, 2).sort((a, b) => a.startMs - b.startMs);
      return { answer: `You spoke at ${Math.round(wpm)} words per minute, ${band} the comfortable ${comfortablePace.low}–${comfortablePace.high}; your longest turns:`, moments: longest.map(momentOf) };
    }
    case 'own-questions': {
      const asked = mine.filter((l) => understand(l.text).act === 'question');
      if (asked.length === 0) return none('You asked no questions in this session.');
      return { answer: `You asked ${plural(asked.length, 'question')}:`, moments: asked.slice(0, LISTED).map(momentOf) };
    }
  }
};

/** The rules' answer: a topic of the debrief from its facts, else the lines most like the question in meaning, else plainly nothing. */
const rulesAnswer = (question: string, transcript: readonly Line[], seat: string, report: Report | undefined, why?: string): Answer => {
  const by = { by: 'rules' as const, ...(why ? { note: `${why}; answered by the rules instead` } : {}) };
  if (understand(question).act === 'foreign') {
    return { answer: 'The question box reads questions in English, and this one looks like another language, so nothing was searched. Try, for example: “When did I dodge a question?”', moments: [], ...by };
  }
  if (transcript.length === 0) return { answer: 'Nothing was said in this session, so there is nothing to search.', moments: [], ...by };
  const topic = topicOf(question);
  const debrief = report && topic ? debriefOf(report, seat) : null;
  if (topic && debrief && report) return { ...topicAnswer(topic, question, debrief, report, transcript, seat), ...by };
  return retrieved(question, transcript, seat, why ? `${why}; the most related lines instead` : undefined);
};

export const answerPrompt = (question: string, transcript: readonly Line[], seat: string, seatName: string, debrief: Debrief | null = null) => {
  // A long transcript is cut to the lines most like the question, kept in time order.
  const quoted = transcript.length <= MAX_QUOTED_LINES ? [...transcript] : relevantLines(question, transcript, MAX_QUOTED_LINES).sort((a, b) => a.startMs - b.startMs);
  return {
    quoted,
    system: [
      'You answer a trainee\'s question about a meeting they rehearsed, from its transcript only. If the transcript does not answer it, say so. Never invent what was not said.',
      dataRule,
      'Answer with JSON only, in this format:',
      '{"answer": "<one to three sentences, to the trainee, as you>", "moments": [{"at": "<m:ss>"}]}',
      'Cite the moments your answer rests on (at most 4), each at a time shown in brackets in the transcript. A dodge is a question put to the trainee met with a non-answer or a reply that gives nothing of what was asked.',
    ].join('\n'),
    prompt: [
      `The trainee is ${untagged(seatName)} (participant id ${untagged(seat)}).${debrief ? ` Their figures: ${figuresOf(debrief).join('; ')}.` : ''}`,
      questionFacts(debrief),
      `The transcript, times from the start of the session${quoted.length < transcript.length ? ` (the ${quoted.length} lines most related to the question)` : ''}:\n\n${quoted.map(quoteLine).join('\n')}`,
      `The trainee's question:\n<question>${untagged(question)}</question>`,
    ]
      .filter(Boolean)
      .join('\n\n'),
  };
};

/**
 * An answer to `question` (cleaned and capped here too) from the transcript: the model's, or the
 * rules' (a topic of the debrief from its facts when `report` is given, else the most relevant lines).
 */
export const answer = async (question: string, transcript: readonly Line[], seat: string, generator: Generator, signal?: AbortSignal, report?: Report): Promise<Answer> => {
  const asking = cleanQuestion(question);
  if (!isVendor(generator)) return rulesAnswer(asking, transcript, seat, report);
  const seatName = transcript.find((l) => l.speaker === seat)?.name ?? seat;
  const { system, prompt, quoted } = answerPrompt(asking, transcript, seat, seatName, report ? debriefOf(report, seat) : null);
  const asked = await askForJson(
    generator,
    { system, prompt, maxTokens: 500 },
    (text) => {
      const parsed = QuestionAnswer.safeParse(jsonIn(text));
      return parsed.success ? parsed.data : null;
    },
    signal,
  );
  if (!asked.ok) return rulesAnswer(asking, transcript, seat, report, asked.why);
  const cited = new Map<number, Line>();
  for (const m of asked.value.moments) {
    const line = lineAt(m.at, quoted);
    if (line) cited.set(line.startMs, line);
  }
  return { answer: cleanText(asked.value.answer), moments: [...cited.values()].sort((a, b) => a.startMs - b.startMs).map(momentOf), by: 'model', vendor: generator.name };
};
