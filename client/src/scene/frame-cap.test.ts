import { describe, expect, it } from 'vitest';
import { frameCapOf } from './frame-cap';

describe('the frame cap of a room link (?fps=)', () => {
  it('reads a positive number of frames a second, kept within 1 to 120', () => {
    expect(frameCapOf('?token=t&fps=10')).toBe(10);
    expect(frameCapOf('?fps=2.5')).toBe(2.5);
    expect(frameCapOf('?fps=0.2')).toBe(1);
    expect(frameCapOf('?fps=500')).toBe(120);
  });

  it('is no cap when absent or not a positive number', () => {
    for (const search of ['', '?token=t', '?fps=', '?fps=0', '?fps=-3', '?fps=fast', '?fps=Infinity']) expect(frameCapOf(search), search).toBeNull();
  });
});
