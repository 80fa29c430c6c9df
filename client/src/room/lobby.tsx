/**
 * The participant's lobby, in the room before the session starts: who is here, who it waits for,
 * and what starts it.
 */
import type { RoomView } from '../state/room';

export const LobbyCard = ({ view }: { view: RoomView }) => {
  const humans = view.snapshot?.participants.filter((p) => p.kind === 'human') ?? [];
  const me = view.you?.participant;
  return (
    <section className="lobby-card" aria-label="lobby">
      <ul className="seats">
        {humans.map((p) => (
          <li key={p.id} className={p.present ? 'present' : 'missing'}>
            {p.name} {p.id === me ? <small>(you)</small> : <small>{p.present ? 'here' : 'not here yet'}</small>}
          </li>
        ))}
      </ul>
      <p className="note">The session starts when everyone is here, or when the instructor starts it.</p>
    </section>
  );
};
