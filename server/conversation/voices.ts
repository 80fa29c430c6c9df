/**
 * Every participant's voice: the scene's `voice` where it gives one, and otherwise a default that
 * is distinct within the scene and stable across runs (it depends on the participant's id, not on
 * the order of the list or on chance).
 *
 * ```ts
 * const voices = voicesOf(scene);
 * voices.get('nora'); // { espeak: 'en-gb+f3', elevenlabs: 'XrExE9yKIg1WjnnlVkGX', pitch: 58, rate: 160 }
 * ```
 *
 * Defaults: an eSpeak NG voice with a variant (male and female variants of US and British
 * English), a premade ElevenLabs voice, a pitch between 35 and 65, and the persona's speaking
 * rate. A default never reuses an eSpeak voice or ElevenLabs voice another participant of the
 * scene already has, until all of them are taken.
 */
import type { VoiceSpec } from '../providers/synthesis/port';
import type { LoadedScene } from '../../shared/scene/schema';

export const defaultEspeakVoices = [
  'en-us+m3', 'en-us+f2', 'en-gb+m4', 'en-us+f4', 'en-gb+m1', 'en-gb+f3',
  'en-us+m7', 'en-gb+f1', 'en-us+m2', 'en-gb+f4', 'en-us+m5', 'en-us+f3',
] as const;

/** ElevenLabs' premade voices (available to every account). */
export const defaultElevenLabsVoices = [
  'JBFqnCBsd6RMkjVDRZzb', // George
  'XrExE9yKIg1WjnnlVkGX', // Matilda
  'TX3LPaxmHKxFdv7VOQHJ', // Liam
  'EXAVITQu4vr4xnSDxMaL', // Sarah
  'onwK4e9ZLuTAKqWW03F9', // Daniel
  'pFZP5JQG7iQjIQuC4Bku', // Lily
  'nPczCjzI2devNBz1zQrb', // Brian
  'cgSgspJ2msm6clMCkdW9', // Jessica
  'iP95p4xoKVk53GoZ742B', // Chris
  'FGY2WhTYpPnrIDTdsKH5', // Laura
] as const;

/** FNV-1a: a small, stable hash of the participant id. */
const hash = (text: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
};

/** The first of `options`, starting at `start`, that is not taken (or `options[start]` if all are). */
const firstFree = (options: readonly string[], start: number, taken: Set<string>): string => {
  for (let i = 0; i < options.length; i++) {
    const option = options[(start + i) % options.length]!;
    if (!taken.has(option)) return option;
  }
  return options[start % options.length]!;
};

export const voicesOf = (scene: Pick<LoadedScene, 'participants'>): Map<string, VoiceSpec> => {
  const espeakTaken = new Set(scene.participants.flatMap((p) => (p.voice?.espeak ? [p.voice.espeak] : [])));
  const elevenTaken = new Set(scene.participants.flatMap((p) => (p.voice?.elevenlabs ? [p.voice.elevenlabs] : [])));
  const voices = new Map<string, VoiceSpec>();
  for (const p of scene.participants) {
    const h = hash(p.id);
    const espeak = p.voice?.espeak ?? firstFree(defaultEspeakVoices, h % defaultEspeakVoices.length, espeakTaken);
    const elevenlabs = p.voice?.elevenlabs ?? firstFree(defaultElevenLabsVoices, (h >>> 8) % defaultElevenLabsVoices.length, elevenTaken);
    espeakTaken.add(espeak);
    elevenTaken.add(elevenlabs);
    voices.set(p.id, {
      espeak,
      elevenlabs,
      pitch: p.voice?.pitch ?? 35 + ((h >>> 16) % 31),
      rate: p.voice?.rate ?? p.persona?.speakingRate ?? 160,
    });
  }
  return voices;
};
