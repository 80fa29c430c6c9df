import { Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { nearTagScale, tagMiddleAbove, tagPlace, tagSize } from './name-tag';

describe('where a name tag hangs', () => {
  it('hangs over the head as posed, not over the seat: a seated head leans 25 cm forward of it', () => {
    const place = tagPlace({ x: 0.02, z: 0.25 }, 1.3, 1, new Vector3());
    expect(place.x).toBe(0.02);
    expect(place.z).toBe(0.25);
  });

  it('keeps its bottom edge a few centimetres above the crown, the gap growing with the tag', () => {
    const near = tagPlace({ x: 0, z: 0 }, 1.3, 1, new Vector3()).y - 1.3;
    const far = tagPlace({ x: 0, z: 0 }, 1.3, 2, new Vector3()).y - 1.3;
    expect(near).toBeGreaterThan(0.03);
    expect(near).toBeLessThan(tagSize.height);
    expect(far).toBeCloseTo(2 * near);
  });

  it('has its middle half a tag above its bottom edge, at any scale', () => {
    for (const scale of [0.5, 1, 1.8]) expect(tagMiddleAbove(scale)).toBeCloseTo(tagPlace({ x: 0, z: 0 }, 0, scale, new Vector3()).y + (tagSize.height * scale) / 2);
  });

  it('draws a near tag smaller, down to half, so a neighbour’s covers no more of the room than the others’', () => {
    expect(nearTagScale(2)).toBeCloseTo(2 / 3.2);
    expect(nearTagScale(1.4)).toBe(0.5);
    expect(nearTagScale(0.5)).toBe(0.5);
    expect(nearTagScale(3.2)).toBe(1);
    expect(nearTagScale(6)).toBe(1);
  });
});
