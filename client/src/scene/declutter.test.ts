import { describe, expect, it } from 'vitest';
import { coveringTags } from './declutter';
import type { OnScreen } from './on-screen';

const box = (x: number, y: number, width: number, height: number) => ({ x, y, width, height });

describe("name tags over others' faces", () => {
  it("fades a near tag over a farther face (the design critique's neighbour over the chin across the table), and no other", () => {
    const boxes: OnScreen[] = [
      // Oskar, near: his tag lies over Sofia's lower face.
      { participant: 'oskar', head: box(960, 200, 140, 170), tag: box(980, 145, 145, 36), depth: 1.4, faded: false },
      { participant: 'sofia', head: box(1075, 140, 45, 60), tag: box(1055, 100, 100, 25), depth: 3.6, faded: false },
      // Pete, across the room, his tag clear of every face.
      { participant: 'pete', head: box(140, 110, 60, 80), tag: box(108, 74, 94, 18), depth: 3.9, faded: false },
    ];
    expect(coveringTags(boxes)).toEqual(new Set(['oskar']));
  });

  it("leaves a far tag over a nearer face alone (the nearer face is drawn in front of it), and a tag that only grazes a face", () => {
    const boxes: OnScreen[] = [
      { participant: 'near', head: box(100, 100, 100, 120), tag: box(100, 60, 100, 30), depth: 1.5, faded: false },
      { participant: 'far', head: box(300, 100, 40, 50), tag: box(90, 110, 80, 20), depth: 4, faded: false },
      // Its tag touches the top 2 px of a farther face: under a tenth of it.
      { participant: 'grazing', head: box(500, 100, 60, 80), tag: box(600, 40, 80, 20), depth: 2, faded: false },
      { participant: 'behind', head: box(610, 58, 40, 50), tag: null, depth: 5, faded: false },
    ];
    expect(coveringTags(boxes)).toEqual(new Set());
  });

  it('counts no face behind the camera and no hidden tag', () => {
    const boxes: OnScreen[] = [
      { participant: 'a', head: box(0, 0, 50, 50), tag: null, depth: 1, faded: false },
      { participant: 'b', head: null, tag: box(0, 0, 50, 50), depth: 2, faded: false },
    ];
    expect(coveringTags(boxes)).toEqual(new Set());
  });
});
