/**
 * The 15 Oculus visemes: the mouth shapes speech is drawn with, and the avatars' morph targets
 * `viseme_<name>` (the Ready Player Me convention). One source for synthesis (which times them
 * under its audio), the realtime protocol (which carries them as cues), the avatar generator
 * (which sculpts them) and the client (which blends them every frame); no Node, so the browser
 * imports it.
 *
 * ```ts
 * VisemeCue.parse({ t: 90, viseme: 'aa' }); // 'aa' dominant 90 ms into the speech
 * visemeMorph('aa'); // 'viseme_aa'
 * ```
 */
import { z } from 'zod';

export const visemes = ['sil', 'PP', 'FF', 'TH', 'DD', 'kk', 'CH', 'SS', 'nn', 'RR', 'aa', 'E', 'I', 'O', 'U'] as const;
export const Viseme = z.enum(visemes);
export type Viseme = z.infer<typeof Viseme>;

/** A viseme becoming dominant at `t` ms from the start of a reply's speech; weights ramp between cues. */
export const VisemeCue = z.object({ t: z.number(), viseme: Viseme, weight: z.number().min(0).max(1).optional().describe('0..1, default 1') });
export type VisemeCue = z.infer<typeof VisemeCue>;

/** The morph target that shapes the mouth for `viseme`. */
export const visemeMorph = (viseme: Viseme) => `viseme_${viseme}` as const;
