/**
 * Who is in a room's seats, and the lifecycle that follows from it. A new session waits in its
 * lobby until every human seat is taken, or until the instructor starts it, with stand-ins for the
 * seats still empty. A joined human who drops keeps their seat: after a grace period the session
 * pauses (`seat-empty`) and resumes when they are back (`seat-back`); the simulation speaks for a
 * seat only when the instructor says so (`stand-in`), and a human who arrives speaks for
 * themselves again. A participant is here while they hold any connection: sockets (a reload
 * rejoins the same seat) and, counted as one more, another transport such as the LiveKit room.
 *
 * ```ts
 * const presence = createPresence({ session: id, scene, conversation, resume, gone: voice.stop });
 * presence.connect('jordan', 1); // a socket opened: the seat is taken (the lobby may start)
 * presence.connect('jordan', -1); // its last one closed: held for the grace period, then paused for
 * presence.standIn('jordan'); // the simulation speaks for them until they are back
 * presence.reopened(); // a session resumed after a restart: its joined humans' seats are held for them
 * ```
 */
import type { Conversation } from '../conversation/conversation';
import type { LoadedScene } from '../../shared/scene/schema';

export interface PresenceOptions {
  /** The session's id, for the server's log line when it starts. */
  session: string;
  scene: LoadedScene;
  conversation: Pick<Conversation, 'send' | 'state'>;
  /** How long a joined human's empty seat is held before the session pauses for them. Default 20 s. */
  seatGraceMs?: number;
  /** Nobody is waited for any more: resume the session (or, while saving fails, once it works). */
  resume(): void;
  /** A participant's last connection is gone (their microphone with it). */
  gone?(participant: string): void;
  /** The server's log. */
  log?(line: string): void;
}

export interface Presence {
  /** The session has left its lobby. */
  readonly started: boolean;
  /** Whether a participant holds a connection now. */
  present(participant: string): boolean;
  /** The human seats nobody is in, in the scene's order. */
  missing(): string[];
  /** The seats the session is paused for: joined humans gone past their grace period. */
  emptySeats(): string[];
  /** One more (1) or one fewer (-1) connection of a participant. */
  connect(participant: string, delta: 1 | -1): void;
  /** A participant is here (or gone) by another transport; repeating the same value changes nothing. */
  elsewhere(participant: string, present: boolean): void;
  /** Starts the session from its lobby; `standIns`: the instructor chose stand-ins for the seats still empty. */
  start(standIns: boolean): void;
  /** Leaves the lobby without a start notice: the session ends from it, never having run, with its log. */
  leaveLobby(): void;
  /** The simulation speaks for a human seat nobody is in, until its human is back. */
  standIn(participant: string): void;
  /** The instructor resumes: nobody is waited for any longer; the empty seats are stood in for. */
  standInForEmptySeats(): void;
  /**
   * The session resumed after its server restarted (its clients are gone until they reconnect):
   * out of the lobby if it had left it, each joined human's seat held for the grace period as if
   * they had just dropped, the seats stood in for still stood in.
   */
  reopened(): void;
  /** The session ended: grace periods stop and presence changes nothing more. */
  close(): void;
}

export const createPresence = (options: PresenceOptions): Presence => {
  const { scene, conversation, resume, gone = () => {}, log = () => {} } = options;
  const seatGraceMs = options.seatGraceMs ?? 20_000;
  const humans = scene.participants.filter((p) => p.kind === 'human').map((p) => p.id);
  const nameOf = (participant: string) => scene.participants.find((p) => p.id === participant)?.name ?? participant;
  const connected = new Map<string, number>();
  /** Participants present by another transport. */
  const elsewhere = new Set<string>();
  /** Seats a joined human left: their grace timers, then (past grace) the seats the session is paused for. */
  const grace = new Map<string, ReturnType<typeof setTimeout>>();
  const emptySeats = new Set<string>();
  /** Seats the instructor handed to the simulation. */
  const stoodIn = new Set<string>();
  let started = false;
  let closed = false;

  const present = (participant: string) => (connected.get(participant) ?? 0) > 0;
  const missing = () => humans.filter((h) => !present(h));

  /** A lifecycle notice for everyone; `participant`: whose seat it is about (the clients follow seats by it). */
  const notice = (code: string, message: string, level: 'info' | 'warn', participant: string) =>
    conversation.send({ type: 'notice', level, code, message, participant });

  const endGrace = (participant: string) => {
    const timer = grace.get(participant);
    if (timer) clearTimeout(timer);
    grace.delete(participant);
  };

  const start = (standIns: boolean) => {
    started = true;
    for (const h of humans) if (!present(h)) stoodIn.add(h);
    const absent = missing();
    log(`session ${options.session}: started (${absent.length ? `stand-ins for ${absent.join(', ')}` : 'everyone here'})`);
    // Said by the start itself, before the first line (a notice sent after it came after that line).
    const message = absent.length && standIns ? `Started with stand-ins for ${absent.map(nameOf).join(', ')}.` : 'Everyone is here; the session starts.';
    conversation.send({ type: 'start', notice: { code: 'session-started', message } });
  };

  const seatTaken = (participant: string) => {
    endGrace(participant);
    // A human who arrives speaks for themselves, stand-in or not.
    stoodIn.delete(participant);
    conversation.send({ type: 'presence', participant, present: true });
    if (emptySeats.delete(participant)) {
      notice('seat-back', `${nameOf(participant)} is back.`, 'info', participant);
      if (emptySeats.size === 0 && conversation.state.paused) resume();
    }
    if (!started && humans.every(present)) start(false);
  };

  /** `told`: the engine knows the seat is held already (a session resumed while they were away). */
  const seatLeft = (participant: string, told = false) => {
    if (!started) {
      // In the lobby a seat simply empties again.
      conversation.send({ type: 'presence', participant, present: false });
      return;
    }
    if (stoodIn.has(participant)) return;
    // The seat stays theirs: nobody speaks for them; past the grace period the session waits for them.
    if (!told) conversation.send({ type: 'presence', participant, present: false, held: true });
    const timer = setTimeout(() => {
      grace.delete(participant);
      if (closed || present(participant) || stoodIn.has(participant)) return;
      const wasPaused = conversation.state.paused;
      emptySeats.add(participant);
      notice('seat-empty', `${nameOf(participant)} left; the session is paused until they are back (or the instructor has someone stand in).`, 'warn', participant);
      if (!wasPaused) conversation.send({ type: 'pause' });
    }, seatGraceMs);
    grace.set(participant, timer);
    (timer as { unref?: () => void }).unref?.();
  };

  const connect = (participant: string, delta: 1 | -1) => {
    const before = connected.get(participant) ?? 0;
    const after = Math.max(0, before + delta);
    connected.set(participant, after);
    if (after === 0) gone(participant);
    if ((before === 0) === (after === 0) || closed) return;
    if (after > 0) seatTaken(participant);
    else seatLeft(participant);
  };

  return {
    get started() {
      return started;
    },
    present,
    missing,
    emptySeats: () => [...emptySeats],
    connect,
    elsewhere(participant, here) {
      if (here === elsewhere.has(participant)) return;
      if (here) elsewhere.add(participant);
      else elsewhere.delete(participant);
      connect(participant, here ? 1 : -1);
    },
    start,
    reopened() {
      const { phase, present: here, away } = conversation.state;
      if (phase === 'new') return;
      started = true;
      for (const h of humans) {
        if (!here.includes(h)) stoodIn.add(h);
        else if (!present(h)) seatLeft(h, away.includes(h));
      }
    },
    leaveLobby() {
      started = true;
      conversation.send({ type: 'start' });
    },
    standIn(participant) {
      stoodIn.add(participant);
      endGrace(participant);
      conversation.send({ type: 'presence', participant, present: false });
      if (started) notice('stand-in', `The simulation speaks for ${nameOf(participant)} until they are back.`, 'info', participant);
      if (emptySeats.delete(participant) && emptySeats.size === 0 && conversation.state.paused) resume();
    },
    standInForEmptySeats() {
      for (const seat of emptySeats) {
        stoodIn.add(seat);
        conversation.send({ type: 'presence', participant: seat, present: false });
      }
      emptySeats.clear();
    },
    close() {
      closed = true;
      for (const timer of grace.values()) clearTimeout(timer);
      grace.clear();
    },
  };
};
