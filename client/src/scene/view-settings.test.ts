import { describe, expect, it } from 'vitest';
import { lookSpeeds, parseViewSettings } from './view-settings';

describe('view settings', () => {
  it('shows name tags at the usual look speed until told otherwise', () => {
    expect(parseViewSettings(null)).toEqual({ nameTags: true, lookSpeed: 1 });
  });

  it('keeps what was stored', () => {
    expect(parseViewSettings(JSON.stringify({ nameTags: false, lookSpeed: 2.5 }))).toEqual({ nameTags: false, lookSpeed: 2.5 });
  });

  it('keeps the look speed within its range, and ignores what it cannot read', () => {
    expect(parseViewSettings(JSON.stringify({ lookSpeed: 40 })).lookSpeed).toBe(lookSpeeds.max);
    expect(parseViewSettings(JSON.stringify({ lookSpeed: 0 })).lookSpeed).toBe(lookSpeeds.min);
    expect(parseViewSettings(JSON.stringify({ nameTags: 'no', lookSpeed: 'fast' }))).toEqual({ nameTags: true, lookSpeed: 1 });
    expect(parseViewSettings('{not json')).toEqual({ nameTags: true, lookSpeed: 1 });
  });
});
