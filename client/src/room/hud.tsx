/**
 * A participant's controls on a desktop: the status line (one true state of the room), the lobby
 * before the session starts, the transcript, a text box (always there), the microphone (open mic
 * or push-to-talk on the space bar; without a transcriber on the server, the browser's speech
 * recognition if the person opts in), raise / lower hand, and a mute per voice.
 */
import { useEffect, useState } from 'react';
import { meterLevel } from '../audio/mic';
import { hasRecognition, recognisesOnDevice } from '../audio/recognition';
import { micOffer, micOfferText, recognitionPrivacy } from '../net/media';
import type { RoomView } from '../state/room';
import { BriefCard } from './brief';
import { LobbyCard } from './lobby';
import type { MicMode, Session } from './session';
import { StatusLine, useRoomStatus } from './status-line';
import { Transcript } from './transcript';

export const Hud = ({ session, view }: { session: Session; view: RoomView }) => {
  const [text, setText] = useState('');
  const [briefOpen, setBriefOpen] = useState(false);
  const status = useRoomStatus(view);
  const me = view.you?.participant ?? null;
  const handUp = me !== null && view.hands.includes(me);
  const pushToTalk = view.mic === 'push-to-talk';

  // Push-to-talk on the space bar, unless typing; H raises or lowers the hand.
  useEffect(() => {
    const typing = (e: KeyboardEvent) => (e.target as HTMLElement | null)?.tagName === 'INPUT';
    const down = (e: KeyboardEvent) => {
      if (typing(e)) return;
      if (e.code === 'Space' && pushToTalk) {
        e.preventDefault();
        session.microphone()?.setTalking(true);
      }
      if (e.code === 'KeyH') session.setHand(!handUp);
    };
    const up = (e: KeyboardEvent) => {
      if (e.code === 'Space' && pushToTalk) session.microphone()?.setTalking(false);
    };
    addEventListener('keydown', down);
    addEventListener('keyup', up);
    return () => {
      removeEventListener('keydown', down);
      removeEventListener('keyup', up);
    };
  }, [pushToTalk, handUp, session]);

  const send = () => {
    session.say(text);
    setText('');
  };

  return (
    <aside className="hud">
      <header>
        <b>
          {view.snapshot?.scene.title}
          {view.snapshot?.recording && (
            <abbr className="rec" title="This session records your microphone" style={{ marginLeft: 8, color: '#c62828', fontSize: '0.8em', textDecoration: 'none' }}>
              ● REC
            </abbr>
          )}
        </b>
        <button className="link" aria-expanded={briefOpen} onClick={() => setBriefOpen(!briefOpen)}>
          {briefOpen ? 'Close the brief' : 'Brief'}
        </button>
      </header>
      {briefOpen && view.snapshot && view.you && <BriefCard snapshot={view.snapshot} role={view.you.role} seat={view.you.participant} />}
      <StatusLine view={view} status={status} />
      {view.status === 'lobby' && <LobbyCard view={view} />}
      {view.status === 'ended' && (
        <a className="summary" href={location.href}>
          See the session's summary
        </a>
      )}
      <Transcript view={view} position={session.position} />
      <div className="say">
        <input
          value={text}
          placeholder={status.kind === 'your-turn' ? 'Your turn: type here, or speak' : 'Type to speak (you can interrupt)'}
          onChange={(e) => {
            setText(e.target.value);
            session.send({ type: 'typing', active: e.target.value.length > 0 });
          }}
          onKeyDown={(e) => e.key === 'Enter' && send()}
          aria-label="message"
        />
        <button onClick={send} disabled={!text.trim()}>
          Say
        </button>
      </div>
      <div className="controls">
        <button className={handUp ? 'on' : ''} onClick={() => session.setHand(!handUp)} title="H">
          {handUp ? 'Lower hand' : 'Raise hand'}
        </button>
        {me && view.talking.includes(me) && <span className="live">● speaking</span>}
      </div>
      <MicControl session={session} view={view} />
      <Voices session={session} view={view} />
    </aside>
  );
};

/**
 * The microphone: the server's transcriber; or, without one, the browser's recognition if the
 * person opts in (told first where the audio goes); or a plain word that typing is the way.
 */
const MicControl = ({ session, view }: { session: Session; view: RoomView }) => {
  const [problem, setProblem] = useState('');
  const [, setTick] = useState(0);
  const offer = micOffer(view.voice, hasRecognition());
  const mic = session.microphone();

  // The level meter redraws while the microphone is on.
  useEffect(() => {
    if (!mic) return;
    const timer = setInterval(() => setTick((t) => t + 1), 100);
    return () => clearInterval(timer);
  }, [mic]);

  const switchMic = async (next: MicMode | 'off') => {
    setProblem('');
    try {
      if (next === 'off') session.stopMicrophone();
      else await session.startMicrophone(next);
    } catch (error) {
      setProblem((error as Error).name === 'NotAllowedError' ? 'Microphone blocked: allow it in the browser, or type.' : `No microphone (${(error as Error).message}); type instead.`);
    }
  };

  if (offer === 'server') {
    const mode = view.mic === 'open' || view.mic === 'push-to-talk' ? view.mic : 'off';
    return (
      <section className="mic controls" aria-label="microphone">
        <select value={mode} onChange={(e) => void switchMic(e.target.value as MicMode | 'off')} aria-label="microphone mode">
          <option value="off">Mic off</option>
          <option value="open">Open mic</option>
          <option value="push-to-talk">Push to talk (space)</option>
        </select>
        {mic && <meter min={0} max={1} low={0.3} high={0.85} optimum={0.55} value={meterLevel(mic.level())} aria-label="your level" />}
        {problem && <p className="error">{problem}</p>}
      </section>
    );
  }
  return (
    <section className="mic" aria-label="microphone">
      <p className="warn">{micOfferText[offer]}</p>
      {offer === 'browser' && <BrowserRecognitionToggle session={session} view={view} onProblem={setProblem} />}
      {problem && <p className="error">{problem}</p>}
    </section>
  );
};

/**
 * Opting in to the browser's recognition: on the device when the browser can (said so, and it
 * starts); otherwise the person is told the vendor may process the audio, and confirms.
 */
const BrowserRecognitionToggle = ({ session, view, onProblem }: { session: Session; view: RoomView; onProblem: (message: string) => void }) => {
  const [step, setStep] = useState<'off' | 'checking' | 'confirm'>('off');
  const [onDevice, setOnDevice] = useState(false);
  const start = (local: boolean) => {
    session.startRecognition({ lang: navigator.language, onDevice: local, onError: onProblem });
    setStep('off');
  };
  const optIn = async () => {
    onProblem('');
    setStep('checking');
    const local = await recognisesOnDevice(navigator.language);
    setOnDevice(local);
    if (local) start(true);
    else setStep('confirm');
  };

  if (view.mic === 'browser') {
    return (
      <p className="controls">
        <span className="live">● Your browser is listening.</span> <small>{recognitionPrivacy(onDevice)}</small>
        <button onClick={() => session.stopRecognition()}>Stop</button>
      </p>
    );
  }
  if (step === 'confirm') {
    return (
      <p className="controls">
        <small>{recognitionPrivacy(false)}</small>
        <button onClick={() => start(false)}>Use it anyway</button>
        <button onClick={() => setStep('off')}>Cancel</button>
      </p>
    );
  }
  return (
    <button onClick={() => void optIn()} disabled={step === 'checking'}>
      Use my browser's speech recognition
    </button>
  );
};

/** A mute toggle for every other voice in the room. */
const Voices = ({ session, view }: { session: Session; view: RoomView }) => {
  const [, setTick] = useState(0);
  const voices = session.voices;
  if (!voices || !view.snapshot) return null;
  const others = view.snapshot.participants.filter((p) => p.id !== view.you?.participant);
  return (
    <details className="voices">
      <summary>Voices</summary>
      {others.map((p) => (
        <label key={p.id}>
          <input
            type="checkbox"
            checked={!voices.muted(p.id)}
            onChange={(e) => {
              voices.mute(p.id, !e.target.checked);
              setTick((t) => t + 1);
            }}
          />{' '}
          {p.name}
        </label>
      ))}
    </details>
  );
};
