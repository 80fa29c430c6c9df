import { describe, expect, it } from 'vitest';
import { gazeReporter, lookingAt } from './looking-at';

const at = (x: number, y: number, z: number) => ({ x, y, z });
const heads = new Map([
  ['me', at(0, 1.2, 0)],
  ['ana', at(0, 1.2, -2)], // straight ahead
  ['ben', at(2, 1.2, -2)], // 45° to the right
]);

describe('lookingAt', () => {
  it('names the head in the middle of the view, within the cone, never the viewer', () => {
    expect(lookingAt(at(0, 1.2, 0), at(0, 0, -1), heads, 'me')).toBe('ana');
    expect(lookingAt(at(0, 1.2, 0), at(0.1, 0, -1), heads, 'me')).toBe('ana'); // 6° off
    expect(lookingAt(at(0, 1.2, 0), at(1, 0, -1), heads, 'me')).toBe('ben');
    expect(lookingAt(at(0, 1.2, 0), at(0.5, 0, -1), heads, 'me')).toBeNull(); // 27° from Ana, 18° from Ben
    expect(lookingAt(at(0, 1.2, 0), at(0, 0, 1), heads, 'me')).toBeNull(); // behind
    expect(lookingAt(at(0, 1.2, 2), at(0, 0, -1), heads, 'ana')).toBe('me');
  });
});

describe('gazeReporter', () => {
  it('sends a target once it has held, and only changes', () => {
    const sent: (string | null)[] = [];
    const report = gazeReporter((x) => sent.push(x), 300);
    report(null, 0);
    report(null, 300); // tracking starts: nobody
    report('ana', 400);
    report('ana', 600);
    report('ben', 650); // a glance across
    report('ana', 700);
    report('ana', 1000);
    report('ana', 5000);
    report('ben', 6000);
    report('ben', 6300);
    expect(sent).toEqual([null, 'ana', 'ben']);
  });
});
