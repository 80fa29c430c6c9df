/**
 * The shipped cast: who each avatar is and how they look. Everything a character file is made of
 * comes from one of these entries, so adding a character is adding an entry (README, "Avatars").
 */

export type RGB = [number, number, number];

export type HairStyle = 'short' | 'buzz' | 'side-part' | 'curly' | 'receding' | 'bob' | 'long' | 'bun' | 'ponytail' | 'puffs';
export type Outfit = 'suit' | 'blazer' | 'sweater' | 'shirt' | 'hoodie' | 'lab-coat' | 'cardigan';

export interface Character {
  id: string;
  name: string;
  presentation: 'masculine' | 'feminine';
  /** Metres. */
  height: number;
  /** Shoulder and hip width factors (1 = average); girth scales depth and limb thickness. */
  build: { shoulders: number; hips: number; girth: number };
  skin: RGB;
  eyes: RGB;
  hair: { style: HairStyle; color: RGB };
  outfit: Outfit;
  /** Main garment, and the shirt, tie or inner layer where the outfit has one. */
  colors: { top: RGB; inner: RGB; legs: RGB; shoes: RGB; accent?: RGB };
  skirt?: boolean;
  glasses?: 'round' | 'square';
  beard?: 'full' | 'stubble' | 'goatee';
  voices: { espeak: string; elevenlabs: string };
  mood: string;
}

const hex = (value: string): RGB => {
  const n = Number.parseInt(value.slice(1), 16);
  return [((n >> 16) & 255) / 255, ((n >> 8) & 255) / 255, (n & 255) / 255];
};

const skin = {
  porcelain: hex('#f3d4c0'),
  fair: hex('#e9bfa2'),
  light: hex('#dca98a'),
  olive: hex('#c18d67'),
  tan: hex('#a9714b'),
  brown: hex('#8a5535'),
  deep: hex('#5f3722'),
  ebony: hex('#44271a'),
};

const hair = {
  black: hex('#1c1714'),
  darkBrown: hex('#3b2619'),
  brown: hex('#6a4428'),
  auburn: hex('#8e3b1f'),
  ginger: hex('#c0602b'),
  blonde: hex('#d8b36a'),
  grey: hex('#9b9893'),
  silver: hex('#c9c7c2'),
};

export const cast: readonly Character[] = [
  {
    id: 'avatar-01', name: 'Marcus Reed', presentation: 'masculine', height: 1.86,
    build: { shoulders: 1.08, hips: 0.98, girth: 1.02 },
    skin: skin.deep, eyes: hex('#3a2a1e'), hair: { style: 'buzz', color: hair.black },
    outfit: 'suit', colors: { top: hex('#1f2d4f'), inner: hex('#eef1f5'), legs: hex('#1c2640'), shoes: hex('#221a15'), accent: hex('#9b2335') },
    voices: { espeak: 'en-us+m3', elevenlabs: 'nPczCjzI2devNBz1zQrb' }, mood: 'confident',
  },
  {
    id: 'avatar-02', name: 'Daniel Brooks', presentation: 'masculine', height: 1.78,
    build: { shoulders: 1.0, hips: 1.0, girth: 1.05 },
    skin: skin.fair, eyes: hex('#4a6a8a'), hair: { style: 'short', color: hair.brown },
    outfit: 'sweater', colors: { top: hex('#3e6b48'), inner: hex('#dfe4e8'), legs: hex('#3b4a63'), shoes: hex('#5a3b26') },
    glasses: 'square', beard: 'full',
    voices: { espeak: 'en-gb+m4', elevenlabs: 'JBFqnCBsd6RMkjVDRZzb' }, mood: 'thoughtful',
  },
  {
    id: 'avatar-03', name: 'Kenji Sato', presentation: 'masculine', height: 1.72,
    build: { shoulders: 0.95, hips: 0.95, girth: 0.92 },
    skin: skin.light, eyes: hex('#2b1d14'), hair: { style: 'side-part', color: hair.black },
    outfit: 'lab-coat', colors: { top: hex('#f4f5f7'), inner: hex('#6d8fb3'), legs: hex('#33363d'), shoes: hex('#2a2a2e') },
    glasses: 'round',
    voices: { espeak: 'en-us+m2', elevenlabs: 'TX3LPaxmHKxFdv7VOQHJ' }, mood: 'precise',
  },
  {
    id: 'avatar-04', name: 'Rafael Costa', presentation: 'masculine', height: 1.75,
    build: { shoulders: 1.06, hips: 1.04, girth: 1.16 },
    skin: skin.olive, eyes: hex('#3d2a1c'), hair: { style: 'curly', color: hair.darkBrown },
    outfit: 'shirt', colors: { top: hex('#b5452f'), inner: hex('#f2e6d8'), legs: hex('#6b5a45'), shoes: hex('#3a2a20') },
    beard: 'stubble',
    voices: { espeak: 'en-us+m1', elevenlabs: 'iP95p4xoKVk53GoZ742B' }, mood: 'warm',
  },
  {
    id: 'avatar-05', name: 'Walter Hughes', presentation: 'masculine', height: 1.68,
    build: { shoulders: 0.98, hips: 1.06, girth: 1.12 },
    skin: skin.porcelain, eyes: hex('#6a7f8f'), hair: { style: 'receding', color: hair.grey },
    outfit: 'cardigan', colors: { top: hex('#7a5a3c'), inner: hex('#d8d2c4'), legs: hex('#4a4d52'), shoes: hex('#2b211b') },
    glasses: 'square',
    voices: { espeak: 'en-gb+m1', elevenlabs: 'onwK4e9ZLuTAKqWW03F9' }, mood: 'patient',
  },
  {
    id: 'avatar-06', name: 'Amara Okafor', presentation: 'feminine', height: 1.7,
    build: { shoulders: 0.9, hips: 1.04, girth: 0.95 },
    skin: skin.brown, eyes: hex('#2e1f15'), hair: { style: 'puffs', color: hair.black },
    outfit: 'blazer', colors: { top: hex('#7b1e34'), inner: hex('#f1e9e4'), legs: hex('#26222a'), shoes: hex('#1f1a1d') },
    voices: { espeak: 'en-us+f2', elevenlabs: 'cgSgspJ2msm6clMCkdW9' }, mood: 'decisive',
  },
  {
    id: 'avatar-07', name: 'Priya Nair', presentation: 'feminine', height: 1.62,
    build: { shoulders: 0.86, hips: 1.0, girth: 0.9 },
    skin: skin.tan, eyes: hex('#24170f'), hair: { style: 'long', color: hair.black },
    outfit: 'lab-coat', colors: { top: hex('#f4f5f7'), inner: hex('#2f6f7a'), legs: hex('#2e3440'), shoes: hex('#3b2f2f') },
    glasses: 'round',
    voices: { espeak: 'en-gb+f3', elevenlabs: 'pFZP5JQG7iQjIQuC4Bku' }, mood: 'curious',
  },
  {
    id: 'avatar-08', name: 'Helen Marsh', presentation: 'feminine', height: 1.66,
    build: { shoulders: 0.9, hips: 1.05, girth: 1.05 },
    skin: skin.fair, eyes: hex('#5a7a5a'), hair: { style: 'bob', color: hair.grey },
    outfit: 'suit', colors: { top: hex('#55595f'), inner: hex('#e9e4ee'), legs: hex('#4a4e54'), shoes: hex('#1d1d20') },
    skirt: true, glasses: 'square',
    voices: { espeak: 'en-gb+f4', elevenlabs: 'XrExE9yKIg1WjnnlVkGX' }, mood: 'exacting',
  },
  {
    id: 'avatar-09', name: 'Sofia Alvarez', presentation: 'feminine', height: 1.68,
    build: { shoulders: 0.88, hips: 1.06, girth: 0.96 },
    skin: skin.olive, eyes: hex('#4a3020'), hair: { style: 'ponytail', color: hair.auburn },
    outfit: 'sweater', colors: { top: hex('#1f7f86'), inner: hex('#e8edf0'), legs: hex('#2f4c78'), shoes: hex('#e8e4de') },
    voices: { espeak: 'en-us+f4', elevenlabs: 'EXAVITQu4vr4xnSDxMaL' }, mood: 'upbeat',
  },
  {
    id: 'avatar-10', name: 'Mei Lin', presentation: 'feminine', height: 1.58,
    build: { shoulders: 0.85, hips: 0.96, girth: 0.88 },
    skin: skin.light, eyes: hex('#21150e'), hair: { style: 'bob', color: hair.black },
    outfit: 'cardigan', colors: { top: hex('#d8a33a'), inner: hex('#f5f1e8'), legs: hex('#3c3f46'), shoes: hex('#7a4a32') },
    skirt: true,
    voices: { espeak: 'en-us+f3', elevenlabs: 'FGY2WhTYpPnrIDTdsKH5' }, mood: 'reserved',
  },
  {
    id: 'avatar-11', name: 'Jamal Carter', presentation: 'masculine', height: 1.82,
    build: { shoulders: 1.1, hips: 1.0, girth: 1.0 },
    skin: skin.ebony, eyes: hex('#20140d'), hair: { style: 'short', color: hair.black },
    outfit: 'hoodie', colors: { top: hex('#5b6470'), inner: hex('#d9dde2'), legs: hex('#23262b'), shoes: hex('#f0f0f0'), accent: hex('#e0a030') },
    beard: 'goatee',
    voices: { espeak: 'en-us+m7', elevenlabs: 'nPczCjzI2devNBz1zQrb' }, mood: 'relaxed',
  },
  {
    id: 'avatar-12', name: 'Freya Lund', presentation: 'feminine', height: 1.74,
    build: { shoulders: 0.92, hips: 1.0, girth: 0.92 },
    skin: skin.porcelain, eyes: hex('#3f6e9e'), hair: { style: 'bun', color: hair.ginger },
    outfit: 'shirt', colors: { top: hex('#6f8fc9'), inner: hex('#f4f4f4'), legs: hex('#1e2430'), shoes: hex('#6b3a2a') },
    voices: { espeak: 'en-gb+f1', elevenlabs: 'FGY2WhTYpPnrIDTdsKH5' }, mood: 'direct',
  },
];
