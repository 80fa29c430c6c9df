import { describe, expect, it } from 'vitest';
import { visemes, type Viseme, type VisemeCue } from '../../../shared/visemes';
import { createLipSync } from './lipsync';

const cues: VisemeCue[] = [
  { t: 0, viseme: 'PP' },
  { t: 100, viseme: 'aa' },
  { t: 220, viseme: 'O' },
  { t: 250, viseme: 'SS', weight: 0.5 },
  { t: 400, viseme: 'sil' },
];

/** The weights at `ms`, copied: weightsAt reuses its object. */
const at = (lipSync: ReturnType<typeof createLipSync>, draft: string, ms: number): Record<Viseme, number> => {
  const weights = lipSync.weightsAt(draft, ms);
  return Object.fromEntries(visemes.map((viseme) => [viseme, weights[viseme] ?? 0])) as Record<Viseme, number>;
};

const dominant = (weights: Record<Viseme, number>): Viseme | undefined => {
  const [viseme, weight] = Object.entries(weights).sort(([, a], [, b]) => b - a)[0]!;
  return weight > 0 ? (viseme as Viseme) : undefined;
};

const total = (weights: Record<Viseme, number>) => Object.values(weights).reduce((sum, weight) => sum + weight, 0);

describe('lip sync', () => {
  it('moves the mouth gradually, never jumping between consecutive milliseconds', () => {
    const lipSync = createLipSync();
    lipSync.add('d', cues, 450);
    let previous = at(lipSync, 'd', -100);
    for (let ms = -99; ms <= 500; ms++) {
      const weights = at(lipSync, 'd', ms);
      for (const viseme of visemes) {
        // The steepest ramp here is the 30 ms cross-fade from O to SS: 1/30 per ms.
        expect(Math.abs(weights[viseme] - previous[viseme]), `${viseme} at ${ms} ms`).toBeLessThanOrEqual(1 / 30 + 1e-9);
      }
      previous = weights;
    }
  });

  it('shows each viseme fully at its cue time, at its weight', () => {
    const lipSync = createLipSync();
    lipSync.add('d', cues);
    expect(at(lipSync, 'd', 0).PP).toBe(1);
    expect(at(lipSync, 'd', 100).aa).toBe(1);
    expect(at(lipSync, 'd', 220).O).toBe(1);
    expect(at(lipSync, 'd', 250).SS).toBe(0.5);
    for (const { t, viseme } of cues.slice(0, 3)) expect(dominant(at(lipSync, 'd', t))).toBe(viseme);
  });

  it('cross-fades into the next cue over the 60 ms before it', () => {
    const lipSync = createLipSync();
    lipSync.add('d', cues);
    expect(at(lipSync, 'd', 40)).toMatchObject({ PP: 1, aa: 0 });
    const halfway = at(lipSync, 'd', 70);
    expect(halfway.PP).toBeCloseTo(0.5);
    expect(halfway.aa).toBeCloseTo(0.5);
    expect(at(lipSync, 'd', -30).PP).toBeCloseTo(0.5);
    expect(total(at(lipSync, 'd', -60))).toBe(0);
  });

  it('closes the mouth at sil', () => {
    const lipSync = createLipSync();
    lipSync.add('d', cues);
    expect(at(lipSync, 'd', 370).SS).toBeCloseTo(0.25);
    expect(total(at(lipSync, 'd', 400))).toBe(0);
    expect(total(at(lipSync, 'd', 1000))).toBe(0);
  });

  it('closes the mouth at the end of the audio when the last cue is not sil', () => {
    const lipSync = createLipSync();
    lipSync.add('d', [{ t: 0, viseme: 'aa' }], 500);
    expect(at(lipSync, 'd', 300).aa).toBe(1);
    expect(at(lipSync, 'd', 470).aa).toBeCloseTo(0.5);
    expect(total(at(lipSync, 'd', 500))).toBe(0);
    expect(total(at(lipSync, 'd', 600))).toBe(0);
  });

  it('holds the last cue briefly when the end of the audio is unknown', () => {
    const lipSync = createLipSync();
    lipSync.add('d', [{ t: 0, viseme: 'aa' }]);
    expect(at(lipSync, 'd', 80).aa).toBe(1);
    expect(total(at(lipSync, 'd', 150))).toBe(0);
  });

  it('fades the mouth shut right after a stop point', () => {
    const lipSync = createLipSync();
    lipSync.add('d', [{ t: 0, viseme: 'aa' }], 2000);
    lipSync.stop('d', 300);
    expect(at(lipSync, 'd', 300).aa).toBe(1);
    expect(at(lipSync, 'd', 330).aa).toBeCloseTo(0.5);
    expect(total(at(lipSync, 'd', 360))).toBe(0);
    expect(total(at(lipSync, 'd', 1000))).toBe(0);
  });

  it('keeps a stop when cues of the draft arrive after it', () => {
    const lipSync = createLipSync();
    lipSync.stop('d', 100);
    lipSync.add('d', [{ t: 0, viseme: 'E' }], 1000);
    expect(at(lipSync, 'd', 50).E).toBe(1);
    expect(total(at(lipSync, 'd', 500))).toBe(0);
  });

  it('joins pieces added one by one, cue times counted from the start of the draft', () => {
    const lipSync = createLipSync();
    lipSync.add('d', [{ t: 0, viseme: 'aa' }], 500);
    expect(total(at(lipSync, 'd', 520))).toBe(0);
    lipSync.add('d', [{ t: 500, viseme: 'O' }, { t: 800, viseme: 'sil' }], 900);
    expect(at(lipSync, 'd', 430)).toMatchObject({ aa: 1, O: 0 });
    expect(at(lipSync, 'd', 470)).toMatchObject({ aa: 0.5, O: 0.5 });
    expect(at(lipSync, 'd', 520).O).toBe(1);
    expect(total(at(lipSync, 'd', 800))).toBe(0);
  });

  it('orders cues added out of order', () => {
    const lipSync = createLipSync();
    lipSync.add('d', [{ t: 200, viseme: 'U' }, { t: 0, viseme: 'FF' }], 400);
    expect(dominant(at(lipSync, 'd', 50))).toBe('FF');
    expect(dominant(at(lipSync, 'd', 250))).toBe('U');
  });

  it('keeps drafts apart and knows nothing of forgotten or unknown ones', () => {
    const lipSync = createLipSync();
    lipSync.add('a', [{ t: 0, viseme: 'aa' }], 500);
    lipSync.add('b', [{ t: 0, viseme: 'I' }], 500);
    expect(dominant(at(lipSync, 'a', 100))).toBe('aa');
    expect(dominant(at(lipSync, 'b', 100))).toBe('I');
    lipSync.forget('a');
    expect(total(at(lipSync, 'a', 100))).toBe(0);
    expect(total(at(lipSync, 'nobody', 100))).toBe(0);
  });
});
