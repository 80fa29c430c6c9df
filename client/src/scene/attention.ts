/**
 * Where the room's attention goes, from the room view: who is the speaker (the voice heard, else a
 * human talking, else the floor's), whom each avatar looks at (the speaker at their addressee,
 * everyone else at the speaker), and their gestures (talking, a nod per backchannel, a cut per
 * interruption, a raised hand). The live room (room3d.tsx) and the 3D replay (replay/replay3d.tsx)
 * drive their avatars with it, so a replay looks and gestures as the room did.
 *
 * ```ts
 * const speaker = speakerOf(view, audible);
 * const target = attend(input, view, 'nora', audible, speaker); // 'omar': Nora looks at Omar
 * input.lookAt = target ? heads.get(target) ?? null : null;
 * ```
 */
import * as THREE from 'three';
import type { Seat } from './layout';
import type { RigInput } from './rig';
import type { RoomView } from '../state/room';

/** The top of a head above its seat until the avatar is built and says: seated or standing. */
export const headTopOf = (seat: Seat): number => (seat.seated ? 1.3 : 1.72);
/** The middle of the head, 10 cm below its top: where gaze aims and the voice comes from. */
export const headOf = (seat: Seat, top = headTopOf(seat)): THREE.Vector3 => new THREE.Vector3(seat.position[0], seat.position[1] + top - 0.1, seat.position[2]);

/** Whom the room attends to: the voice heard now, else a human talking, else whoever holds the floor. */
export const speakerOf = (view: RoomView, audible: string | null): string | null => audible ?? view.talking[0] ?? view.floor.speaker;

/**
 * Sets `input`'s gestures for participant `id` (not its visemes or the point it looks at) and
 * returns whom they look at: the speaker at the addressee (or the room), anyone else at the speaker.
 */
export const attend = (input: RigInput, view: RoomView, id: string, audible: string | null, speaker: string | null): string | null => {
  const moderated = view.snapshot?.scene.moderated ?? false;
  input.speaking = audible === id || view.talking.includes(id);
  input.nod = view.nods[id] ?? 0;
  input.cutAt = view.cuts[id] ?? 0;
  input.handRaised = view.hands.includes(id) && (moderated || view.waitingFor !== id);
  const target = id === speaker ? (view.floor.addressee ?? null) : speaker;
  return target && target !== id ? target : null;
};
