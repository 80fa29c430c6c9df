/**
 * A participant's controls on a desktop: the transcript, a text box (always there), the
 * microphone (open mic or push-to-talk on the space bar), raise / lower hand, and a mute per voice.
 */
import { useEffect, useState } from 'react';
import { nameOf, yourTurnText, type RoomView } from '../state/room';
import type { MicMode, Session } from './session';
import { Transcript } from './transcript';

export const Hud = ({ session, view }: { session: Session; view: RoomView }) => {
  const [text, setText] = useState('');
  const [mode, setMode] = useState<MicMode | 'off'>('off');
  const [micError, setMicError] = useState('');
  const [, setTick] = useState(0);
  const me = view.you?.participant ?? null;
  const handUp = me !== null && view.hands.includes(me);
  const yourTurn = me !== null && view.waitingFor === me;
  const mic = session.microphone();

  const switchMic = async (next: MicMode | 'off') => {
    setMicError('');
    try {
      if (next === 'off') session.stopMicrophone();
      else await session.startMicrophone(next);
      setMode(next);
    } catch (error) {
      setMicError((error as Error).name === 'NotAllowedError' ? 'Microphone blocked: allow it in the browser, or type.' : `No microphone (${(error as Error).message}); type instead.`);
    }
  };

  // Push-to-talk on the space bar, unless typing; H raises or lowers the hand.
  useEffect(() => {
    const typing = (e: KeyboardEvent) => (e.target as HTMLElement | null)?.tagName === 'INPUT';
    const down = (e: KeyboardEvent) => {
      if (typing(e)) return;
      if (e.code === 'Space' && mode === 'push-to-talk') {
        e.preventDefault();
        session.microphone()?.setTalking(true);
      }
      if (e.code === 'KeyH') session.setHand(!handUp);
    };
    const up = (e: KeyboardEvent) => {
      if (e.code === 'Space' && mode === 'push-to-talk') session.microphone()?.setTalking(false);
    };
    addEventListener('keydown', down);
    addEventListener('keyup', up);
    return () => {
      removeEventListener('keydown', down);
      removeEventListener('keyup', up);
    };
  }, [mode, handUp, session]);

  // The level meter redraws while the microphone is on.
  useEffect(() => {
    if (!mic) return;
    const timer = setInterval(() => setTick((t) => t + 1), 100);
    return () => clearInterval(timer);
  }, [mic]);

  const send = () => {
    session.say(text);
    setText('');
  };
  const voiceOff = view.voice && !view.voice.input;

  return (
    <aside className="hud">
      <header>
        <b>{view.snapshot?.scene.title}</b>
        <span className={yourTurn ? 'turn you' : 'turn'}>{yourTurn ? yourTurnText(view) : view.floor.speaker ? `${nameOf(view, view.floor.speaker)} has the floor` : ''}</span>
      </header>
      <Transcript view={view} />
      <div className="say">
        <input
          value={text}
          placeholder={yourTurn ? 'Your turn: type here, or speak' : 'Type to speak (you can interrupt)'}
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
        <select value={mode} onChange={(e) => void switchMic(e.target.value as MicMode | 'off')} aria-label="microphone" disabled={voiceOff === true}>
          <option value="off">Mic off</option>
          <option value="open">Open mic</option>
          <option value="push-to-talk">Push to talk (space)</option>
        </select>
        {mic && <meter min={0} max={0.3} value={mic.level()} aria-label="your level" />}
        {me && view.talking.includes(me) && <span className="live">● speaking</span>}
      </div>
      {voiceOff && <p className="warn">{view.voice?.hint ?? 'Voice input is off on this server: type instead.'}</p>}
      {micError && <p className="error">{micError}</p>}
      <Voices session={session} view={view} />
    </aside>
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
