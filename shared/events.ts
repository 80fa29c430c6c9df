/**
 * The session event log: every decision the engine makes is one of these events.
 * The log is append-only and is the source of truth for transcripts, metrics and replays.
 * Defined once with zod; the simulator, the server, the realtime protocol and the client import it.
 *
 * `seq` numbers events from 1 in a session; `t` is milliseconds of conversation time since the
 * session started (simulated from speaking rates in the simulator, wall-clock in live rooms).
 */
import { z } from 'zod';
import { facilitatorActs, intents, participantKinds, policies } from './scene/schema';

export const pairTypes = ['question', 'request', 'offer', 'greeting', 'invitation', 'none'] as const;
export const PairType = z.enum(pairTypes);
export type PairType = z.infer<typeof PairType>;

/** The dialog act an utterance performs; first pair parts, their answers, and facilitator acts. */
export const acts = [
  'statement',
  'answer',
  'question',
  'request',
  'offer',
  'greeting',
  'invitation',
  'moderate',
  'interrupt',
  'deviation',
  ...facilitatorActs.filter((a) => a !== 'direct-reply'),
] as const;
export const Act = z.enum(acts);
export type Act = z.infer<typeof Act>;

const who = z.string();

/**
 * Who may see an event: everyone (`all`), the instructors only (`observers`: the observer and
 * author roles), or one seat (`{ seat }`: that participant, and the instructors). Live rooms write
 * it on every event they log; a log recorded before it existed gets `audienceOf`'s default.
 */
export const Audience = z.union([z.literal('all'), z.literal('observers'), z.object({ seat: who }).strict()]);
export type Audience = z.infer<typeof Audience>;

const base = { seq: z.number().int().positive(), t: z.number().nonnegative(), audience: Audience.optional() };

/** How a session runs: on the wall clock, or on simulated time. */
export const paces = ['instant', 'realtime'] as const;
export type Pace = (typeof paces)[number];

export const SessionStartEvent = z.object({
  ...base,
  type: z.literal('session-start'),
  scene: z.string(),
  title: z.string(),
  seed: z.number().int(),
  /**
   * `realtime`: times are the wall clock's. `instant`: simulated time (each turn 0.4 s after the
   * last, speech as long as its words take at the speaker's rate). Absent in older logs.
   */
  pace: z.enum(paces).optional(),
  policy: z.enum(policies),
  participants: z.array(
    z.object({ id: who, name: z.string(), kind: z.enum(participantKinds), present: z.boolean(), speakingRate: z.number() }),
  ),
});

export const SnippetStartEvent = z.object({
  ...base,
  type: z.literal('snippet-start'),
  snippet: z.string(),
  title: z.string(),
  turns: z.number().int(),
  initiator: who,
});

/** Who holds the floor next and why: the engine's next-speaker decision. */
export const FloorEvent = z.object({
  ...base,
  type: z.literal('floor'),
  speaker: who,
  reason: z.enum([
    'initiator',
    'scripted',
    'designated',
    'self-selected',
    'continues',
    'round-robin',
    'equal',
    'random',
    'llm-selector',
    'llm-selector-fallback',
    'party',
    'moderator',
    'hand-approved',
    'interruption',
    'impromptu',
    'facilitator',
    'human',
    'taking-up',
    'closing',
  ]),
  bids: z
    .array(z.object({ participant: who, action: z.enum(['speak', 'listen']), importance: z.number().int().min(0).max(9) }))
    .optional(),
  act: z.string().optional().describe('facilitator act, when the facilitator takes the floor'),
});

export const UtteranceEvent = z.object({
  ...base,
  type: z.literal('utterance'),
  id: z.string().describe('utterance id, referenced by backchannels and interruptions'),
  speaker: who,
  text: z.string(),
  addressee: who.nullable(),
  pair: PairType,
  act: Act,
  snippet: z.string(),
  /** `instructor`: the instructor's words in a seat they took over (voiced with the seat's voice). */
  source: z.enum(['ai', 'human', 'simulated-human', 'scripted', 'instructor']),
  durationMs: z.number().nonnegative(),
  replyTo: z.string().optional().describe('the utterance this answers, when it is a second pair part'),
  interrupted: z.boolean().optional(),
  impromptu: z.boolean().optional(),
  resamples: z.number().int().optional().describe('anti-repetition resamples before acceptance (MPOD §3.2)'),
  similarity: z.number().optional().describe('max cosine similarity to the speaker\'s last 5 utterances'),
  draft: z.string().optional().describe('the generation request it answers; streamed deltas and audio name it'),
  spoken: z
    .object({ start: z.number(), end: z.number() })
    .optional()
    .describe('when it was heard, in session ms: a transcribed utterance from the VAD\'s start to its end; a persona\'s realtime speech from its first audio for its length'),
  sentAt: z.number().nonnegative().optional().describe('a typed line in realtime: when the room received it, in session ms (its place in the record); absent in older logs'),
});

export const BackchannelEvent = z.object({
  ...base,
  type: z.literal('backchannel'),
  participant: who,
  to: who,
  utterance: z.string(),
  kind: z.enum(['verbal', 'nod']),
  cue: z.string().optional(),
});

export const InterruptionEvent = z.object({
  ...base,
  type: z.literal('interruption'),
  by: who,
  of: who,
  utterance: z.string(),
  vibe: z.string(),
  atWord: z.number().int().nonnegative(),
  atMs: z.number().nonnegative().optional().describe('a barge-in over speech: where the audio stopped, in ms from its start'),
});

export const HandRaiseEvent = z.object({
  ...base,
  type: z.literal('hand-raise'),
  participant: who,
  action: z.enum(['raise', 'lower', 'approve']),
  queue: z.array(who).describe('the hand-raising queue after this change'),
});

/** A session's life in the engine (the server adds lobby and pause around it). */
export const sessionPhases = ['new', 'running', 'ended'] as const;
export type SessionPhase = (typeof sessionPhases)[number];

export const SystemEvent = z.object({
  ...base,
  type: z.literal('system'),
  level: z.enum(['info', 'warn', 'error']),
  code: z.string(),
  message: z.string(),
  participant: who.optional().describe('the participant it concerns (joined, left)'),
});

export const ImpromptuStartEvent = z.object({
  ...base,
  type: z.literal('impromptu-start'),
  participant: who,
  intent: z.enum(intents),
  turns: z.number().int(),
});

export const ImpromptuEndEvent = z.object({ ...base, type: z.literal('impromptu-end'), participant: who });

export const ApprovalNeededEvent = z.object({
  ...base,
  type: z.literal('approval-needed'),
  proposal: z.string(),
  participant: who,
  intent: z.enum(intents),
  text: z.string(),
  /** How long the instructor has to decide; then the scene's default applies (approve, skip or regenerate). */
  timeoutMs: z.number().int().positive().optional(),
  /** DialogLab §5.2.2: the contributions to choose among, each with its intent; the first is `intent`/`text`. */
  candidates: z.array(z.object({ intent: z.enum(intents), text: z.string() })).optional(),
});

export const ApprovalResolvedEvent = z.object({
  ...base,
  type: z.literal('approval-resolved'),
  proposal: z.string(),
  decision: z.enum(['approve', 'edit', 'dismiss', 'regenerate']),
  text: z.string().optional(),
  /** The candidate approved, when not the first. */
  choice: z.number().int().nonnegative().optional(),
});

export const HumanInputRequiredEvent = z.object({
  ...base,
  type: z.literal('human-input-required'),
  participant: who,
  addressedBy: who.nullable(),
  pair: PairType,
  /**
   * The floor came to them by the policy, not by anyone's question or invitation: the room waits
   * only a short silence for them, then goes on. Absent: the floor is theirs until they speak.
   */
  open: z.boolean().optional(),
});

export const EndEvent = z.object({
  ...base,
  type: z.literal('end'),
  reason: z.enum(['snippets-done', 'max-turns', 'ended']),
  turns: z.number().int(),
  /** Who ended it, when a person did; absent in older logs. */
  by: z.enum(['instructor', 'participant', 'admin']).optional(),
});

/**
 * Why a session ended, in the words everyone is shown ("Ended by the instructor", "Time is up",
 * "All parts of the scene are done"); an older log without `by` says only that it was ended.
 */
export const endedBecause = (event: Pick<EventOf<'end'>, 'reason'> & { by?: string | undefined }): string => {
  switch (event.reason) {
    case 'snippets-done':
      return 'All parts of the scene are done';
    case 'max-turns':
      return 'Time is up: the session reached its length';
    case 'ended':
      return event.by === 'instructor' ? 'Ended by the instructor' : event.by === 'participant' ? 'Ended by a participant' : event.by === 'admin' ? 'Ended by the admin' : 'The session was ended';
    default:
      // A reason this client does not know yet (a newer server): its own words are not guessed at.
      return 'Time is up';
  }
};

/**
 * Where a human's head points in VR, when it changes: at a participant (`at`), or at nobody. The
 * client sends it (throttled) from head tracking; the debrief measures gaze at the speaker with it.
 * Instructors only: the other participants never need it.
 */
export const GazeEvent = z.object({
  ...base,
  type: z.literal('gaze'),
  participant: who,
  at: who.nullable(),
});

/** The presenter or the instructor showed slide `index` (from 0) of slides `content`, for everyone. */
export const SlideEvent = z.object({ ...base, type: z.literal('slide'), content: z.string(), index: z.number().int().nonnegative(), by: who.nullable() });

export const SessionEvent = z.discriminatedUnion('type', [
  SlideEvent,
  GazeEvent,
  SessionStartEvent,
  SnippetStartEvent,
  FloorEvent,
  UtteranceEvent,
  BackchannelEvent,
  InterruptionEvent,
  HandRaiseEvent,
  SystemEvent,
  ImpromptuStartEvent,
  ImpromptuEndEvent,
  ApprovalNeededEvent,
  ApprovalResolvedEvent,
  HumanInputRequiredEvent,
  EndEvent,
]);

export type SessionEvent = z.infer<typeof SessionEvent>;
export type EventType = SessionEvent['type'];
export type EventOf<T extends EventType> = Extract<SessionEvent, { type: T }>;
/** An event before the log numbers and times it. */
export type EventDraft = SessionEvent extends infer E ? (E extends SessionEvent ? Omit<E, 'seq' | 't'> : never) : never;
export type UtteranceEvent = z.infer<typeof UtteranceEvent>;

/** System notices meant for the seat they concern (and the instructors), by code. */
const seatNotices = new Set(['transcription-failed']);
/** System notices on a stand-in's proposals (decided by default, withdrawn): the instructors', like the proposals. */
const instructorNotices = new Set(['approval-timeout', 'approval-default', 'proposal-withdrawn']);

/**
 * An event's audience: the one it was logged with, else the default for its kind. A persona's
 * proposed line, the instructor's decision on it (approve, edit, dismiss) and the notices of one
 * decided without them are the instructors'.
 */
export const audienceOf = (event: SessionEvent): Audience => {
  if (event.audience) return event.audience;
  if (event.type === 'approval-needed' || event.type === 'approval-resolved') return 'observers';
  if (event.type === 'system' && instructorNotices.has(event.code)) return 'observers';
  if (event.type === 'system' && event.participant !== undefined && seatNotices.has(event.code)) return { seat: event.participant };
  return 'all';
};

/** Who is looking: an instructor (observer or author) sees everything; a participant, what is for all or for their seat. */
export interface Viewer {
  instructor: boolean;
  seat: string | null;
}

/**
 * An event as participants see it: a line the instructor said for a seat (`say-as`) is that
 * seat's own, a persona's or, for a human seat (`humans`), a stand-in's; instructors and the log
 * keep the truth.
 */
export const asParticipantsSee = (event: SessionEvent, humans: ReadonlySet<string>): SessionEvent => {
  if (event.type !== 'utterance' || event.source !== 'instructor') return event;
  const { sentAt: _typed, ...line } = event;
  return { ...line, source: humans.has(event.speaker) ? 'simulated-human' : 'ai' };
};

export const visibleTo = (viewer: Viewer, event: SessionEvent): boolean => {
  const audience = audienceOf(event);
  return audience === 'all' || viewer.instructor || (typeof audience === 'object' && audience.seat === viewer.seat);
};
