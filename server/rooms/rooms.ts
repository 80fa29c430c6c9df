/**
 * Live rooms: one per session, each a conversation (conversation/conversation.ts, the engine's
 * shell) plus the clients connected to it. Every event is committed to the store before any client
 * sees it; clients that join or reconnect get a snapshot and every event after the last one they
 * saw, then the live stream, with nothing twice and nothing missed. Rooms share nothing, so
 * sessions are isolated.
 *
 * A room is made of parts, each owning its own state (room.ts ties them together):
 * - presence.ts: seats, the lobby, grace periods and stand-ins. A new session waits in its lobby
 *   until every human seat is taken, or until the instructor starts it, with stand-ins for the
 *   seats still empty; a joined human who drops keeps their seat, and after a grace period the
 *   session pauses until they are back or the instructor has someone stand in. A reload rejoins
 *   the same seat, with the log so far.
 * - voice-input.ts: each participant's microphone through a listener of their own (VAD,
 *   endpointing, transcription) into the conversation, with a transcriber.
 * - broadcast.ts: who is sent what. Events reach the audiences they name, as each may see them (a
 *   participant sees the instructor's line in a seat they hold as the seat's own); replies' audio
 *   and cues go to every client, never to the event log; a participant's microphone frames are
 *   relayed to the other clients (embedded transport: two desktop participants hear each other).
 * - saving.ts: the log through the journal (below), and the pause while saving fails.
 * - commands.ts: what a client's message does in the room; snapshot.ts: what a joining client is shown.
 *
 * Other transports (the LiveKit bridge, server/livekit/bridge.ts) reach a room without a socket:
 * `subscribe` gives them every message broadcast to the room, `hear` a participant's microphone,
 * and `presence` their coming and going; `RoomsOptions.onOpen` hands them each new room.
 *
 * At start-up, sessions the store holds unfinished (the server died under them) resume: each
 * room opens again from the checkpoint stored with its log (conversation/checkpoint.ts), same id,
 * so the tokens handed out still work, and with the version of its scene it was made with (stored
 * with its row, scene/versions.ts), whatever the editor changed or deleted since; its humans'
 * seats are held for them as if they had just dropped, and clients reconnecting after their last
 * seq get the backlog and go on. A session that cannot resume (no checkpoint: a log from before
 * them; one that does not parse, or is behind its log; its scene gone: a session from before
 * versions were kept, whose scene was deleted) is marked ended with a `system` event saying why,
 * never silently lost. A session still in its lobby (an empty log) opens in its lobby again.
 *
 * Several servers on one database (`ownership`, server/cluster/ownership.ts): each session is
 * leased to the node that runs it; its room writes its log fenced by the lease's generation.
 * `recover` then takes only the sessions whose lease ran out (a dead node's, or none), claiming
 * each first, so it never touches another live node's session; it runs at start and on the
 * ownership's beat. A room whose lease another node took (a write refused by the database, or a
 * renewal that found it gone) stops here: its conversation ends without another word stored, its
 * clients are closed with CLOSE_LEASE_LOST (they reconnect and find the new owner), one log line. A session deleted while live is `close`d: its
 * clients are told and their connections closed with a code of their own (e.g. 4410).
 *
 * Recordings (recordings/): the audio of every persona's utterance, and with `recording` on (the
 * scene's, or the instructor's choice at creation; participants are told in the snapshot) every
 * transcribed human utterance's microphone audio, are written beside the store once the utterance
 * is committed. Without `recording` a human's audio is never written anywhere.
 *
 * Storage: events reach the store through the journal (store/journal.ts), which broadcasts each
 * once it is stored. When writing keeps failing, only that session pauses: its clients are told
 * at once (an `error` with code `storage`, outside the log), the log gets `saving-failed` and
 * `saving-recovered` notices once it can take them, and the session resumes by itself.
 *
 * ```ts
 * const rooms = createRooms({ store, scenes, generator: () => createScriptedGenerator() });
 * const room = rooms.create('team-standup', { pace: 'realtime' });
 * const leave = room.join(client, 0);
 * rooms.close(room.id, { code: 4410, reason: 'session deleted' });
 * ```
 */
import { randomBytes, randomInt } from 'node:crypto';
import type { Pace } from '../conversation/pacing';
import type { SessionEvent } from '../../shared/events';
import type { Vad } from '../media/vad';
import type { Generator } from '../providers/generator/port';
import type { Synthesizer } from '../providers/synthesis/port';
import type { Transcriber } from '../providers/transcription/port';
import type { RecordingStore } from '../recordings/store';
import type { LoadedScene } from '../../shared/scene/schema';
import { CLOSE_LEASE_LOST } from '../../shared/protocol/messages';
import type { Ownership } from '../cluster/ownership';
import { CheckpointError, parseCheckpoint, type Resume } from '../conversation/checkpoint';
import { sessionScenes, versionOf } from '../scene/versions';
import { createJournal, type Journal } from '../store/journal';
import { after, type Answer, type AnyStore, type Fence, type SessionRow, type Store, type Timing } from '../store/store';
import type { CloseReason } from './broadcast';
import { openRoom, type Room } from './room';
import { tryTwice } from './saving';

export type { Pace, Room };
export type { Client, CloseReason } from './broadcast';
export { participantsView } from './broadcast';
export { savingFailedMessage } from './saving';
export { voiceInputHint } from './voice-input';

export interface RoomsOptions<When extends Timing = Timing> {
  /** SQLite's store answers at once, and so do `create` and `recover`; Postgres's later, and so do they. */
  store: Store<When>;
  scenes: ReadonlyMap<string, LoadedScene>;
  /**
   * The generator for a new session. One can serve every session: its notices (a fallback, a
   * cut) go with each call into the log of the session that made it.
   */
  generator: () => Generator;
  /** The speech synthesizer for a new session (null: text only); shared like the generator. */
  synthesizer?: () => Synthesizer | null;
  /** Shared by every room; null or absent: humans type. */
  transcriber?: Transcriber | null;
  /** A fresh VAD for one microphone stream (by default Silero behind an energy gate: media/energy-gate.ts). */
  vad?: () => Promise<Vad>;
  speed?: number;
  /** How long an ended room stays in memory for late readers; its log stays in the store. Default 10 min. */
  keepEndedMs?: number;
  now?: () => number;
  /** How long an open floor (offered by the policy, nobody's question) waits for a human before the talk goes on. */
  openFloorMs?: number;
  /** How long a joined human's empty seat is held before the session pauses for them. Default 20 s. */
  seatGraceMs?: number;
  /** A room was created (before its first event): where another transport attaches to it. */
  onOpen?: (room: Room) => void;
  /** Writes every room's events to `store` (default: a journal with its default retries). */
  journal?: Journal;
  /** Where utterances' audio is written; absent: nothing is recorded. */
  recordings?: RecordingStore;
  /** The server's log: one line when a session is created, starts and ends (and why). Default: none. */
  log?: (line: string) => void;
  /** Several servers on one database: this node's leases. Absent (one server): every session is this one's. */
  ownership?: Ownership;
}

export interface Rooms<When extends Timing = Timing> {
  /**
   * A new session, in its lobby, once its row is stored; `standIns`: started at once, the simulation
   * speaking for every human not here; `recording`: record participants' microphones (default: the
   * scene's `recording`).
   */
  create(scene: string, options: { pace: Pace; seed?: number; standIns?: boolean; recording?: boolean }): Answer<Room, When>;
  get(id: string): Room | undefined;
  /** Forgets an ended room at once (its session was deleted). */
  remove(id: string): void;
  /**
   * The session was deleted: its room ends if it still runs, every client is told (an `ended`
   * error with `reason`) and its connection closed with `code`, and the room is forgotten.
   * False if no room of that id is in memory.
   */
  close(id: string, how: CloseReason): boolean;
  list(): Room[];
  /**
   * Resumes the sessions left unfinished by a previous process, or marks those that cannot resume
   * ended (the server's log says which, and why); returns their ids. With `ownership`, only those
   * whose lease ran out, each claimed first (a dead node's sessions), and the answer comes later
   * whatever the store.
   */
  recover(): Answer<string[], When>;
}

/** `Rooms.create` was given a scene this server does not have (any other failure is the server's). */
export class UnknownSceneError extends Error {
  override name = 'UnknownSceneError';
}

/** `step` for each item in turn, each once the one before is answered; at once if every answer is. */
const inTurn = <T, R>(items: readonly T[], step: (item: T) => R | Promise<R>): R[] | Promise<R[]> =>
  items.reduce<R[] | Promise<R[]>>((done, item) => after(done, (list) => after(step(item), (result) => [...list, result])), []);

export const createRooms = <When extends Timing>(options: RoomsOptions<When>): Rooms<When> => {
  const store: AnyStore = options.store;
  const journal = options.journal ?? createJournal(store);
  const now = options.now ?? (() => Date.now());
  const rooms = new Map<string, Room>();
  // Loaded with the first microphone; the import kept, as each import() goes through the loader's hooks again (tsx: 8 ms a room under load).
  let microphoneVad: Promise<typeof import('../media/energy-gate')> | undefined;
  const vad = options.vad ?? (async () => (await (microphoneVad ??= import('../media/energy-gate'))).createGatedSileroVad());
  const logLine = options.log ?? (() => {});

  const { ownership } = options;
  // A session resumes with the scene it ran, stored with it, whatever the editor did to the scene since.
  const versions = sessionScenes({ store, current: (id) => options.scenes.get(id), warn: logLine });

  /**
   * The room of a session whose row is stored; `generation`: its lease's, which fences its writes
   * (with ownership).
   */
  const opened = ({ id, scene, pace, seed, records, standIns, generation, resume }: { id: string; scene: LoadedScene; pace: Pace; seed: number; records: boolean; standIns: boolean; generation: number; resume?: Resume }): Room => {
    const synthesizer = options.synthesizer?.() ?? null;
    /** Another node holds the lease: the room stops, and its own lines (its end) are not logged. */
    let lost = false;
    const lose = (why: string) => {
      if (lost) return;
      lost = true;
      ownership?.drop(id);
      if (rooms.get(id) === room) rooms.delete(id);
      logLine(`session ${id}: ${why}; stopped on this server (its clients reconnect to the new owner)`);
      room.close({ code: CLOSE_LEASE_LOST, reason: 'moved to another server', by: 'the cluster' });
    };
    const fence: Fence | undefined = ownership?.hold(id, generation, lose);
    const roomJournal: Journal = fence
      ? { open: (session, handlers) => journal.open(session, { ...handlers, lost: () => lose('another server took this session over (a write was refused)') }, fence), close: journal.close }
      : journal;
    const room = openRoom({
      id,
      scene,
      pace,
      seed,
      recording: records,
      store,
      journal: roomJournal,
      synthesizer,
      generator: options.generator(),
      transcriber: options.transcriber ?? null,
      vad,
      recordings: options.recordings,
      now,
      speed: options.speed,
      openFloorMs: options.openFloorMs,
      seatGraceMs: options.seatGraceMs,
      keepEndedMs: options.keepEndedMs,
      forget: () => rooms.get(id) === room && rooms.delete(id),
      log: (line) => !lost && logLine(line),
      resume,
    });
    if (ownership) void room.conversation.ended.then(() => ownership.drop(id));
    rooms.set(id, room);
    if (resume) logLine(`session ${id}: resumed after its server stopped (${scene.id}, ${pace}, from event ${resume.seq})`);
    else logLine(`session ${id}: created (${scene.id}, ${pace}${records ? ", records participants' microphones" : ''})`);
    options.onOpen?.(room);
    if (standIns) room.handle({ participant: null, role: 'author', send: () => {} }, { type: 'start', standIns: true });
    return room;
  };

  return {
    create(sceneId, { pace, seed = randomInt(0, 2 ** 31 - 1), standIns = false, recording }) {
      const scene = options.scenes.get(sceneId);
      if (!scene) throw new UnknownSceneError(`unknown scene "${sceneId}"`);
      const id = randomBytes(9).toString('base64url');
      const records = recording ?? scene.recording ?? false;
      // The scene as it is now is the version this session runs, for good: stored with its row.
      const row = { id, scene: scene.id, seed, pace, createdAt: now(), recording: records, sceneVersion: versionOf(scene) };
      // With ownership the session's lease comes with its row, at generation 1.
      return after(tryTwice(() => store.createSession(row, ownership?.claim)), () => opened({ id, scene, pace, seed, records, standIns, generation: 1 })) as Answer<Room, When>;
    },
    get: (id) => rooms.get(id),
    remove: (id) => void rooms.delete(id),
    close(id, how) {
      const room = rooms.get(id);
      if (!room) return false;
      room.close(how);
      rooms.delete(id);
      return true;
    },
    list: () => [...rooms.values()],
    recover() {
      /** Where the session resumes, or why it cannot. */
      const resumable = (row: SessionRow, scene: LoadedScene | undefined, log: readonly SessionEvent[], stored: { seq: number; json: string } | undefined): { scene: LoadedScene; resume?: Resume } | string => {
        if (!scene) return `its scene "${row.scene}" is no longer on this server`;
        const last = log.at(-1)?.seq ?? 0;
        // Still in its lobby: nothing happened yet, it opens there again.
        if (!stored) return last === 0 ? { scene } : 'it has no checkpoint to resume from (its log is from an older version)';
        try {
          const resume = parseCheckpoint(stored.json, scene);
          if (resume.seq !== last) return `its checkpoint (event ${resume.seq}) is not at the end of its log (event ${last})`;
          return { scene, resume };
        } catch (error) {
          if (error instanceof CheckpointError) return `its checkpoint cannot be read: ${error.message}`;
          throw error;
        }
      };
      const endSession = (row: SessionRow, log: readonly SessionEvent[], why: string, fence?: Fence) => {
        const seq = log.at(-1)?.seq ?? 0;
        const at = log.at(-1)?.t ?? 0;
        const turns = log.filter((e) => e.type === 'utterance').length;
        const closing = [
          { seq: seq + 1, t: at, type: 'system', level: 'warn', code: 'server-restarted', message: `The server stopped during this session and it could not resume (${why}); it was ended and its log kept.` },
          { seq: seq + 2, t: at, type: 'end', reason: 'ended', turns },
        ];
        logLine(`session ${row.id}: ended after its server stopped (${why})`);
        return after(tryTwice(() => store.appendEvents(row.id, closing, fence)), () => {
          const endedAt = now();
          return after(tryTwice(() => store.markEnded(row.id, endedAt, fence)), () => row.id);
        });
      };
      const recoverSession = (row: SessionRow, fence?: Fence) =>
        after(tryTwice(() => store.events(row.id) as SessionEvent[] | Promise<SessionEvent[]>), (log) =>
          after(tryTwice(() => store.checkpoint(row.id)), (stored) =>
            after(tryTwice(() => versions.of(row)), (ran) => {
              const found = resumable(row, ran, log, stored);
              if (typeof found === 'string') return endSession(row, log, found, fence);
              const { scene, resume } = found;
              opened({ id: row.id, scene, pace: row.pace, seed: row.seed, records: row.recording, standIns: false, generation: fence?.generation ?? 1, ...(resume ? { resume } : {}) });
              return row.id;
            }),
          ),
        );
      if (!ownership) return after(tryTwice(() => store.unfinished()), (rows) => inTurn(rows, recoverSession)) as Answer<string[], When>;
      // Several nodes: a session is taken only with its lease, so only once, and never a live node's.
      // One that fails (another node was quicker, the database went away) is left for the next beat.
      const takeOver = async (row: SessionRow): Promise<string | null> => {
        // This node's own (a renewal failed while the database was away): the next renewal extends it again.
        if (rooms.has(row.id)) return null;
        try {
          const generation = await store.claimLease(row.id, ownership.claim);
          if (generation === null || rooms.has(row.id)) return null;
          // It may have ended between the list and the claim.
          if ((await store.session(row.id))?.endedAt !== null) return null;
          return await recoverSession(row, { node: ownership.claim.node, generation });
        } catch (error) {
          logLine(`session ${row.id}: taking it over failed (${(error as Error).message}); left for the next try`);
          return null;
        }
      };
      const taken = Promise.resolve(store.unowned()).then(async (rows) => {
        const ids: string[] = [];
        for (const row of rows) {
          const id = await takeOver(row);
          if (id !== null) ids.push(id);
        }
        return ids;
      });
      return taken as Answer<string[], When>;
    },
  };
};
