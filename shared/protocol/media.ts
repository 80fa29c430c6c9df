/**
 * What the media plane carries besides audio, as the browser and the server read it: the LiveKit
 * room's data topics and their messages (server/livekit/media.ts is the port that sends them).
 *
 * Data travels on four topics, each message one JSON object of the realtime protocol
 * (shared/protocol/messages.ts), exactly as the WebSocket sends it, except that `audio` loses its PCM
 * (the samples are on the persona's track):
 *
 * - `rehearsal.events`: `event` messages, in log order. Participant-visible events only
 *   (observer-only `system` events stay on the socket, as LiveKit data reaches everyone).
 * - `rehearsal.deltas`: `delta` messages (a reply's text as it is generated).
 * - `rehearsal.cues`: `audio` messages without `pcm` ({@link CueMessage}): speaker, draft, seq,
 *   offsetMs, sampleRate, viseme cues and word timings of a piece of a persona's speech.
 * - `rehearsal.control`: `audio-stop` (stop that draft's speech at `atMs`) and `speech` (a human
 *   started or stopped talking).
 *
 * All are sent reliable (ordered, retransmitted): a cue message can exceed the ~1.3 kB a lossy
 * packet carries, and a lost event would be a hole in the log. A reliable packet holds at most
 * 15 KiB; protocol messages are far smaller.
 *
 * Nothing is replayed: while the bridge is disconnected, messages are dropped, and after a
 * reconnect only new ones are sent. Every event carries its `seq`, so a client that sees a gap
 * (or rejoins) reads what it missed from `GET /api/sessions/:id/events` (or the socket with
 * `after=<seq>`) and goes on from there: nothing lost, nothing twice.
 */
import type { z } from 'zod';
import { ServerMessage } from './messages';

/** The data topics, for the server and the client alike. */
export const topics = {
  events: 'rehearsal.events',
  deltas: 'rehearsal.deltas',
  cues: 'rehearsal.cues',
  control: 'rehearsal.control',
} as const;
export type Topic = (typeof topics)[keyof typeof topics];

const AudioMessage = ServerMessage.options.find((option) => option.shape.type.value === 'audio') as Extract<(typeof ServerMessage.options)[number], { shape: { type: z.ZodLiteral<'audio'> } }>;

/** What `rehearsal.cues` carries: the protocol's `audio` message without its `pcm`. */
export const CueMessage = AudioMessage.omit({ pcm: true });
export type CueMessage = z.infer<typeof CueMessage>;

/** The topic a room message goes out on; null for messages that stay on the socket (`voice`, `welcome`, `error`, `pong`). */
export const topicOf = (message: ServerMessage): Topic | null => {
  switch (message.type) {
    case 'event':
    case 'seq':
      return topics.events;
    case 'delta':
      return topics.deltas;
    case 'audio':
      return topics.cues;
    case 'audio-stop':
    case 'speech':
      return topics.control;
    default:
      return null;
  }
};
