/**
 * The brief: the scene (title, topic, the situation, how long it runs), your part in it (your role,
 * who you are and your goals, in the second person) and everyone in the room with their face,
 * name and role. Shown before joining and on demand in the room. It shows only what the server sends this viewer: your own goals, nobody else's.
 * A session that records participants' microphones says so here, before you join (issue 17).
 */
import type { Role } from '../../../shared/claims';
import type { Snapshot } from '../../../shared/protocol/messages';
import { Portrait } from '../ui/portrait';

export const BriefCard = ({ snapshot, role, seat }: { snapshot: Snapshot; role: Role; seat: string | null }) => {
  const me = snapshot.participants.find((p) => p.id === seat);
  const goals = snapshot.brief?.goals ?? [];
  const background = snapshot.brief?.backstory ?? null;
  return (
    <section className="brief-card" aria-label="brief">
      <h1>{snapshot.scene.title}</h1>
      <p className="topic">{snapshot.scene.topic}</p>
      {snapshot.scene.context && <p className="context">{snapshot.scene.context}</p>}
      {snapshot.scene.duration && <p className="duration">About {snapshot.scene.duration} minutes.</p>}
      <h2>Your part</h2>
      <p>
        You join as <b>{role === 'participant' ? `${me?.name ?? seat}${me?.role ? `, ${me.role}` : ''}` : 'the instructor (hidden from the room)'}</b>.
      </p>
      {snapshot.recording && (
        <p className="recording-notice" role="note">
          <b>This session records your microphone</b>: what you say is kept as audio with the session for its review, and deleted with it.
        </p>
      )}
      {background && (
        <p className="background" aria-label="who you are">
          {background}
        </p>
      )}
      {goals.length > 0 && (
        <>
          <h3>Your goals</h3>
          <ul className="goals">
            {goals.map((goal) => (
              <li key={goal}>{goal}</li>
            ))}
          </ul>
        </>
      )}
      <h2>In this room</h2>
      <ul className="people">
        {snapshot.participants.map((p) => (
          <li key={p.id}>
            <Portrait avatar={p.avatar ?? 'avatar-01'} name={p.name} />
            <span>
              <b>{p.name}</b>
              {p.role && <span className="role">{p.role}</span>}
              <small>{p.id === seat ? 'you' : p.kind === 'ai' ? 'AI persona' : p.present ? 'here' : 'not here yet'}</small>
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
};
