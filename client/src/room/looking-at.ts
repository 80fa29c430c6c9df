/**
 * Whom the participant's head points at in VR, for the debrief's gaze at the speaker (the server
 * logs it as `gaze` events, instructors only). The head, of another participant, nearest the
 * view's centre line within LOOK_CONE_DEG, else nobody. A change is sent once it has held for
 * HOLD_MS, so a glance sweeping across the room is not counted as looking, and the socket carries
 * a message per real change, a few a minute.
 *
 * ```ts
 * const report = gazeReporter((at) => session.send({ type: 'gaze', at }));
 * useFrame(() => report(lookingAt(viewer, forward, heads, me), performance.now()));
 * ```
 */

/** Half the angle of the cone counted as looking at a head: about the width of a face at conversation distance, with head-tracking slack. */
export const LOOK_CONE_DEG = 15;
/** How long a new target must hold before it is reported. */
export const HOLD_MS = 300;

interface Point {
  x: number;
  y: number;
  z: number;
}

/** The participant (not `me`) whose head is nearest the line from `viewer` along `forward`, within `coneDeg`; null for nobody. */
export const lookingAt = (viewer: Point, forward: Point, heads: ReadonlyMap<string, Point>, me: string | null, coneDeg = LOOK_CONE_DEG): string | null => {
  const length = Math.hypot(forward.x, forward.y, forward.z);
  if (length === 0) return null;
  let best: string | null = null;
  let bestCos = Math.cos((coneDeg * Math.PI) / 180);
  for (const [id, head] of heads) {
    if (id === me) continue;
    const dx = head.x - viewer.x;
    const dy = head.y - viewer.y;
    const dz = head.z - viewer.z;
    const distance = Math.hypot(dx, dy, dz);
    if (distance === 0) continue;
    const cos = (dx * forward.x + dy * forward.y + dz * forward.z) / (distance * length);
    if (cos >= bestCos) {
      bestCos = cos;
      best = id;
    }
  }
  return best;
};

/** Calls `send` with each target that holds for `holdMs` and differs from the last one sent (the first, nobody included, starts the record). */
export const gazeReporter = (send: (at: string | null) => void, holdMs = HOLD_MS) => {
  let sent: string | null | undefined;
  let candidate: string | null | undefined;
  let since = 0;
  return (at: string | null, now: number): void => {
    if (at !== candidate) {
      candidate = at;
      since = now;
    }
    if (candidate !== sent && now - since >= holdMs) {
      sent = candidate;
      send(candidate);
    }
  };
};
