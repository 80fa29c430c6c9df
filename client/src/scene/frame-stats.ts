/**
 * What a room draws each second, for the test handle (room/test-handle.ts) and the bench: draw
 * calls, triangles, frames per second and the script time of the avatars' per-frame updates.
 * The live room and the 3D replay count their frames the same way (scene/drive.ts).
 *
 * ```ts
 * const tally = frameTally();
 * const stats = tallyFrame(tally, avatarMs, gl, rigs.size); // once a second, else null
 * ```
 */
/** What the room measures over each second, for the handle to report. */
export interface RoomStats {
  drawCalls: number;
  triangles: number;
  avatars: number;
  fps: number;
  /** Script time of the last frames' avatar updates (lip sync, gaze, blink, idle), ms per frame. */
  avatarMs: number;
  /** Frames drawn since the room opened, counted at every frame (the rest once a second). */
  frames: number;
}

/** Frames counted towards the next `RoomStats`. */
export interface FrameTally {
  count: number;
  since: number;
  avatarMs: number;
  /** Every frame counted so far. */
  total: number;
}

export const frameTally = (): FrameTally => ({ count: 0, since: performance.now(), avatarMs: 0, total: 0 });

/** The stats of a room that has drawn nothing yet. */
export const noStats = (): RoomStats => ({ drawCalls: 0, triangles: 0, avatars: 0, fps: 0, avatarMs: 0, frames: 0 });

/** Counts a frame whose avatar updates took `avatarMs`; once a second, the stats of the frames since (else null). `stats.frames` is the caller's to keep current. */
export const tallyFrame = (f: FrameTally, avatarMs: number, gl: { info: { render: { calls: number; triangles: number } } }, avatars: number): RoomStats | null => {
  f.avatarMs += avatarMs;
  f.count++;
  f.total++;
  const now = performance.now();
  if (now - f.since < 1000) return null;
  const stats = { drawCalls: gl.info.render.calls, triangles: gl.info.render.triangles, avatars, fps: (f.count * 1000) / (now - f.since), avatarMs: f.avatarMs / f.count, frames: f.total };
  f.count = 0;
  f.avatarMs = 0;
  f.since = now;
  return stats;
};
