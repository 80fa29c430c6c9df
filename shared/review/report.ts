/**
 * What a session's report is (server/review/report.ts computes it from the log): its schema and
 * types, which the dashboard, the debrief, the comparison and the exports read, in the browser and on
 * the server alike, with the vocabularies it names (breakdown kinds, fillers). No computation here.
 */
import { z } from 'zod';
import { PairType, paces } from '../events';
import { participantKinds } from '../scene/schema';

/** MMAgents Table 1 (after Higashinaka et al. 2022): the response- and context-level types, in its order. */
export const breakdownKinds = [
  'ignore-question',
  'ignore-request',
  'ignore-suggestion',
  'ignore-greeting',
  'ignore-expectation',
  'unclear-intention',
  'topic-change',
  'lack-of-information',
  'self-contradiction',
  'interlocutor-contradiction',
  'repetition',
] as const;
export type BreakdownKind = (typeof breakdownKinds)[number];

/** The fillers counted (server/review/fillers.ts), by the label the report gives them. */
export const fillerWords = ['um', 'uh', 'er', 'erm', 'like', 'you know', 'i mean', 'basically', 'actually', 'literally', 'sort of', 'kind of'] as const;
export type Filler = (typeof fillerWords)[number];

export const timelineKinds = ['utterance', 'interruption', 'backchannel', 'impromptu', 'instructor', 'system', 'snippet', 'hand-raise', 'slide'] as const;

/** Who may see an item: absent, everyone; `observers`, instructors (and the author); `{ seat }`, that seat and instructors. */
export const ItemAudience = z.union([z.literal('observers'), z.object({ seat: z.string() })]);
export type ItemAudience = z.infer<typeof ItemAudience>;

export const TimelineItem = z.object({
  kind: z.enum(timelineKinds),
  /** The speaker, interrupter, listener, steering human or seat concerned; null for the room. */
  participant: z.string().nullable(),
  startMs: z.number().nonnegative(),
  endMs: z.number().nonnegative(),
  text: z.string().optional(),
  /** The utterance's id; for an interruption or a backchannel, the utterance it concerns. */
  utterance: z.string().optional(),
  addressee: z.string().nullable().optional(),
  pair: PairType.optional(),
  /** An interruption: who was cut off. */
  of: z.string().optional(),
  /** System and instructor items: the event's code; backchannels: verbal or nod; hand raises: raise, lower or approve. */
  code: z.string().optional(),
  /**
   * A designated question or request (`pair` question or request, an addressee): how the
   * addressee's reply answered it by content (metrics/answers.ts), and the reply's utterance id,
   * null when none came. Absent on other items, and in reports from before it was reported.
   */
  answer: z.enum(['answered', 'partly', 'not']).optional(),
  reply: z.string().nullable().optional(),
  /**
   * How a human seat's utterance came in: `speech` (transcribed, with the VAD's times), `typed`,
   * `simulated` (a stand-in's), `instructor` (said for the seat). Pace, fillers and pauses are
   * measured on speech only (review/debrief.ts). Absent for personas, and in older reports.
   */
  input: z.enum(['speech', 'typed', 'simulated', 'instructor']).optional(),
  audience: ItemAudience.optional(),
});
export type TimelineItem = z.infer<typeof TimelineItem>;

const count = z.number().int().nonnegative();
const share = z.number().min(0).max(1);

/** Designated questions and requests by how the reply answered them by content (metrics/answers.ts); `not` includes those nobody replied to. */
export const Answers = z.object({ questions: count, answered: count, partly: count, not: count });
export type Answers = z.infer<typeof Answers>;

export const ParticipantReport = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(participantKinds),
  speakingMs: z.number().nonnegative(),
  /** Of everyone's speaking time, 0..1. */
  speakingShare: share,
  turns: count,
  words: count,
  /** Words over speaking time; null when they never spoke. */
  wordsPerMinute: z.number().nonnegative().nullable(),
  /** fillers.ts's list, most frequent first. */
  fillers: z.object({ count, list: z.array(z.object({ filler: z.enum(fillerWords), count })) }),
  interruptionsMade: count,
  interruptionsReceived: count,
  /** Their utterances that are questions (put to someone or to the room). */
  questionsAsked: count,
  /** Questions put to them by name, and those they answered next (as `answeredNext` counts). */
  questionsReceived: count,
  questionsAnswered: count,
  /**
   * By content: the questions and requests put to them by name, by how their reply answered them;
   * and their own, by how the one they asked answered. Absent in reports from before it was reported.
   */
  answersGiven: Answers.optional(),
  answersReceived: Answers.optional(),
  /**
   * From the end of the previous utterance (another speaker's) to their first word, over every
   * turn they took after someone else; 0 when they started before it ended. Median (the mean of
   * the middle two on an even count) and 90th percentile by nearest rank; null without samples.
   */
  responseLatencyMs: z.object({ median: z.number().nullable(), p90: z.number().nullable(), samples: count }),
  /**
   * For humans with head tracking (their client logs `gaze` events in VR): the share of others'
   * speaking time, from their first gaze event on, during which their head pointed at the speaker.
   * Null without gaze events (on a desktop, for personas, in logs from before gaze was logged).
   */
  gazeAtSpeakerShare: share.nullable(),
  /**
   * The share of the talk the scene expects of them and why (review/expectation.ts: the scene's
   * `expectedShare`, else its roles). Absent in reports built without their scene.
   */
  expectedShare: share.optional(),
  expectedBasis: z.string().optional(),
  /**
   * True for a human seat the simulation spoke for (source `simulated-human`: a stand-in) and no
   * person ever did (no line of source `human`; the scene's scripted lines are nobody's own words):
   * its figures describe the stand-in, not a person.
   * Absent otherwise, and in reports from before it was reported.
   */
  simulated: z.boolean().optional(),
  /**
   * True for a seat the scene's roles make an asker or its chair wherever it has roles (a
   * detective, an interviewer): requests put to it are no questions for it to answer. Absent
   * otherwise, and in reports built without their scene.
   */
  asks: z.boolean().optional(),
});
export type ParticipantReport = z.infer<typeof ParticipantReport>;

export const Report = z.object({
  scene: z.string().nullable(),
  title: z.string().nullable(),
  seed: z.number().int().nullable(),
  /**
   * How the session ran. `instant`: on simulated time (each turn 0.4 s after the last, speech as
   * long as its words take at the speaker's rate), so durations, latencies and words per minute are
   * the simulation's. From the log's session-start; absent in logs from before it was logged.
   */
  pace: z.enum(paces).optional(),
  /** The last event read: the report is current up to it. */
  lastSeq: count,
  /** `aborted`: the server stopped under the session; null: no end logged (live, or cut short before the end was logged). */
  endReason: z.enum(['snippets-done', 'max-turns', 'ended', 'aborted']).nullable(),
  durationMs: z.number().nonnegative(),
  turns: count,
  words: count,
  /** Of the designated questions (`pair` question, an addressee), the share whose addressee spoke next: turn-taking, not sense. */
  answeredNext: share.nullable(),
  /**
   * Designated questions and requests by how they were answered by content, and the share answered;
   * null when there were none. Absent in reports from before it was reported.
   */
  answers: Answers.optional(),
  answeredByContent: share.nullable().optional(),
  evenness: z.number().nonnegative().nullable(),
  breakdowns: z.object({
    count,
    kinds: z.record(z.enum(breakdownKinds), count),
    list: z.array(z.object({ utterance: z.string(), kind: z.enum(breakdownKinds), rule: z.string().optional(), startMs: z.number().nonnegative() })),
  }),
  interruptions: count,
  backchannels: count,
  impromptuPhases: count,
  participants: z.array(ParticipantReport),
  timeline: z.array(TimelineItem),
});
export type Report = z.infer<typeof Report>;
