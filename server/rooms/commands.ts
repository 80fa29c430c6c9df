/**
 * What a client's message does in its room. The message arrives validated and authorised by role
 * at the socket (api/); here it is checked against the room as it is now (the lobby, a pause, who
 * is here, whose seat the instructor holds, whose slides these are) and becomes the conversation's
 * input, or a typed error for the sender alone.
 *
 * ```ts
 * const handle = createCommands({ scene, conversation, presence, saving: () => log.failing, end: room.end, ended: room.ended });
 * const reply = handle(client, { type: 'say', text: 'Morning all.' }); // null, or an error to send back
 * ```
 */
import type { Conversation } from '../conversation/conversation';
import type { ClientMessage, ServerMessage } from '../../shared/protocol/messages';
import type { LoadedScene } from '../../shared/scene/schema';
import type { Client } from './broadcast';
import type { Presence } from './presence';
import { savingFailedMessage } from './saving';

export interface CommandsOptions {
  scene: LoadedScene;
  conversation: Pick<Conversation, 'send' | 'typing' | 'state'>;
  presence: Presence;
  /** Saving is failing: the session stays paused until it works (the journal's `failing`). */
  saving(): boolean;
  /** Ends the session; `by` says who asked. */
  end(by: string): void;
  ended(): boolean;
}

/** Messages a session in its lobby takes; any other waits for the start. */
const lobbyMessages = new Set<ClientMessage['type']>(['start', 'leave', 'typing', 'end', 'stand-in']);

/** What the conversation is told of: every message but a pose, which the room relays (room.ts). */
export type Command = Exclude<ClientMessage, { type: 'pose' }>;

export const createCommands = (options: CommandsOptions): ((client: Client, message: Command) => ServerMessage | null) => {
  const { scene, conversation, presence } = options;
  const humans = scene.participants.filter((p) => p.kind === 'human').map((p) => p.id);
  const nameOf = (participant: string) => scene.participants.find((p) => p.id === participant)?.name ?? participant;
  /** The parties a participant belongs to: whose slides they may advance. */
  const partiesOf = (participant: string | null) => new Set(scene.parties.filter((p) => participant && p.members.includes(participant)).map((p) => p.id));

  return (client, message) => {
    if (message.type === 'ping') return { type: 'pong' };
    if (options.ended()) return { type: 'error', code: 'ended', message: 'This session has ended.' };
    const me = client.participant;
    if (!presence.started && !lobbyMessages.has(message.type)) {
      return { type: 'error', code: 'not-ready', message: `The session has not started yet: it waits for ${presence.missing().map(nameOf).join(', ') || 'the instructor'}.` };
    }
    // A line said during a pause is kept and said at resume (the engine tells its seat); a hand waits for the resume.
    if (conversation.state.paused && message.type === 'raise-hand') {
      return { type: 'error', code: 'paused', message: 'The session is paused; raise your hand again when it resumes.' };
    }
    switch (message.type) {
      case 'start': {
        if (presence.started) return { type: 'error', code: 'not-in-lobby', message: 'The session has already started.' };
        const missing = presence.missing();
        if (missing.length && !message.standIns) {
          return { type: 'error', code: 'not-ready', message: `Waiting for ${missing.map(nameOf).join(', ')}; start with stand-ins to begin without them.` };
        }
        presence.start(missing.length > 0);
        return null;
      }
      case 'stand-in':
        if (!humans.includes(message.participant)) return { type: 'error', code: 'bad-message', message: `"${message.participant}" is not a human seat of this scene.` };
        if (presence.present(message.participant)) return { type: 'error', code: 'bad-message', message: `${nameOf(message.participant)} is here and speaks for themselves.` };
        presence.standIn(message.participant);
        return null;
      case 'say':
        conversation.send({ type: 'say', participant: me!, text: message.text });
        return null;
      case 'raise-hand':
      case 'lower-hand':
        conversation.send({ type: message.type, participant: me! });
        return null;
      case 'typing':
        conversation.typing(me!, message.active);
        return null;
      case 'gaze':
        conversation.send({ type: 'gaze', participant: me!, at: message.at });
        return null;
      case 'slide': {
        // The presenters (members of the deck's owning party) and the instructor advance slides.
        const deck = scene.contents.find((c) => c.id === message.content);
        if (client.role === 'participant' && (!deck || !partiesOf(me).has(deck.owner))) {
          return { type: 'error', code: 'forbidden', message: 'Only the presenters of these slides, or the instructor, change the slide.' };
        }
        conversation.send({ type: 'slide', content: message.content, index: message.index, by: me ?? null });
        return null;
      }
      case 'leave':
        return null;
      case 'resume':
        if (options.saving()) return { type: 'error', code: 'storage', message: savingFailedMessage };
        presence.standInForEmptySeats();
        conversation.send({ type: 'resume' });
        return null;
      case 'end':
        // Ending from the lobby: the session never ran; it ends all the same, with its log.
        if (!presence.started) presence.leaveLobby();
        options.end(client.role === 'author' ? 'the admin' : client.role === 'observer' ? 'an instructor' : 'a participant');
        return null;
      case 'pause':
      case 'skip-turn':
        conversation.send({ type: message.type });
        return null;
      case 'approve':
        conversation.send({ type: 'approval', proposal: message.proposal, decision: 'approve', ...(message.choice !== undefined ? { choice: message.choice } : {}) });
        return null;
      case 'dismiss':
        conversation.send({ type: 'approval', proposal: message.proposal, decision: 'dismiss' });
        return null;
      case 'edit':
        conversation.send({ type: 'approval', proposal: message.proposal, decision: 'edit', text: message.text });
        return null;
      case 'regenerate':
        conversation.send({ type: 'approval', proposal: message.proposal, decision: 'regenerate', ...(message.intent ? { intent: message.intent } : {}) });
        return null;
      case 'inject':
        conversation.send({ type: 'inject', text: message.text });
        return null;
      case 'take-over':
      case 'hand-back': {
        const seat = scene.participants.find((p) => p.id === message.participant);
        if (!seat) return { type: 'error', code: 'bad-message', message: `"${message.participant}" is not a participant of this scene.` };
        if (message.type === 'take-over' && presence.present(seat.id)) return { type: 'error', code: 'bad-message', message: `${seat.name} is here and speaks for themselves.` };
        conversation.send({ type: 'take-over', participant: seat.id, on: message.type === 'take-over' });
        return null;
      }
      case 'say-as':
        if (!conversation.state.controlled.includes(message.participant)) {
          return { type: 'error', code: 'bad-message', message: `Take over ${nameOf(message.participant)}'s seat first; the simulation speaks for it now.` };
        }
        conversation.send({ type: 'say', participant: message.participant, text: message.text });
        return null;
    }
  };
};
