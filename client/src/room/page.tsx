/**
 * A session's room page. The join link opens one of: the brief (scene, who is there, your role, a
 * microphone check) and then the room itself (the 3D view with the participant's controls, or the
 * instructor's panel); the summary of a session that has ended; or a page that says why the link
 * does not work and what to do (net/sessions.ts tells which).
 */
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { Role } from '../../../shared/claims';
import type { Snapshot } from '../../../shared/protocol/messages';
import { meterLevel, openMicrophone, type Microphone } from '../audio/mic';
import { readToken } from '../net/connection';
import { api } from '../net/api';
import { mediaTransport, type Health } from '../net/media';
import { openSessionLink, type SessionLink } from '../net/sessions';
import { BriefCard } from './brief';
import { Hud } from './hud';
import { ObserverPanel } from './observer';
import { Room3D } from './room3d';
import { joinSession, type Session } from './session';
import { EndedPage } from './ended';
import { LinkProblemPage } from '../ui/link-problem';

/** How long joining waits for the audio output to start. */
const AUDIO_START_MS = 1500;

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
  const [link, setLink] = useState<SessionLink | null>(null);
  const [voiceIn, setVoiceIn] = useState<boolean | null>(null);
  const [health, setHealth] = useState<Health | null>(null);
  const [session, setSession] = useState<Session | null>(null);

  useEffect(() => {
    void openSessionLink(id, token).then(setLink);
    api
      .health()
      .then(
        (h) => {
          setHealth(h);
          setVoiceIn(h.providers.transcription !== 'none');
        },
        // Without health the room still works: voices go through the socket.
        () => setVoiceIn(null),
      );
  }, [id, token]);

  const joining = useRef(false);
  const join = () => {
    if (joining.current) return;
    joining.current = true;
    // The audio context starts here, on the click: browsers only allow sound after a gesture.
    const audio = new AudioContext({ latencyHint: 'interactive' });
    // Join once it runs: speech that arrives while it is still starting would be dropped, and a
    // session that starts as this person arrives sends its first line at once. A browser that
    // never allows sound must not keep them out of the room, so the wait is bounded.
    const started = new Promise((resolve) => setTimeout(resolve, AUDIO_START_MS));
    void Promise.race([audio.resume(), started]).then(() => setSession(joinSession({ session: id, token, audio, media: mediaTransport(health) })));
  };
  useEffect(() => () => session?.leave(), [session]);
  const live = link?.kind === 'live' ? link.snapshot : null;
  // Tests open the room straight away (they cannot click through a brief they do not need).
  useEffect(() => {
    if (test && live && !session) join();
  }, [test, live]); // eslint-disable-line react-hooks/exhaustive-deps

  if (!link) return <main className="page">Opening the room…</main>;
  if (link.kind === 'problem') return <LinkProblemPage problem={link.problem} detail={link.detail} />;
  if (link.kind === 'ended') return <EndedPage summary={link.summary} role={claims?.role ?? null} />;
  if (!claims) return <LinkProblemPage problem="unauthorized" detail={null} />;
  if (!session) return <Brief snapshot={link.snapshot} role={claims.role} seat={claims.participant} voiceIn={voiceIn} onJoin={join} />;
  return <Joined session={session} token={token} test={test} />;
};

/** Before entering: the scene, who is there, your part, and a microphone check. */
const Brief = ({ snapshot, role, seat, voiceIn, onJoin }: { snapshot: Snapshot; role: Role; seat: string | null; voiceIn: boolean | null; onJoin: () => void }) => {
  const [level, setLevel] = useState(0);
  const [micError, setMicError] = useState('');
  const mic = useRef<Microphone | null>(null);
  const missing = snapshot.participants.filter((p) => p.kind === 'human' && !p.present && p.id !== seat);

  const check = async () => {
    setMicError('');
    try {
      mic.current = await openMicrophone({ mode: 'open', onFrame: () => {} });
      const tick = () => {
        if (!mic.current) return;
        setLevel(meterLevel(mic.current.level()));
        requestAnimationFrame(tick);
      };
      tick();
    } catch (error) {
      setMicError(micProblem(error));
    }
  };
  useEffect(() => () => void mic.current?.close(), []);

  return (
    <main className="page brief">
      <BriefCard snapshot={snapshot} role={role} seat={seat} />
      {snapshot.status === 'lobby' && (
        <p className="note">
          The session starts when everyone is here{missing.length ? ` (still waiting for ${missing.map((p) => p.name).join(', ')})` : ''}, or when the instructor starts it.
        </p>
      )}
      {role === 'participant' && (
        <section>
          <h2>Microphone</h2>
          {voiceIn === false && <p className="warn">This server has no transcriber: in the room, type, or use your browser's speech recognition where it has one.</p>}
          <button onClick={() => void check()}>Check my microphone</button>
          <meter min={0} max={1} low={0.3} high={0.85} optimum={0.55} value={level} aria-label="microphone level" />
          {micError && <p className="error">{micError}</p>}
        </section>
      )}
      <p>
        <button className="primary" onClick={onJoin}>
          Enter the room
        </button>
      </p>
    </main>
  );
};

const Joined = ({ session, token, test }: { session: Session; token: string; test: boolean }) => {
  const view = useSyncExternalStore(session.subscribe, () => session.view);
  const observer = view.you !== null && view.you.role !== 'participant';
  return (
    <div className="room">
      <Room3D session={session} view={view} token={token} test={test} />
      {view.you && (observer ? <ObserverPanel session={session} view={view} /> : <Hud session={session} view={view} />)}
      {!view.you && <div className="banner">{view.connection.state === 'closed' ? `Could not join: ${view.connection.detail ?? 'the server closed the connection'}. Reload to try again.` : 'Joining…'}</div>}
    </div>
  );
};
