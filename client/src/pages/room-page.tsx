/**
 * A session's room page: the lobby (scene, who is there, your role, a microphone check), then the
 * room itself: the 3D view with the participant's controls, or the instructor's panel.
 */
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { Role } from '../../../server/auth/claims';
import type { Snapshot } from '../../../server/protocol/messages';
import { openMicrophone, type Microphone } from '../audio/mic';
import { readToken } from '../net/connection';
import { mediaTransport, type Health } from '../net/media';
import { Hud } from '../room/hud';
import { ObserverPanel } from '../room/observer';
import { Room3D } from '../room/room3d';
import { joinSession, type Session } from '../room/session';

interface Props {
  session: string;
  token: string;
  test: boolean;
}

const micProblem = (error: unknown): string => {
  const name = (error as { name?: string }).name;
  if (name === 'NotAllowedError') return 'The browser did not allow the microphone. Allow it in the address bar to talk, or type instead.';
  if (name === 'NotFoundError') return 'No microphone was found. Connect one to talk, or type instead.';
  return `The microphone could not start (${(error as Error).message}). You can type instead.`;
};

export const RoomPage = ({ session: id, token, test }: Props) => {
  const claims = readToken(token);
  const [snapshot, setSnapshot] = useState<Snapshot | null>(null);
  const [voiceIn, setVoiceIn] = useState<boolean | null>(null);
  const [health, setHealth] = useState<Health | null>(null);
  const [problem, setProblem] = useState('');
  const [session, setSession] = useState<Session | null>(null);

  useEffect(() => {
    if (!token) return setProblem('This link has no token. Ask for your join link again.');
    void fetch(`/api/sessions/${encodeURIComponent(id)}`, { headers: { authorization: `Bearer ${token}` } }).then(async (res) => {
      const body = (await res.json()) as Snapshot & { message?: string };
      if (!res.ok) return setProblem(body.message ?? `The server refused this link (HTTP ${res.status}).`);
      setSnapshot(body);
    });
    void fetch('/api/health')
      .then((r) => r.json() as Promise<Health & { providers: { transcription: string } }>)
      .then((h) => {
        setHealth(h);
        setVoiceIn(h.providers.transcription !== 'none');
      });
  }, [id, token]);

  const join = () => {
    // The audio context starts here, on the click: browsers only allow sound after a gesture.
    const audio = new AudioContext({ latencyHint: 'interactive' });
    void audio.resume();
    setSession(joinSession({ session: id, token, audio, media: mediaTransport(health) }));
  };
  useEffect(() => () => session?.leave(), [session]);
  // Tests open the room straight away (they cannot click through a lobby they do not need).
  useEffect(() => {
    if (test && snapshot && !session) join();
  }, [test, snapshot]); // eslint-disable-line react-hooks/exhaustive-deps

  if (problem) return <main className="page error">{problem}</main>;
  if (!snapshot || !claims) return <main className="page">Opening the room…</main>;
  if (!session) return <Lobby snapshot={snapshot} role={claims.role} seat={claims.participant} voiceIn={voiceIn} onJoin={join} />;
  return <Joined session={session} test={test} />;
};

const Lobby = ({ snapshot, role, seat, voiceIn, onJoin }: { snapshot: Snapshot; role: Role; seat: string | null; voiceIn: boolean | null; onJoin: () => void }) => {
  const [level, setLevel] = useState(0);
  const [micError, setMicError] = useState('');
  const mic = useRef<Microphone | null>(null);
  const me = snapshot.participants.find((p) => p.id === seat);

  const check = async () => {
    setMicError('');
    try {
      mic.current = await openMicrophone({ mode: 'open', onFrame: () => {} });
      const tick = () => {
        if (!mic.current) return;
        setLevel(mic.current.level());
        requestAnimationFrame(tick);
      };
      tick();
    } catch (error) {
      setMicError(micProblem(error));
    }
  };
  useEffect(() => () => void mic.current?.close(), []);

  return (
    <main className="page lobby">
      <h1>{snapshot.scene.title}</h1>
      <p className="topic">{snapshot.scene.topic}</p>
      <p>
        You join as <b>{role === 'participant' ? `${me?.name ?? seat}${me?.role ? `, ${me.role}` : ''}` : 'the instructor (hidden from the room)'}</b>.
      </p>
      <h2>In this room</h2>
      <ul className="people">
        {snapshot.participants.map((p) => (
          <li key={p.id}>
            {p.name} <small>{p.id === seat ? '(you)' : p.kind === 'ai' ? 'AI persona' : p.present ? 'here' : 'not here yet (simulated until they join)'}</small>
          </li>
        ))}
      </ul>
      {role === 'participant' && (
        <section>
          <h2>Microphone</h2>
          {voiceIn === false && <p className="warn">Voice input is off on this server (no transcriber configured): type instead. The README's "Voice" section says how to turn it on.</p>}
          <button onClick={() => void check()}>Check my microphone</button>
          <meter min={0} max={1} value={level} aria-label="microphone level" />
          {micError && <p className="error">{micError}</p>}
        </section>
      )}
      <p>
        <button className="primary" onClick={onJoin} disabled={snapshot.phase === 'ended'}>
          {snapshot.phase === 'ended' ? 'This session has ended' : 'Enter the room'}
        </button>
      </p>
    </main>
  );
};

const Joined = ({ session, test }: { session: Session; test: boolean }) => {
  const view = useSyncExternalStore(session.subscribe, () => session.view);
  const observer = view.you !== null && view.you.role !== 'participant';
  return (
    <div className="room">
      <Room3D session={session} view={view} test={test} />
      {view.you && (observer ? <ObserverPanel session={session} view={view} /> : <Hud session={session} view={view} />)}
      {!view.connected && <div className="banner">{session.status}</div>}
    </div>
  );
};
