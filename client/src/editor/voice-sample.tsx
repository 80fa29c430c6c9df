/**
 * The persona inspector's play button: a line in the participant's voice as a session will give it
 * (their voice fields, else the default the server picks distinct in the scene, at their speaking
 * rate), spoken by the server's synthesizer (POST /api/scenes/voice-sample) and played here. It
 * says what it is doing (speaking, playing, and which voice was heard) and, when the server
 * refuses, the server's own words (an unknown eSpeak voice names the variants it knows).
 *
 * ```tsx
 * <VoiceSample index={2} /> // ▶ Play a line -> "Played en-gb+f3 at 160 wpm"
 * ```
 */
import { useEffect, useRef, useState } from 'react';
import { sceneApi } from '../net/api';
import { useEditor } from './context';

type State = { kind: 'idle' } | { kind: 'speaking' } | { kind: 'playing'; voice: string } | { kind: 'played'; voice: string } | { kind: 'failed'; message: string };

/** "en-gb+f3; 160 wpm" (the server's X-Voice) as the inspector says it. */
const heard = (voice: string): string => {
  const [name, rate] = voice.split('; ');
  return `${name || 'the default voice'}${rate ? ` at ${rate}` : ''}`;
};

export const VoiceSample = ({ index }: { index: number }) => {
  const { draft, admin } = useEditor();
  const p = draft.participants[index]!;
  const [state, setState] = useState<State>({ kind: 'idle' });
  const playing = useRef<{ audio: HTMLAudioElement; url: string } | null>(null);
  const stop = () => {
    if (!playing.current) return;
    playing.current.audio.pause();
    URL.revokeObjectURL(playing.current.url);
    playing.current = null;
  };
  useEffect(() => stop, []);

  const play = async () => {
    stop();
    setState({ kind: 'speaking' });
    const line = `Hello, I'm ${p.name || p.id}${p.role ? `, the ${p.role}` : ''}. Shall we begin?`;
    // Everyone's voice goes along: a default voice is one no other participant of the scene has.
    const participants = draft.participants.map((q) => ({ id: q.id, ...(q.voice ? { voice: q.voice } : {}), ...(q.persona ? { persona: { speakingRate: q.persona.speakingRate } } : {}) }));
    try {
      const { audio: wav, voice } = await sceneApi.voiceSample(admin, { text: line, participant: p.id, participants });
      const url = URL.createObjectURL(wav);
      const audio = new Audio(url);
      playing.current = { audio, url };
      audio.onended = () => {
        stop();
        setState({ kind: 'played', voice });
      };
      await audio.play();
      setState({ kind: 'playing', voice });
    } catch (error) {
      stop();
      setState({ kind: 'failed', message: (error as Error).message });
    }
  };

  return (
    <div className="voice-sample row" data-state={state.kind}>
      <button onClick={() => void play()} disabled={state.kind === 'speaking'} aria-label="Play a line in this voice">
        {state.kind === 'speaking' ? 'Speaking…' : state.kind === 'playing' ? '▶ Playing…' : '▶ Play a line'}
      </button>
      <span role="status" className={state.kind === 'failed' ? 'problem' : 'note'}>
        {state.kind === 'playing' && `Playing ${heard(state.voice)}`}
        {state.kind === 'played' && `Played ${heard(state.voice)}`}
        {state.kind === 'failed' && state.message}
      </span>
    </div>
  );
};
