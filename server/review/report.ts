/**
 * A session's report (issue 17, the verification stage): what the dashboard, the trainee's debrief
 * and the exports show, computed from the event log alone. Pure and browser-safe: events and the
 * scene in, a `Report` out. Its figures are metrics/metrics.ts's (the same definitions: evenness,
 * answered-next, answers by content, speaking time; breakdowns by breakdowns.ts's rules), and report.test.ts checks
 * they agree with `runMetrics` on simulated runs, so the simulator's summary and the dashboard
 * cannot disagree. It does not call `runMetrics` itself: that also measures what a report does not
 * show (similarity by word vectors, leaks, openings), which would triple a long session's build.
 *
 * Times are milliseconds from the session's start (its `session-start` event), on the record's one
 * clock (record.ts): an utterance runs from when the room heard it begin (speech's `spoken.start`, a
 * typed line's `sentAt`, else the event's `t`; never before the line logged before it) for its
 * length (`spoken`, else `durationMs`, else its words at the speaker's rate, as metrics.ts counts
 * it); the timeline is in the record's order, which is the log's.
 *
 * Any log gives a report, never an exception: no utterances (zeros, nulls, empty lists), an aborted
 * session (`endReason: 'aborted'`), and logs written by older versions, whose events are read
 * leniently (`readLog`: missing utterance fields get their defaults, unreadable events are left out).
 *
 * Rounded for reading: milliseconds to whole ones, words per minute and evenness to 0.1, shares to 0.001.
 *
 * ```ts
 * const report = reportOf(readLog(store.events(id)), scene);
 * reportFor(report, { role: 'participant', participant: 'jordan' }); // instructor-only items left out
 * ```
 */
import type { Role } from '../../shared/claims';
import { SessionEvent, type EventOf } from '../../shared/events';
import { countWords, defaultSpeakingRate, speakingMs } from '../../shared/words';
import { breakdownsOf, breakdownUtterances, countKinds } from '../metrics/breakdowns';
import { countAnswers, nameWordsOf, questionsOf, type AnswerCount } from '../metrics/answers';
import { evennessOf } from '../metrics/metrics';
import { repetitionOf } from '../metrics/repetition';
import type { LoadedScene } from '../../shared/scene/schema';
import { askingSeats, expectedShares } from './expectation';
import { fillersIn } from './fillers';
import { fillerWords, Report, type Filler, type ItemAudience, type ParticipantReport, type TimelineItem } from '../../shared/review/report';
import { recordOf } from '../../shared/review/record';


/**
 * A stored log as events: each that fits the schema is kept as stored (so fields this version does
 * not know, like a newer audience, survive); an older utterance or session start missing fields
 * gets their defaults; anything else unreadable is left out.
 */
export const readLog = (stored: readonly unknown[]): SessionEvent[] => {
  const events: SessionEvent[] = [];
  for (const raw of stored) {
    if (SessionEvent.safeParse(raw).success) {
      events.push(raw as SessionEvent);
      continue;
    }
    const repaired = repair(raw);
    // An audience this version's schema does not know (a newer one's) keeps the event: audienceOf reads it.
    if (repaired && SessionEvent.safeParse({ ...repaired, audience: undefined }).success) events.push(repaired as SessionEvent);
  }
  return events;
};

const repair = (raw: unknown): unknown => {
  if (typeof raw !== 'object' || raw === null) return null;
  const e = raw as Record<string, unknown>;
  if (e.type === 'utterance') {
    return { id: `u${String(e.seq)}`, text: '', addressee: null, pair: 'none', act: 'statement', snippet: '', source: 'ai', durationMs: 0, ...e };
  }
  if (e.type === 'session-start' && Array.isArray(e.participants)) {
    return {
      scene: '',
      title: '',
      seed: 0,
      policy: 'round-robin',
      ...e,
      participants: e.participants.map((p: Record<string, unknown>) => ({ name: p?.id, kind: 'ai', present: false, speakingRate: defaultSpeakingRate, ...p })),
    };
  }
  return e;
};

/** Who may see an event's item. Issue 16 gives events an audience (everyone, instructors, a seat): values not known here count as instructors only. */
const audienceOf = (event: SessionEvent): ItemAudience | undefined => {
  // A persona's proposal and the instructor's decision on it are the instructor's business.
  if (event.type === 'approval-needed' || event.type === 'approval-resolved') return 'observers';
  const audience: unknown = (event as { audience?: unknown }).audience;
  if (audience === undefined || audience === 'all' || audience === 'everyone') return undefined;
  const seat: unknown = (audience as { seat?: unknown } | null)?.seat;
  return typeof seat === 'string' ? { seat } : 'observers';
};

/** Who reads a report: a role of the session's, and their seat if they are a participant. */
export interface Reader {
  role: Role;
  participant: string | null;
}

/**
 * The report as `reader` may see it: a participant's timeline leaves out instructors' items and
 * other seats' own, and a line the instructor said for a seat (`say-as`) is that seat's own, as it
 * was in the room (rooms/broadcast.ts): a persona's, or a stand-in's for a human seat.
 */
export const reportFor = (report: Report, reader: Reader): Report => {
  if (reader.role !== 'participant') return report;
  const humans = new Set(report.participants.filter((p) => p.kind === 'human').map((p) => p.id));
  const asSaid = (item: TimelineItem): TimelineItem => {
    if (item.input !== 'instructor') return item;
    const { input: _instructor, ...line } = item;
    return humans.has(item.participant ?? '') ? { ...line, input: 'simulated' } : line;
  };
  return { ...report, timeline: report.timeline.filter((item) => !item.audience || (item.audience !== 'observers' && item.audience.seat === reader.participant)).map(asSaid) };
};

/** System codes that record what the instructor did. */
const instructorCodes = new Set(['direction', 'take-over', 'hand-back', 'stand-in', 'paused', 'resumed', 'turn-skipped', 'session-started']);

interface Speech {
  speaker: string;
  startMs: number;
  endMs: number;
}

/** `gazeAtSpeakerShare` from one participant's gaze changes (in time order) and everyone's speech. */
const gazeShare = (gazer: string, changes: readonly { t: number; at: string | null }[], speech: readonly Speech[]): number | null => {
  if (changes.length === 0) return null;
  const since = changes[0]!.t;
  let heard = 0;
  let watched = 0;
  for (const s of speech) {
    if (s.speaker === gazer) continue;
    const from = Math.max(s.startMs, since);
    if (s.endMs <= from) continue;
    heard += s.endMs - from;
    // The gaze held from change i until change i + 1 (the last one until the end).
    for (let i = 0; i < changes.length && changes[i]!.t < s.endMs; i++) {
      const start = Math.max(changes[i]!.t, from);
      const end = Math.min(changes[i + 1]?.t ?? Infinity, s.endMs);
      if (end > start && changes[i]!.at === s.speaker) watched += end - start;
    }
  }
  return heard > 0 ? round3(watched / heard) : null;
};

const round1 = (x: number) => Math.round(x * 10) / 10;
const round3 = (x: number) => Math.round(x * 1000) / 1000;

const median = (sorted: readonly number[]): number | null => {
  if (sorted.length === 0) return null;
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const nearestRank = (sorted: readonly number[], p: number): number | null =>
  sorted.length === 0 ? null : sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1]!;

export const reportOf = (events: readonly SessionEvent[], scene?: LoadedScene): Report => {
  const start = events.find((e): e is EventOf<'session-start'> => e.type === 'session-start');
  const utterances = events.filter((e): e is EventOf<'utterance'> => e.type === 'utterance');

  // Everyone in the session: its start's list, else the scene's; then anyone else the log names.
  const people = new Map<string, { name: string; kind: ParticipantReport['kind']; rate: number | undefined }>();
  for (const p of start?.participants ?? scene?.participants ?? []) {
    people.set(p.id, { name: p.name, kind: p.kind, rate: 'speakingRate' in p ? p.speakingRate : undefined });
  }
  const person = (id: string) => {
    let found = people.get(id);
    if (!found) {
      const seat = scene?.participants.find((p) => p.id === id);
      people.set(id, (found = { name: seat?.name ?? id, kind: seat?.kind ?? 'ai', rate: undefined }));
    }
    return found;
  };

  interface Tally {
    turns: number;
    words: number;
    speakingMs: number;
    fillers: Map<Filler, number>;
    interruptionsMade: number;
    interruptionsReceived: number;
    questionsAsked: number;
    questionsReceived: number;
    questionsAnswered: number;
    latencies: number[];
    answersGiven: AnswerCount;
    answersReceived: AnswerCount;
    /** Words and time of the lines they said aloud (a typed line has no pace): the words per minute. */
    paceWords: number;
    paceMs: number;
    /** Their lines the simulation said for them. */
    simulatedTurns: number;
    ownTurns: number;
  }
  const tallies = new Map<string, Tally>();
  const tally = (id: string): Tally => {
    person(id);
    let found = tallies.get(id);
    if (!found) {
      found = { turns: 0, words: 0, speakingMs: 0, paceWords: 0, paceMs: 0, fillers: new Map(), interruptionsMade: 0, interruptionsReceived: 0, questionsAsked: 0, questionsReceived: 0, questionsAnswered: 0, latencies: [], answersGiven: countAnswers([]), answersReceived: countAnswers([]), simulatedTurns: 0, ownTurns: 0 };
      tallies.set(id, found);
    }
    return found;
  };
  for (const id of people.keys()) tally(id);
  const record = recordOf(events, (id) => person(id).rate);

  const timeline: TimelineItem[] = [];
  const lines = new Map<string, TimelineItem>();
  const spans = new Map<string, { startMs: number; endMs: number }>();
  let previous: { speaker: string; endMs: number; question: string | null } | null = null;
  let questions = 0;
  let answered = 0;
  let words = 0;
  let lastMs = 0;
  const openImpromptu = new Map<string, TimelineItem>();
  let openSnippet: TimelineItem | null = null;
  const proposals = new Map<string, TimelineItem>();
  const speech: Speech[] = [];
  const gazes = new Map<string, { t: number; at: string | null }[]>();
  const push = (item: TimelineItem, event: SessionEvent) => {
    const audience = audienceOf(event);
    if (audience) item.audience = audience;
    timeline.push(item);
  };

  for (const e of events) {
    const t = record.place(e);
    lastMs = Math.max(lastMs, t);
    switch (e.type) {
      case 'utterance': {
        const said = countWords(e.text);
        // metrics.ts's speaking time: the logged duration, else the words at the speaker's rate.
        const length = e.durationMs > 0 ? e.durationMs : speakingMs(said, person(e.speaker).rate);
        const { startMs, endMs } = record.line(e)!;
        spans.set(e.id, { startMs, endMs });
        speech.push({ speaker: e.speaker, startMs, endMs });
        lastMs = Math.max(lastMs, endMs);
        const mine = tally(e.speaker);
        mine.turns += 1;
        if (e.source === 'simulated-human') mine.simulatedTurns += 1;
        if (e.source === 'human') mine.ownTurns += 1;
        mine.words += said;
        mine.speakingMs += length;
        if (!(e.source === 'human' && !e.spoken)) {
          mine.paceWords += said;
          mine.paceMs += length;
        }
        words += said;
        for (const filler of fillersIn(e.text)) mine.fillers.set(filler, (mine.fillers.get(filler) ?? 0) + 1);
        if (e.pair === 'question') mine.questionsAsked += 1;
        if (previous && previous.speaker !== e.speaker) mine.latencies.push(Math.max(0, startMs - previous.endMs));
        if (previous?.question && previous.question === e.speaker) {
          mine.questionsAnswered += 1;
          answered += 1;
        }
        const question = e.pair === 'question' && e.addressee !== null ? e.addressee : null;
        if (question) {
          tally(question).questionsReceived += 1;
          questions += 1;
        }
        previous = { speaker: e.speaker, endMs, question };
        const input = e.source === 'human' ? (e.spoken ? 'speech' : 'typed') : e.source === 'simulated-human' ? 'simulated' : e.source === 'instructor' ? 'instructor' : undefined;
        const line: TimelineItem = { kind: 'utterance', participant: e.speaker, startMs, endMs, text: e.text, utterance: e.id, addressee: e.addressee, pair: e.pair, ...(input ? { input } : {}) };
        lines.set(e.id, line);
        push(line, e);
        break;
      }
      case 'interruption': {
        tally(e.by).interruptionsMade += 1;
        tally(e.of).interruptionsReceived += 1;
        push({ kind: 'interruption', participant: e.by, startMs: t, endMs: t, text: e.vibe, utterance: e.utterance, of: e.of }, e);
        break;
      }
      case 'backchannel':
        person(e.participant);
        push({ kind: 'backchannel', participant: e.participant, startMs: t, endMs: t, ...(e.cue ? { text: e.cue } : {}), utterance: e.utterance, code: e.kind }, e);
        break;
      case 'impromptu-start': {
        const item: TimelineItem = { kind: 'impromptu', participant: e.participant, startMs: t, endMs: t, text: e.intent };
        openImpromptu.set(e.participant, item);
        push(item, e);
        break;
      }
      case 'impromptu-end': {
        const item = openImpromptu.get(e.participant);
        if (item) item.endMs = t;
        openImpromptu.delete(e.participant);
        break;
      }
      case 'snippet-start':
        if (openSnippet) openSnippet.endMs = t;
        openSnippet = { kind: 'snippet', participant: e.initiator, startMs: t, endMs: t, text: e.title, code: e.snippet };
        push(openSnippet, e);
        break;
      case 'hand-raise':
        push({ kind: 'hand-raise', participant: e.participant, startMs: t, endMs: t, code: e.action }, e);
        break;
      case 'gaze': {
        tally(e.participant);
        const changes = gazes.get(e.participant) ?? [];
        changes.push({ t, at: e.at });
        gazes.set(e.participant, changes);
        break;
      }
      case 'slide':
        push({ kind: 'slide', participant: e.by, startMs: t, endMs: t, text: `${e.content} ${e.index + 1}`, code: e.content }, e);
        break;
      case 'approval-needed': {
        const item: TimelineItem = { kind: 'instructor', participant: e.participant, startMs: t, endMs: t, text: e.text, code: 'approval-needed' };
        proposals.set(e.proposal, item);
        push(item, e);
        break;
      }
      case 'approval-resolved': {
        const item = proposals.get(e.proposal);
        if (item) {
          // The proposal's item spans the wait for the decision, and says what it became.
          item.endMs = t;
          item.code = `approval-${e.decision}`;
          if (e.text) item.text = e.text;
        } else push({ kind: 'instructor', participant: null, startMs: t, endMs: t, code: `approval-${e.decision}`, ...(e.text ? { text: e.text } : {}) }, e);
        break;
      }
      case 'system':
        push({ kind: instructorCodes.has(e.code) ? 'instructor' : 'system', participant: e.participant ?? null, startMs: t, endMs: t, text: e.message, code: e.code }, e);
        break;
      case 'end':
        // The lines logged, as the summary and the transcript count them (the engine's count includes skipped turns).
        push({ kind: 'system', participant: null, startMs: t, endMs: t, text: `The session ended (${e.reason}) after ${record.turns} turns.`, code: 'end' }, e);
        break;
      default:
        break;
    }
  }
  // Phases still open at the end of the log run to its end.
  for (const item of openImpromptu.values()) item.endMs = lastMs;
  if (openSnippet) openSnippet.endMs = lastMs;
  // The record's order is the log's, and its times never go back: stable, this keeps it.
  timeline.sort((a, b) => a.startMs - b.startMs);

  // What each designated question got by content, with metrics.ts's names (the session's start, else the scene's).
  const asked = questionsOf(utterances, nameWordsOf((start?.participants ?? scene?.participants ?? []).map((p) => p.name)));
  const asking = scene && (!start || start.scene === scene.id) ? askingSeats(scene) : null;
  for (const q of asked) {
    Object.assign(lines.get(q.utterance)!, { answer: q.fit, reply: q.reply });
    // A request put to an asker (a detective, an interviewer) is no question for them to answer (debrief.ts agrees).
    if (asking?.has(q.addressee) && lines.get(q.utterance)!.pair === 'request') continue;
    for (const counted of [tally(q.addressee).answersGiven, tally(q.asker).answersReceived]) {
      counted.questions += 1;
      counted[q.fit] += 1;
    }
  }
  const answers = countAnswers(asked);

  const totalMs = [...tallies.values()].reduce((sum, mine) => sum + mine.speakingMs, 0);
  // What the scene expects of each seat, when the scene is the log's own.
  const expected = scene && (!start || start.scene === scene.id) ? expectedShares(scene) : null;
  const participants = [...tallies.entries()].map(([id, mine]): ParticipantReport => {
    const { name, kind } = person(id);
    const latencies = [...mine.latencies].sort((a, b) => a - b);
    const fillers = [...mine.fillers.entries()].sort((a, b) => b[1] - a[1] || fillerWords.indexOf(a[0]) - fillerWords.indexOf(b[0]));
    return {
      id,
      name,
      kind,
      speakingMs: Math.round(mine.speakingMs),
      speakingShare: totalMs > 0 ? round3(mine.speakingMs / totalMs) : 0,
      turns: mine.turns,
      words: mine.words,
      // Of speech only: a typed line's length is an estimate from its words, not a pace.
      wordsPerMinute: mine.paceMs > 0 ? round1(mine.paceWords / (mine.paceMs / 60_000)) : null,
      fillers: { count: fillers.reduce((sum, [, n]) => sum + n, 0), list: fillers.map(([filler, n]) => ({ filler, count: n })) },
      interruptionsMade: mine.interruptionsMade,
      interruptionsReceived: mine.interruptionsReceived,
      questionsAsked: mine.questionsAsked,
      questionsReceived: mine.questionsReceived,
      questionsAnswered: mine.questionsAnswered,
      answersGiven: mine.answersGiven,
      answersReceived: mine.answersReceived,
      responseLatencyMs: { median: median(latencies), p90: nearestRank(latencies, 90), samples: latencies.length },
      gazeAtSpeakerShare: gazeShare(id, gazes.get(id) ?? [], speech),
      ...(kind === 'human' && mine.simulatedTurns > 0 && mine.ownTurns === 0 ? { simulated: true } : {}),
      ...(expected?.has(id) ? { expectedShare: round3(expected.get(id)!.share), expectedBasis: expected.get(id)!.basis } : {}),
      ...(asking?.has(id) ? { asks: true } : {}),
    };
  });

  const counted = (type: SessionEvent['type']) => events.filter((e) => e.type === type).length;
  const end = events.findLast((e): e is EventOf<'end'> => e.type === 'end');
  const aborted = events.some((e) => e.type === 'system' && e.code === 'server-restarted');
  // Evenness over the same population as metrics.ts: everyone listed at the start, silent ones with 0 words, and anyone else who spoke.
  const evenness = evennessOf(participants.filter((p) => p.turns > 0 || start?.participants.some((s) => s.id === p.id)).map((p) => p.words));
  const breakdowns = breakdownsOf(utterances, repetitionOf(utterances), scene);
  return {
    scene: start?.scene ?? scene?.id ?? null,
    title: start?.title ?? scene?.title ?? null,
    seed: start?.seed ?? null,
    ...(start?.pace ? { pace: start.pace } : {}),
    lastSeq: events.reduce((last, e) => Math.max(last, e.seq), 0),
    endReason: end?.reason ?? (aborted ? 'aborted' : null),
    durationMs: lastMs,
    turns: utterances.length,
    words,
    answeredNext: questions > 0 ? round3(answered / questions) : null,
    answers,
    answeredByContent: answers.questions > 0 ? round3(answers.answered / answers.questions) : null,
    evenness: evenness === null ? null : round1(evenness),
    breakdowns: {
      count: breakdownUtterances(breakdowns),
      kinds: countKinds(breakdowns),
      list: breakdowns.map((b) => ({ utterance: b.utterance, kind: b.kind, ...(b.rule ? { rule: b.rule } : {}), startMs: spans.get(b.utterance)?.startMs ?? 0 })),
    },
    interruptions: counted('interruption'),
    backchannels: counted('backchannel'),
    impromptuPhases: counted('impromptu-start'),
    participants,
    timeline,
  };
};
