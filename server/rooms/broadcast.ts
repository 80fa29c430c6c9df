/**
 * A room's audiences: the clients connected to it and the other transports subscribed to it, and
 * what each of them is sent. An event goes to the clients its audience names (everyone, the
 * instructors, one seat: shared/events.ts), as they may see it; a message is serialised once for
 * all the clients that take it as text, however many there are. Backpressure is the socket's own
 * (api/: a client that cannot keep up is dropped and rejoins with `?after=`).
 *
 * Participants are shown the room, not its controls: the instructor's line in a seat they took
 * over (`say-as`) reaches them as the seat's own line (`participantsView`); instructors, and the
 * stored log, keep `source: 'instructor'`.
 *
 * ```ts
 * const broadcast = createBroadcast({ scene });
 * broadcast.add(client);
 * broadcast.send({ type: 'event', event }, event); // to those who may see it, as they see it
 * broadcast.pose({ type: 'pose', participant: 'riley', head, left: null, right: null }); // to the others, lossy
 * const stop = broadcast.subscribe((message) => media.publish(message)); // what everyone may see
 * broadcast.close({ code: 4410, reason: 'session deleted' });
 * ```
 */
import type { Role } from '../../shared/claims';
import { asParticipantsSee, audienceOf, visibleTo, type SessionEvent } from '../../shared/events';
import type { PoseMessage, ServerMessage } from '../../shared/protocol/messages';
import type { LoadedScene } from '../../shared/scene/schema';

/** How the server closes a connection: a WebSocket close code (4000-4999 are the application's) and why. */
export interface CloseReason {
  code: number;
  reason: string;
}

/** A connected client, as the room sees it. */
export interface Client {
  participant: string | null;
  role: Role;
  send(message: ServerMessage): void;
  /**
   * A message already serialised (its JSON): a broadcast is serialised once for all its
   * recipients and handed to each client that takes it this way, else to `send`.
   */
  sendRaw?(json: string): void;
  /**
   * 'livekit': the client receives the live stream (events, deltas, cues, controls) on the
   * LiveKit data topics; its socket carries the welcome, the backlog after a seq, errors and pongs.
   */
  streamVia?: 'socket' | 'livekit';
  /**
   * A message that may be lost (a pose: the next supersedes it): the transport drops it rather than
   * queue it behind a slow reader. Without it, `sendRaw` or `send`.
   */
  sendLossy?(json: string): void;
  /**
   * Closes the connection: without `how`, because a newer one took the seat; with it, with that
   * close code and reason (e.g. 4410 "session deleted": the session is gone).
   */
  close?(how?: CloseReason): void;
}

export interface BroadcastOptions {
  /** The session's scene: whose seats are humans', for the participants' view of a line. */
  scene: LoadedScene;
}

export interface Broadcast {
  /** The clients joined, in the order they joined. */
  readonly clients: ReadonlySet<Client>;
  add(client: Client): void;
  remove(client: Client): void;
  /**
   * To every client, and every subscriber. With `event` (the message is that event, or about it):
   * only to the clients its audience names, each as they see it; subscribers get it if everyone
   * may see it, else its `seq` alone.
   */
  send(message: ServerMessage, event?: SessionEvent): void;
  /** Logged events to one client (its backlog on joining), those it may see, as it sees them. */
  replay(client: Client, events: readonly SessionEvent[]): void;
  /** A participant's microphone frame, relayed to the other clients that hear it on their socket. */
  relay(participant: string, message: ServerMessage): void;
  /**
   * A headset wearer's pose, to every other client (on its socket, LiveKit's too: poses are not on
   * the data topics), dropped for a client that is behind; never logged, never replayed.
   */
  pose(message: PoseMessage): void;
  /** Every message the whole room may see (see `send`). Returns the unsubscribe. */
  subscribe(listener: (message: ServerMessage) => void): () => void;
  /** Whether an instructor (an observer or the author) is connected. */
  watched(): boolean;
  /** Tells every client the session is over (an `ended` error saying why) and closes them. */
  close(how: CloseReason): void;
}

/** What a client whose live stream comes through LiveKit still gets on its socket. */
const socketOnly = new Set<ServerMessage['type']>(['welcome', 'error', 'pong']);

/** Whether a client may see an event: its audience (everyone, the instructors, one seat) names them. */
export const sees = (client: Pick<Client, 'role' | 'participant'>, event: SessionEvent): boolean => visibleTo({ instructor: client.role !== 'participant', seat: client.participant }, event);

/**
 * An event as participants are shown it. The instructor's line in a seat they hold reads as the
 * seat's own: the source its other lines carry ('simulated-human' for a human seat stood in for,
 * 'ai' for a persona), without the `sentAt` only typed lines have. Any other event is itself.
 */
export const participantsView = (scene: LoadedScene): ((event: SessionEvent) => SessionEvent) => {
  const humans = new Set(scene.participants.filter((p) => p.kind === 'human').map((p) => p.id));
  return (event) => asParticipantsSee(event, humans);
};

export const createBroadcast = (options: BroadcastOptions): Broadcast => {
  const clients = new Set<Client>();
  const listeners = new Set<(message: ServerMessage) => void>();
  const asParticipantsSee = participantsView(options.scene);

  /** Hands a message to a client, as text if it takes text (`json` serialises it, once for all). */
  const deliver = (client: Client, message: ServerMessage, json: () => string) => {
    if (client.sendRaw) client.sendRaw(json());
    else client.send(message);
  };

  return {
    clients,
    add: (client) => void clients.add(client),
    remove: (client) => void clients.delete(client),
    send(message, event) {
      // Serialised once for every recipient (200 observers cost one JSON.stringify, not 200), and
      // once more for participants when their view differs.
      const seen = event && message.type === 'event' ? asParticipantsSee(event) : event;
      const theirs: ServerMessage = seen === event ? message : { type: 'event', event: seen! };
      let json: string | null = null;
      let theirJson: string | null = null;
      for (const client of clients) {
        if (client.streamVia === 'livekit' && !socketOnly.has(message.type)) continue;
        if (event && !sees(client, event)) continue;
        if (client.role === 'participant' && theirs !== message) deliver(client, theirs, () => (theirJson ??= JSON.stringify(theirs)));
        else deliver(client, message, () => (json ??= JSON.stringify(message)));
      }
      // Other transports publish to the whole room: only what everyone may see, as participants see it, and for the rest its seq.
      const shared: ServerMessage = !event || audienceOf(event) === 'all' ? theirs : { type: 'seq', seq: event.seq };
      for (const listener of listeners) listener(shared);
    },
    replay(client, events) {
      for (const event of events) if (sees(client, event)) client.send({ type: 'event', event: client.role === 'participant' ? asParticipantsSee(event) : event });
    },
    relay(participant, message) {
      let json: string | null = null;
      // LiveKit clients hear every human as a track already.
      for (const other of clients) {
        if (other.participant === participant || other.streamVia === 'livekit') continue;
        deliver(other, message, () => (json ??= JSON.stringify(message)));
      }
    },
    pose(message) {
      let json: string | null = null;
      for (const other of clients) {
        if (other.participant === message.participant) continue;
        json ??= JSON.stringify(message);
        if (other.sendLossy) other.sendLossy(json);
        else deliver(other, message, () => json!);
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    watched: () => [...clients].some((client) => client.role !== 'participant'),
    close(how) {
      // A copy: a client closing leaves the room, and the set, at once.
      for (const client of [...clients]) {
        client.send({ type: 'error', code: 'ended', message: `This session has ended: ${how.reason}.` });
        client.close?.(how);
      }
      clients.clear();
    },
  };
};
