/**
 * The trainee's debrief (issue 17, part 3; issue 25: a debrief that only says what happened), by
 * rules: for one seat of a report, how their talk share compares with what the room expects of
 * them, what became of each question put to them, and the three most notable observations, each
 * with its numbers and at least one moment it rests on (times from the session's start, which the
 * page links into the review). The written feedback (feedback.ts) is written from the same
 * `Debrief`, so the two cannot disagree.
 *
 * What is measured on what:
 * - Pace, fillers and pauses on speech only (lines transcribed with the VAD's times, `input:
 *   'speech'`): a typed line's length is only an estimate from its words, and a stand-in's is the
 *   simulation's, so they get none ("typed — no pace measured").
 * - A pause runs from the end of another's line to the seat's first word, less the time the
 *   instructor had the session paused or a proposal waited for approval; a reply after a skipped
 *   turn is not a pause of theirs.
 * - A question put to them by name (a designated question or request) is answered only when the
 *   reply gives what was asked (metrics/answers.ts, engine/understanding.ts's answerFit); a
 *   non-answer ("Pass.", "No comment") and a reply that turns it aside ("It depends", "That's a
 *   big question") are dodges, whatever answerFit made of their words.
 *
 * Pure: a report in, figures and sentences out, never an exception (a seat that never spoke, a
 * session without utterances, a report from an older version each give plain words).
 *
 * ```ts
 * const debrief = debriefOf(report, 'jordan');
 * debrief.observations; // at most three, the most notable first, each with its moments
 * ```
 */
import { saysUnknowing, understand } from '../engine/understanding';
import { contentWords } from '../engine/vocabulary';
import { offersQuestions, type AnswerCount } from '../metrics/answers';
import { clock, comfortablePace, gist, type Debrief, type Moment, type Observation, type Outcome, type QuestionPut, type SpeechFigures } from '../../shared/review/answers';
import { fillersIn } from './fillers';
import { fillerWords, type Filler } from '../../shared/review/report';
import type { ParticipantReport, Report, TimelineItem } from '../../shared/review/report';

export { clock, comfortablePace, gist };
export type { Debrief, Moment, Observation };

const percent = (share: number) => `${Math.round(share * 100)}%`;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const round1 = (x: number) => Math.round(x * 10) / 10;

type Utterance = TimelineItem & { participant: string };
const utterances = (report: Report): Utterance[] =>
  report.timeline.filter((i): i is Utterance => i.kind === 'utterance' && i.participant !== null).sort((a, b) => a.startMs - b.startMs);

const momentAt = (startMs: number): Moment => ({ startMs, label: clock(startMs) });
const momentsOf = (starts: readonly number[], count = 3): Moment[] => [...new Set(starts)].sort((a, b) => a - b).slice(0, count).map(momentAt);
/** The `count` lines that score highest, in time order: the moments an observation points to. */
const topMoments = (lines: readonly Utterance[], score: (u: Utterance) => number, count = 3): Moment[] =>
  momentsOf(
    lines
      .map((u) => ({ u, score: score(u) }))
      .filter((s) => Number.isFinite(s.score) && s.score > 0)
      .sort((a, b) => b.score - a.score || a.u.startMs - b.u.startMs)
      .slice(0, count)
      .map((s) => s.u.startMs),
    count,
  );
const lengthOf = (u: Utterance) => u.endMs - u.startMs;
const wordsIn = (text: string | undefined) => (text ?? '').trim().split(/\s+/).filter(Boolean).length;
/** A line's own pace, words per minute; 0 for a line too short to time (under five words or a second). */
const paceOf = (u: Utterance): number => {
  const ms = lengthOf(u);
  return wordsIn(u.text) >= 5 && ms >= 1000 ? wordsIn(u.text) / (ms / 60_000) : 0;
};

const nameOf = (report: Report, id: string | null | undefined) => report.participants.find((p) => p.id === id)?.name ?? id ?? 'someone';
/** "Hannah" for Hannah Okafor; a title keeps its name: "Professor Ito", "Dr. Farouk". */
const firstName = (report: Report, id: string | null | undefined) => {
  const words = nameOf(report, id).split(/\s+/);
  return /^(dr|prof|professor|detective|inspector|mr|mrs|ms|miss|sir|dame|lady|lord|captain|judge)\.?$/i.test(words[0]!) && words.length > 1 ? `${words[0]} ${words.at(-1)}` : words[0]!;
};

/**
 * Expected share of the talk: what the scene expects of the seat (the report carries it, from the
 * scene's `expectedShare` or its roles: review/expectation.ts), else an even split among those who
 * spoke or were seated (1 / participants), for reports built without their scene.
 */
export const expectationOf = (report: Report, seat?: string): { share: number; basis: string } => {
  const you = report.participants.find((p) => p.id === seat);
  if (you?.expectedShare !== undefined && you.expectedShare > 0) return { share: you.expectedShare, basis: you.expectedBasis ?? 'what the scene expects of you' };
  const n = Math.max(1, report.participants.length);
  return { share: 1 / n, basis: `an even split among the ${plural(n, 'participant')} (1 / ${n})` };
};

// ---------------------------------------------------------------------------------------------
// What became of the questions put to them

/**
 * Turning a question aside without giving anything. understanding.ts reads "It depends on a lot
 * of things" as an answer to a how-question (it holds "a lot"); here it is a dodge when little else
 * is said (EVASIVE_WORDS content words beyond the phrase).
 */
const evasion =
  /\b(it (all )?depends|(that's|that is|what) a (big|good|great|tough|hard|difficult|loaded) question|good question|great question|hard to say|difficult to say|let's move on|come back to (that|this|it)|(don't|do not|rather not|prefer not to) (really )?(want to )?(talk about|get into|go into|discuss|answer)|not (going|prepared|able) to (answer|say|discuss|get into)|can't (really )?(say|answer|comment)|no comment|next question|i'll pass|skip (that|this)( one)?|pass on that|you'd have to ask|that's not something i)\b/i;
const EVASIVE_WORDS = 4;
/** Words an evasion is made of: what is left is what the reply gave. */
const evasionWords = new Set(contentWords('it all depends big good great tough hard difficult loaded question say move come back talk get go discuss answer comment next skip pass really want prepared able lot things many thing kind sort depend'));

export const outcomeOf = (reply: string, fit: TimelineItem['answer']): Outcome => {
  const understood = understand(reply);
  if (understood.act === 'non-answer' && fit !== 'partly') return 'non-answer';
  // A question back and nothing else gives nothing asked (answerFit may find the question's words in it).
  if (understood.act === 'question' && (reply.match(/[^.!?]+[.!?]*/g) ?? []).filter((s) => s.trim()).length <= 1) return 'not';
  if (evasion.test(reply) && fit !== 'partly') {
    const given = contentWords(reply).filter((w) => !evasionWords.has(w));
    if (given.length <= EVASIVE_WORDS) return understood.act === 'non-answer' || /^\W*(no comment|pass|skip|next question)\b/i.test(reply) ? 'non-answer' : 'evasive';
  }
  // "I haven't got a good answer on that yet" gives nothing of what was asked, however politely: not even a part of it.
  if (saysUnknowing(reply) && fit !== 'answered' && contentWords(reply).length <= UNKNOWING_WORDS) return 'not';
  return fit === 'answered' ? 'answered' : fit === 'partly' ? 'partly' : 'not';
};
/** Words a plain "I don't know" is made of at most, with what it names ("I'd have to think about the big customer"). */
const UNKNOWING_WORDS = 6;

/** The designated questions and requests put to `seat`, with their replies and outcomes; null for a report without answers (older versions). */
const questionsPut = (report: Report, said: readonly Utterance[], seat: string): QuestionPut[] | null => {
  // An asker's seat (a detective, an interviewer) is asked questions, not given requests to answer.
  const asks = report.participants.find((p) => p.id === seat)?.asks === true;
  const put = said.filter((u) => u.participant !== seat && u.addressee === seat && (u.pair === 'question' || (u.pair === 'request' && !asks)) && !offersQuestions(u.text ?? ''));
  if (put.some((u) => u.answer === undefined)) return null;
  const byId = new Map(said.map((u) => [u.utterance, u]));
  return put.map((q) => {
    const reply = q.reply ? byId.get(q.reply) : undefined;
    return {
      startMs: q.startMs,
      asker: q.participant,
      askerName: nameOf(report, q.participant),
      text: q.text ?? '',
      reply: reply ? { startMs: reply.startMs, endMs: reply.endMs, text: reply.text ?? '' } : null,
      outcome: reply ? outcomeOf(reply.text ?? '', q.answer) : 'no-reply',
    };
  });
};

export const dodges = new Set<Outcome>(['non-answer', 'evasive']);

// ---------------------------------------------------------------------------------------------
// Speech: pace, fillers, pauses

/** Stretches that are nobody's pause: the instructor had the session paused, or a proposal waited for their decision. */
const heldSpans = (report: Report): { from: number; to: number }[] => {
  const spans: { from: number; to: number }[] = [];
  let pausedAt: number | null = null;
  for (const item of [...report.timeline].sort((a, b) => a.startMs - b.startMs)) {
    if (item.code === 'paused' && pausedAt === null) pausedAt = item.startMs;
    else if (item.code === 'resumed' && pausedAt !== null) {
      spans.push({ from: pausedAt, to: item.startMs });
      pausedAt = null;
    } else if (item.code?.startsWith('approval-') && item.endMs > item.startMs) spans.push({ from: item.startMs, to: item.endMs });
  }
  if (pausedAt !== null) spans.push({ from: pausedAt, to: Infinity });
  return spans;
};

const median = (sorted: readonly number[]): number | null => {
  if (sorted.length === 0) return null;
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const nearestRank = (sorted: readonly number[], p: number): number | null => (sorted.length === 0 ? null : sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1]!);

const speechOf = (report: Report, said: readonly Utterance[], seat: string, spoken: (u: Utterance) => boolean): SpeechFigures => {
  const mine = said.filter((u) => u.participant === seat && spoken(u));
  const speakingMs = mine.reduce((sum, u) => sum + lengthOf(u), 0);
  const words = mine.reduce((sum, u) => sum + wordsIn(u.text), 0);
  const counted = new Map<Filler, number>();
  for (const u of mine) for (const f of fillersIn(u.text ?? '')) counted.set(f, (counted.get(f) ?? 0) + 1);
  const list = [...counted.entries()].sort((a, b) => b[1] - a[1] || fillerWords.indexOf(a[0]) - fillerWords.indexOf(b[0])).map(([filler, count]) => ({ filler, count }));
  const fillerCount = list.reduce((sum, f) => sum + f.count, 0);
  const minutes = speakingMs / 60_000;

  const held = heldSpans(report);
  const skips = report.timeline.filter((i) => i.code === 'turn-skipped').map((i) => i.startMs);
  const gaps: { ms: number; at: Utterance; after: Utterance }[] = [];
  said.forEach((u, i) => {
    const before = said[i - 1];
    if (u.participant !== seat || !spoken(u) || !before || before.participant === seat) return;
    const from = before.endMs;
    const to = u.startMs;
    // The floor moved by the instructor's hand: not a pause of theirs.
    if (skips.some((t) => t >= from && t <= to)) return;
    const heldMs = held.reduce((sum, s) => sum + Math.max(0, Math.min(to, s.to) - Math.max(from, s.from)), 0);
    gaps.push({ ms: Math.max(0, to - from - heldMs), at: u, after: before });
  });
  const sorted = gaps.map((g) => g.ms).sort((a, b) => a - b);
  const longest = gaps.reduce<(typeof gaps)[number] | null>((a, b) => (!a || b.ms > a.ms ? b : a), null);
  return {
    turns: mine.length,
    words,
    speakingMs,
    wordsPerMinute: speakingMs > 0 && words > 0 ? round1(words / minutes) : null,
    fillers: { count: fillerCount, list },
    fillersPerMinute: speakingMs > 0 ? round1(fillerCount / minutes) : null,
    responseMs: { median: median(sorted), p90: nearestRank(sorted, 90), samples: sorted.length },
    longestPause: longest ? { ms: longest.ms, atMs: longest.at.startMs, after: { participant: longest.after.participant, name: nameOf(report, longest.after.participant), text: longest.after.text ?? '', startMs: longest.after.startMs } } : null,
  };
};

// ---------------------------------------------------------------------------------------------

export const debriefOf = (report: Report, seat: string): Debrief | null => {
  const you = report.participants.find((p) => p.id === seat);
  if (!you) return null;
  const { share: expectedShare, basis: expectedBasis } = expectationOf(report, seat);
  const said = utterances(report);
  const mine = said.filter((u) => u.participant === seat);
  const lines = { speech: 0, typed: 0, simulated: 0, instructor: 0, unknown: 0 };
  for (const u of mine) lines[u.input ?? 'unknown'] += 1;
  // A report from before lines said how they came in: its lines are taken as speech, as it measured them.
  const legacy = mine.length > 0 && lines.unknown === mine.length;
  const spoken = (u: Utterance) => u.input === 'speech' || (legacy && u.input === undefined);
  const speech = speechOf(report, said, seat, spoken);
  const unmeasured =
    mine.length === 0
      ? 'not measured: you did not speak'
      : speech.turns > 0
        ? null
        : lines.typed > 0 && lines.typed >= lines.simulated
          ? 'typed — no pace measured'
          : lines.simulated > 0
            ? 'simulated — no pace measured'
            : 'not spoken — no pace measured';
  const put = questionsPut(report, said, seat);
  const count = (o: Outcome) => put?.filter((q) => q.outcome === o).length ?? 0;
  const byContent: AnswerCount | null = put ? { questions: put.length, answered: count('answered'), partly: count('partly'), not: put.length - count('answered') - count('partly') } : null;
  const dodged = put?.filter((q) => dodges.has(q.outcome)) ?? [];
  const found: Observation[] = [];
  const others = said.filter((u) => u.participant !== seat);

  if (mine.length === 0) {
    const chances = put?.length ? put.map((q) => q.startMs) : others.map((u) => u.startMs);
    found.push({
      id: 'silent',
      tone: said.length === 0 ? 'note' : 'improve',
      weight: 10,
      // Nobody spoke: the session's start is all there is to point to.
      moments: said.length === 0 ? [momentAt(0)] : momentsOf(chances),
      text:
        said.length === 0
          ? 'Nobody spoke in this session, so there is nothing to measure yet.'
          : put?.length
            ? `You did not speak in this session, though ${plural(put.length, 'question was', 'questions were')} put to you by name; the others spoke ${plural(others.length, 'time')}. Next time, answer when you are asked, and come in at least once in each part of the meeting.`
            : `You did not speak in this session; the others spoke ${plural(others.length, 'time')}. Next time, try to come in at least once in each part of the meeting.`,
    });
  }

  // Talk share against what the scene expects.
  if (mine.length > 0 && report.participants.length > 1 && others.length > 0) {
    const ratio = you.speakingShare / expectedShare;
    if (ratio >= 1.5) {
      found.push({ id: 'share-high', tone: 'improve', weight: ratio, moments: topMoments(mine, lengthOf), text: `You took ${percent(you.speakingShare)} of the talk, against about ${percent(expectedShare)} expected; leave the others more room.` });
    } else if (ratio <= 0.5) {
      // The others' longest lines: the stretches they could have come in after.
      found.push({ id: 'share-low', tone: 'improve', weight: 1 / Math.max(ratio, 0.1), moments: topMoments(others, lengthOf), text: `You took ${percent(you.speakingShare)} of the talk, against about ${percent(expectedShare)} expected; come in more often.` });
    }
  }

  // Pace outside the comfortable band: speech only.
  const spokenLines = mine.filter(spoken);
  const wpm = speech.wordsPerMinute;
  if (wpm !== null && speech.words >= 20) {
    if (wpm > comfortablePace.high) {
      found.push({ id: 'pace-fast', tone: 'improve', weight: 1 + (wpm - comfortablePace.high) / 20, moments: topMoments(spokenLines, paceOf), text: `You spoke at ${Math.round(wpm)} words per minute, above the comfortable ${comfortablePace.low}–${comfortablePace.high}; slow down and pause between points.` });
    } else if (wpm < comfortablePace.low) {
      found.push({ id: 'pace-slow', tone: 'improve', weight: 1 + (comfortablePace.low - wpm) / 20, moments: topMoments(spokenLines, (u) => (paceOf(u) > 0 ? 1 / paceOf(u) : 0)), text: `You spoke at ${Math.round(wpm)} words per minute, below the comfortable ${comfortablePace.low}–${comfortablePace.high}; a little more pace keeps the room with you.` });
    }
  }

  // Fillers above about 3 a minute of speech.
  if (speech.fillersPerMinute !== null && speech.fillersPerMinute > 3 && speech.fillers.list.length > 0) {
    const top = speech.fillers.list[0]!;
    found.push({
      id: 'fillers',
      tone: 'improve',
      weight: speech.fillersPerMinute / 2,
      moments: topMoments(spokenLines, (u) => fillersIn(u.text ?? '').length),
      text: `You used ${plural(speech.fillers.count, 'filler')} as you spoke (${speech.fillersPerMinute} a minute), ${top.count > 1 ? `most often “${top.filler}” (${top.count}×)` : speech.fillers.list.map((f) => `“${f.filler}”`).join(', ')}; a short pause works better.`,
    });
  }

  const pause = speech.longestPause;
  if (speech.responseMs.p90 !== null && speech.responseMs.p90 > 3000 && pause) {
    found.push({
      id: 'slow-response',
      tone: 'improve',
      weight: speech.responseMs.p90 / 2000,
      moments: [momentAt(pause.atMs)],
      text: `Your spoken replies took ${(speech.responseMs.median! / 1000).toFixed(1)} s at the median and ${(speech.responseMs.p90 / 1000).toFixed(1)} s at the slowest tenth (not counting the time the session was paused); the longest pause, ${(pause.ms / 1000).toFixed(1)} s, came at ${clock(pause.atMs)} after ${firstName(report, pause.after.participant)} said “${gist(pause.after.text)}”.`,
    });
  }

  // Dodged: a question put to them by name met with a non-answer or turned aside.
  if (put && dodged.length > 0) {
    const first = dodged[0]!;
    found.push({
      id: 'dodged',
      tone: 'improve',
      weight: 2.5 + dodged.length,
      moments: momentsOf(dodged.map((q) => q.startMs)),
      text: `You turned aside ${plural(dodged.length, 'question')} of the ${put.length} put to you by name; the first, ${firstName(report, first.asker)}'s at ${clock(first.startMs)} (“${gist(first.text)}”), got “${gist(first.reply?.text)}”${first.outcome === 'non-answer' ? ', a non-answer' : ', which gives nothing of what was asked'}. Even a short, honest answer serves you better.`,
    });
  }

  // Not answered by content: the reply's words did not give what was asked, or no reply came.
  const missed = put?.filter((q) => q.outcome === 'not' || q.outcome === 'no-reply' || q.outcome === 'partly') ?? [];
  if (put && missed.length > 0) {
    const one = missed.find((q) => q.outcome === 'no-reply') ?? missed.find((q) => q.outcome === 'not') ?? missed[0]!;
    const about = `${firstName(report, one.asker)}'s question at ${clock(one.startMs)} (“${gist(one.text)}”)`;
    const what = one.reply
      ? `your reply to ${about}, “${gist(one.reply.text)}”, ${one.outcome === 'partly' ? 'answered it only in part' : 'did not give what it asked for'}`
      : `${about} got no reply from you`;
    found.push({
      id: 'unanswered',
      tone: 'improve',
      weight: 2 + missed.filter((q) => q.outcome !== 'partly').length + missed.filter((q) => q.outcome === 'partly').length / 2,
      moments: momentsOf(missed.map((q) => q.startMs)),
      text: `Your replies answered ${byContent!.answered} of the ${plural(put.length, 'question')} put to you by name${byContent!.partly > 0 ? ` (${byContent!.partly} more in part)` : ''}; ${what}.`,
    });
  }

  const made = report.timeline.filter((i) => i.kind === 'interruption' && i.participant === seat);
  if (made.length > 0) {
    found.push({
      id: 'interruptions',
      tone: 'improve',
      weight: 1.5 + made.length,
      moments: momentsOf(made.map((i) => i.startMs)),
      text: `You interrupted ${plural(made.length, 'time')} (first ${firstName(report, made[0]!.of)} at ${clock(made[0]!.startMs)}), and were interrupted ${plural(you.interruptionsReceived, 'time')}; let the speaker finish their point.`,
    });
  }

  // Over a minute holding the floor: speech only (a typed line's length is an estimate).
  const long = spokenLines.filter((u) => lengthOf(u) > 60_000);
  if (long.length > 0) {
    const longest = long.reduce((a, b) => (lengthOf(b) > lengthOf(a) ? b : a));
    found.push({
      id: 'long-turns',
      tone: 'improve',
      weight: 1.5 + long.length / 2,
      moments: momentsOf(long.map((u) => u.startMs)),
      text: `You held the floor for over a minute ${plural(long.length, 'time')}; the longest, ${Math.round(lengthOf(longest) / 1000)} s, began at ${clock(longest.startMs)}. Break long answers into shorter turns.`,
    });
  }

  const observations = found.sort((a, b) => b.weight - a.weight).slice(0, 3);
  // Typed lines: say what was not measured and why, before anything that went well.
  if (observations.length < 3 && lines.typed > 0 && speech.turns === 0) {
    observations.push({
      id: 'typed',
      tone: 'note',
      weight: 0,
      moments: momentsOf(mine.filter((u) => u.input === 'typed').map((u) => u.startMs)),
      text: `You typed ${lines.typed === mine.length ? (lines.typed === 1 ? 'your one line' : lines.typed === 2 ? 'both your lines' : `all ${lines.typed} lines`) : plural(lines.typed, 'line')}, so no pace, fillers or pauses were measured; speak with the microphone to have them measured.`,
    });
  }
  // Room left, and something went well: say so, with its numbers and moments.
  if (observations.length < 3 && mine.length > 0) observations.push(...positives({ report, you, expectedShare, speech, put, mine, spokenLines, others, found }).slice(0, 3 - observations.length));
  return {
    you,
    expectedShare,
    expectedBasis,
    lines,
    speech,
    unmeasured,
    fillersPerMinute: speech.fillersPerMinute,
    questions: { received: you.questionsReceived, answeredNext: you.questionsAnswered, byContent, put: put ?? [], dodged: dodged.length },
    observations,
  };
};

interface Facts {
  report: Report;
  you: ParticipantReport;
  expectedShare: number;
  speech: SpeechFigures;
  put: QuestionPut[] | null;
  mine: Utterance[];
  spokenLines: Utterance[];
  others: Utterance[];
  found: Observation[];
}

/** What was in range, as observations, each with the moments it rests on: pace, share, questions, fillers, response time, interruptions. */
const positives = ({ report, you, expectedShare, speech, put, mine, spokenLines, others, found }: Facts): Observation[] => {
  const flagged = new Set(found.map((o) => o.id));
  const good: Observation[] = [];
  const add = (id: Observation['id'], text: string, at: Moment[]) => {
    if (at.length > 0) good.push({ id, tone: 'positive', weight: 0, moments: at, text });
  };
  const wpm = speech.wordsPerMinute;
  if (wpm !== null && speech.words >= 20 && wpm >= comfortablePace.low && wpm <= comfortablePace.high) {
    add('pace-ok', `Your pace, ${Math.round(wpm)} words per minute of speech, sat in the comfortable ${comfortablePace.low}–${comfortablePace.high} band; your longest spoken turn is a good one to listen back to.`, topMoments(spokenLines, lengthOf, 1));
  }
  // Close: within a quarter of what is expected either way.
  const ratio = you.speakingShare / expectedShare;
  if (!flagged.has('share-high') && !flagged.has('share-low') && others.length > 0 && ratio >= 0.75 && ratio <= 1.33) add('share-ok', `Your share of the talk, ${percent(you.speakingShare)}, was close to the ${percent(expectedShare)} expected of you.`, topMoments(mine, lengthOf, 1));
  if (put && put.length > 0 && put.every((q) => q.outcome === 'answered')) add('questions-ok', put.length === 1 ? 'Your reply answered the one question put to you by name: it gave what was asked.' : `Your replies answered all ${put.length} questions put to you by name: each gave what was asked.`, momentsOf(put.map((q) => q.startMs)));
  if (speech.fillersPerMinute !== null && !flagged.has('fillers')) {
    const cleanest = spokenLines.filter((u) => fillersIn(u.text ?? '').length === 0);
    add('fillers-ok', speech.fillers.count === 0 ? 'You used no fillers (um, uh, like…) as you spoke.' : `You kept fillers low: ${plural(speech.fillers.count, 'filler')}, ${speech.fillersPerMinute} a minute of speech.`, topMoments(cleanest.length ? cleanest : spokenLines, lengthOf, 1));
  }
  if (speech.responseMs.median !== null && !flagged.has('slow-response')) {
    const replies = spokenLines.filter((u) => u.startMs > 0);
    add('latency-ok', `You came in promptly when you spoke: ${(speech.responseMs.median / 1000).toFixed(1)} s at the median after the previous speaker finished.`, topMoments(replies, lengthOf, 2));
  }
  if (!flagged.has('interruptions') && you.interruptionsMade === 0 && !report.timeline.some((i) => i.kind === 'interruption' && i.participant === you.id)) {
    add('no-interruptions', 'You let every speaker finish: no interruptions.', topMoments(others, lengthOf, 2));
  }
  return good;
};
