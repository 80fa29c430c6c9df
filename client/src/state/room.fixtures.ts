/**
 * A small room for the state tests: Alex (you) and Mia are human, Sofia is an AI persona; events
 * and messages made the way the server sends them.
 */
import type { SessionEvent } from '../../../shared/events';
import type { ServerMessage, Snapshot, VoiceOffer } from '../../../shared/protocol/messages';
import { emptyRoom, reduceRoom, type LocalMessage, type RoomView } from './room';

export const snapshot: Snapshot = {
  session: 's1',
  scene: { id: 'job-interview', title: 'Interview', topic: 'a job', formation: 'panel', contents: [], moderated: false },
  participants: [
    { id: 'alex', name: 'Alex Kim', kind: 'human', role: 'candidate', present: true, avatar: 'avatar-04' },
    { id: 'sofia', name: 'Sofia Marin', kind: 'ai', role: null, present: false, avatar: 'avatar-07' },
    { id: 'mia', name: 'Mia Ross', kind: 'human', role: null, present: false, avatar: 'avatar-06' },
  ],
  phase: 'running',
  status: 'live',
  pausedFor: null,
  paused: false,
  turns: 0,
  snippet: 'intro',
  expected: 'sofia',
  waitingFor: null,
  hands: [],
  proposal: null,
  lastSeq: 0,
};

export const welcome = (options: { resumedFrom?: number; snapshot?: Partial<Snapshot>; voice?: VoiceOffer; role?: 'participant' | 'observer' } = {}): ServerMessage => ({
  type: 'welcome',
  protocol: 1,
  you: options.role === 'observer' ? { participant: null, role: 'observer' } : { participant: 'alex', role: 'participant' },
  resumedFrom: options.resumedFrom ?? 0,
  snapshot: { ...snapshot, ...options.snapshot },
  voice: options.voice ?? { input: true, output: 'espeak' },
});

let seq = 0;
/** Events are numbered from 1 in each test. */
export const resetEvents = () => {
  seq = 0;
};
export const event = (e: Record<string, unknown>): ServerMessage => ({ type: 'event', event: { seq: ++seq, t: seq * 100, ...e } as SessionEvent });

export const system = (code: string, participant?: string): ServerMessage => event({ type: 'system', level: 'info', code, message: code, ...(participant ? { participant } : {}) });

export const utterance = (id: string, speaker: string, text: string, extra: Record<string, unknown> = {}): ServerMessage =>
  event({ type: 'utterance', id, speaker, text, addressee: null, pair: 'none', act: 'statement', snippet: 'intro', source: speaker === 'alex' || speaker === 'mia' ? 'human' : 'ai', durationMs: 1000, ...extra });

export const audio = (draft: string, speaker: string, seq: number, words: { word: string; start: number; end: number }[]): ServerMessage => ({
  type: 'audio',
  speaker,
  draft,
  seq,
  offsetMs: words[0]?.start ?? 0,
  sampleRate: 16_000,
  pcm: '',
  cues: [],
  words,
});

/** Folds messages at time 0, or each at its own time when given as `[message, at]`. */
export const run = (...messages: (ServerMessage | LocalMessage | [ServerMessage | LocalMessage, number])[]): RoomView =>
  messages.reduce<RoomView>((view, m) => (Array.isArray(m) ? reduceRoom(view, m[0], m[1]) : reduceRoom(view, m)), emptyRoom());
