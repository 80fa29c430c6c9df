/**
 * The trainee's debrief (issue 17, part 3), rule-based: for one seat of a report, how their talk
 * share compares with what the room expects of them, and the three most notable observations, each
 * with its numbers and the moments it refers to (times from the session's start, which the page
 * links into the review). Pure: a report in, figures and sentences out, never an exception (a seat
 * that never spoke, a session without utterances, a report without gaze each give plain words).
 *
 * ```ts
 * const debrief = debriefOf(report, 'jordan');
 * debrief.observations; // at most three, the most notable first
 * ```
 */
import type { AnswerCount } from '../metrics/answers';
import { fillersIn } from './fillers';
import type { ParticipantReport, Report, TimelineItem } from './report';

/** The comfortable pace band, words per minute. */
export const comfortablePace = { low: 140, high: 160 } as const;

export interface Moment {
  startMs: number;
  label: string;
}

export interface Observation {
  id: 'share-high' | 'share-low' | 'pace-fast' | 'pace-slow' | 'fillers' | 'slow-response' | 'unanswered' | 'interruptions' | 'long-turns' | 'silent' | 'pace-ok' | 'share-ok' | 'questions-ok' | 'fillers-ok' | 'latency-ok' | 'no-interruptions';
  /** `note`: nothing to judge (nobody spoke). */
  tone: 'positive' | 'improve' | 'note';
  text: string;
  moments: Moment[];
  /** How far from comfortable: the three highest are shown. */
  weight: number;
}

export interface Debrief {
  you: ParticipantReport;
  /** The share of the talk a participant is expected to take, and why. */
  expectedShare: number;
  expectedBasis: string;
  fillersPerMinute: number | null;
  /**
   * Questions put to them by name: how many, after how many they spoke next, and how their replies
   * answered the questions and requests put to them by content (`null` in a report without it).
   */
  questions: { received: number; answeredNext: number; byContent: AnswerCount | null };
  observations: Observation[];
}

/** 192000 → "3:12" (whole seconds elapsed, as a player shows). */
export const clock = (ms: number): string => {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
};

const percent = (share: number) => `${Math.round(share * 100)}%`;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
/** The first words of a line, for naming a moment. */
export const gist = (text: string | undefined, words = 12): string => {
  const all = (text ?? '').trim().split(/\s+/).filter(Boolean);
  return all.length <= words ? all.join(' ') : `${all.slice(0, words).join(' ')}…`;
};

type Utterance = TimelineItem & { participant: string };
const utterances = (report: Report): Utterance[] => report.timeline.filter((i): i is Utterance => i.kind === 'utterance' && i.participant !== null);

const momentAt = (startMs: number): Moment => ({ startMs, label: clock(startMs) });
/** The `count` lines that score highest, in time order: the moments an observation points to. */
const topMoments = (lines: readonly Utterance[], score: (u: Utterance) => number, count = 3): Moment[] =>
  lines
    .map((u) => ({ u, score: score(u) }))
    .filter((s) => Number.isFinite(s.score) && s.score > 0)
    .sort((a, b) => b.score - a.score || a.u.startMs - b.u.startMs)
    .slice(0, count)
    .map((s) => s.u.startMs)
    .sort((a, b) => a - b)
    .map(momentAt);
/** A line's own pace, words per minute; 0 for a line too short to time (under five words or a second). */
const paceOf = (u: Utterance): number => {
  const words = (u.text ?? '').trim().split(/\s+/).filter(Boolean).length;
  const ms = u.endMs - u.startMs;
  return words >= 5 && ms >= 1000 ? words / (ms / 60_000) : 0;
};

const nameOf = (report: Report, id: string | null | undefined) => report.participants.find((p) => p.id === id)?.name ?? id ?? 'someone';

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

export const debriefOf = (report: Report, seat: string): Debrief | null => {
  const you = report.participants.find((p) => p.id === seat);
  if (!you) return null;
  const { share: expectedShare, basis: expectedBasis } = expectationOf(report, seat);
  const said = utterances(report);
  const minutes = you.speakingMs / 60_000;
  const fillersPerMinute = minutes > 0 ? Math.round((you.fillers.count / minutes) * 10) / 10 : null;
  const found: Observation[] = [];
  const mine = said.filter((u) => u.participant === seat);

  if (you.turns === 0) {
    found.push({
      id: 'silent',
      tone: said.length === 0 ? 'note' : 'improve',
      weight: 10,
      moments: [],
      text: said.length === 0 ? 'Nobody spoke in this session, so there is nothing to measure yet.' : `You did not speak in this session; the others spoke ${plural(said.length, 'time')}. Next time, try to come in at least once in each part of the meeting.`,
    });
  }

  // Talk share against the even split.
  if (you.turns > 0 && report.participants.length > 1) {
    const ratio = you.speakingShare / expectedShare;
    if (ratio >= 1.5) {
      // Their longest turns: where the room's time went.
      found.push({ id: 'share-high', tone: 'improve', weight: ratio, moments: topMoments(mine, (u) => u.endMs - u.startMs), text: `You spoke for ${percent(you.speakingShare)} of the talk, against about ${percent(expectedShare)} expected; leave the others more room.` });
    } else if (ratio <= 0.5) {
      // The others' longest lines: the stretches they could have come in after.
      found.push({ id: 'share-low', tone: 'improve', weight: 1 / Math.max(ratio, 0.1), moments: topMoments(said.filter((u) => u.participant !== seat), (u) => u.endMs - u.startMs), text: `You spoke for ${percent(you.speakingShare)} of the talk, against about ${percent(expectedShare)} expected; come in more often.` });
    }
  }

  // Pace outside the comfortable band.
  const wpm = you.wordsPerMinute;
  if (wpm !== null && you.words >= 20) {
    if (wpm > comfortablePace.high) {
      found.push({ id: 'pace-fast', tone: 'improve', weight: 1 + (wpm - comfortablePace.high) / 20, moments: topMoments(mine, paceOf), text: `You spoke at ${Math.round(wpm)} words per minute, above the comfortable ${comfortablePace.low}–${comfortablePace.high}; slow down and pause between points.` });
    } else if (wpm < comfortablePace.low) {
      found.push({ id: 'pace-slow', tone: 'improve', weight: 1 + (comfortablePace.low - wpm) / 20, moments: topMoments(mine, (u) => (paceOf(u) > 0 ? 1 / paceOf(u) : 0)), text: `You spoke at ${Math.round(wpm)} words per minute, below the comfortable ${comfortablePace.low}–${comfortablePace.high}; a little more pace keeps the room with you.` });
    }
  }

  // Fillers above about 3 a minute.
  if (fillersPerMinute !== null && fillersPerMinute > 3 && you.fillers.list.length > 0) {
    const top = you.fillers.list[0]!;
    found.push({
      id: 'fillers',
      tone: 'improve',
      weight: fillersPerMinute / 2,
      // Their lines with the most fillers.
      moments: topMoments(mine, (u) => fillersIn(u.text ?? '').length),
      text: `You used ${plural(you.fillers.count, 'filler')} (${fillersPerMinute} a minute), most often “${top.filler}” (${top.count}×); a short pause works better.`,
    });
  }

  // Responses and long turns: walked in the log's order, as the report counts them.
  let slowest: { gap: number; at: Utterance; after: Utterance } | null = null;
  const long: Utterance[] = [];
  said.forEach((u, i) => {
    const before = said[i - 1];
    if (u.participant === seat) {
      if (before && before.participant !== seat) {
        const gap = Math.max(0, u.startMs - before.endMs);
        if (!slowest || gap > slowest.gap) slowest = { gap, at: u, after: before };
      }
      if (u.endMs - u.startMs > 60_000) long.push(u);
    }
  });

  const p90 = you.responseLatencyMs.p90;
  const slow = slowest as { gap: number; at: Utterance; after: Utterance } | null;
  if (p90 !== null && p90 > 3000 && slow) {
    found.push({
      id: 'slow-response',
      tone: 'improve',
      weight: p90 / 2000,
      moments: [{ startMs: slow.at.startMs, label: clock(slow.at.startMs) }],
      text: `Your replies took ${(you.responseLatencyMs.median! / 1000).toFixed(1)} s at the median and ${(p90 / 1000).toFixed(1)} s at the slowest tenth; the longest pause, ${(slow.gap / 1000).toFixed(1)} s, came at ${clock(slow.at.startMs)} after ${nameOf(report, slow.after.participant)} said “${gist(slow.after.text)}”.`,
    });
  }

  // Questions put to you that your reply did not answer by content (the report reads each reply: metrics/answers.ts); speaking next is not answering.
  const given = you.answersGiven;
  const missed = said.filter((u) => u.addressee === seat && u.participant !== seat && (u.answer === 'not' || u.answer === 'partly'));
  if (given && missed.length > 0) {
    const one = missed.find((u) => u.answer === 'not') ?? missed[0]!;
    const reply = said.find((u) => u.utterance === one.reply);
    const about = `${nameOf(report, one.participant)}'s question at ${clock(one.startMs)} (“${gist(one.text)}”)`;
    const what = reply ? `your reply to ${about}, “${gist(reply.text)}”, ${one.answer === 'not' ? 'did not answer it' : 'answered it only in part'}` : `${about} got no reply from you`;
    found.push({
      id: 'unanswered',
      tone: 'improve',
      weight: 2 + given.not + given.partly / 2,
      moments: missed.slice(0, 3).map((u) => momentAt(u.startMs)),
      text: `Your replies answered ${given.answered} of the ${plural(given.questions, 'question')} put to you${given.partly > 0 ? ` (${given.partly} in part)` : ''}; ${what}.`,
    });
  }

  const made = report.timeline.filter((i) => i.kind === 'interruption' && i.participant === seat);
  if (made.length > 0) {
    found.push({
      id: 'interruptions',
      tone: 'improve',
      weight: 1.5 + made.length,
      moments: made.slice(0, 3).map((i) => ({ startMs: i.startMs, label: clock(i.startMs) })),
      text: `You interrupted ${plural(made.length, 'time')} (first ${nameOf(report, made[0]!.of)} at ${clock(made[0]!.startMs)}), and were interrupted ${plural(you.interruptionsReceived, 'time')}; let the speaker finish their point.`,
    });
  }

  if (long.length > 0) {
    const longest = long.reduce((a, b) => (b.endMs - b.startMs > a.endMs - a.startMs ? b : a));
    found.push({
      id: 'long-turns',
      tone: 'improve',
      weight: 1.5 + long.length / 2,
      moments: long.slice(0, 3).map((u) => ({ startMs: u.startMs, label: clock(u.startMs) })),
      text: `You held the floor for over a minute ${plural(long.length, 'time')}; the longest, ${Math.round((longest.endMs - longest.startMs) / 1000)} s, began at ${clock(longest.startMs)}. Break long answers into shorter turns.`,
    });
  }

  const observations = found.sort((a, b) => b.weight - a.weight).slice(0, 3);
  // Room left, and something went well: say so, with its numbers.
  if (observations.length < 3 && you.turns > 0) {
    const longest = mine.reduce<Utterance | null>((a, b) => (!a || b.endMs - b.startMs > a.endMs - a.startMs ? b : a), null);
    const asked = said.filter((u) => u.answer !== undefined && u.addressee === seat && u.participant !== seat);
    const moments = { longest: longest ? [{ startMs: longest.startMs, label: clock(longest.startMs) }] : [], asked: asked.slice(0, 3).map((u) => ({ startMs: u.startMs, label: clock(u.startMs) })) };
    observations.push(...positives(you, expectedShare, fillersPerMinute, found, moments).slice(0, 3 - observations.length));
  }
  return { you, expectedShare, expectedBasis, fillersPerMinute, questions: { received: you.questionsReceived, answeredNext: you.questionsAnswered, byContent: given ?? null }, observations };
};

/** What was in range, as observations: pace, share, fillers, questions, response time. */
const positives = (you: ParticipantReport, expected: number, fillersPerMinute: number | null, found: Observation[], moments: { longest: Moment[]; asked: Moment[] }): Observation[] => {
  const flagged = new Set(found.map((o) => o.id));
  const good: Observation[] = [];
  const add = (id: Observation['id'], text: string, at: Moment[] = []) => good.push({ id, tone: 'positive', weight: 0, moments: at, text });
  const wpm = you.wordsPerMinute;
  if (wpm !== null && !flagged.has('pace-fast') && !flagged.has('pace-slow') && wpm >= comfortablePace.low && wpm <= comfortablePace.high) add('pace-ok', `Your pace, ${Math.round(wpm)} words per minute, sat in the comfortable ${comfortablePace.low}–${comfortablePace.high} band; your longest turn is a good one to listen back to.`, moments.longest);
  if (!flagged.has('share-high') && !flagged.has('share-low')) add('share-ok', `Your share of the talk, ${percent(you.speakingShare)}, was close to the ${percent(expected)} expected of you.`);
  const given = you.answersGiven;
  if (given && given.questions > 0 && given.answered === given.questions) add('questions-ok', `Your replies answered all ${plural(given.questions, 'question')} put to you: each gave what was asked.`, moments.asked);
  if (!flagged.has('fillers') && fillersPerMinute !== null) add('fillers-ok', you.fillers.count === 0 ? 'You used no fillers (um, uh, like…).' : `You kept fillers low: ${plural(you.fillers.count, 'filler')}, ${fillersPerMinute} a minute.`);
  if (!flagged.has('slow-response') && you.responseLatencyMs.median !== null) add('latency-ok', `You came in promptly: ${(you.responseLatencyMs.median / 1000).toFixed(1)} s at the median after the previous speaker finished.`);
  if (!flagged.has('interruptions') && you.interruptionsMade === 0) add('no-interruptions', 'You let every speaker finish: no interruptions.');
  return good;
};
