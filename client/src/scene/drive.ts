/**
 * Drives every avatar once a frame, the same way in the live room (room/room3d.tsx) and the 3D
 * replay (replay/replay3d.tsx): each rig gets its visemes (lip sync), whom to look at (the speaker
 * looks at whom they address, everyone else at the speaker: attention.ts), nods, a raised hand,
 * a cut; the frame's avatar time is tallied for the stats. Only where the words come from differs:
 * the live session's audio clock or the replay's playhead, given as `FrameSource`. A human's mouth
 * follows their voice as it is heard (audio/voice-visemes.ts) when the source gives the waveform;
 * a persona's follows its speech's viseme cues. A headset wearer's head follows their headset and
 * their arms their hands, from the poses relayed to this client (`headed`, `arms`).
 *
 * No allocation per frame: the heads, the rig input and the tally are made once.
 *
 * ```tsx
 * const { drive } = useAvatarDriver({ seats, rigs, stats }, { visemes: (id) => session.visemes(id) });
 * useFrame((_, delta) => drive(delta, viewRef.current, session.speaking()));
 * ```
 */
import { useThree } from '@react-three/fiber';
import { useMemo, useRef } from 'react';
import { Vector3 } from 'three';
import type * as THREE from 'three';
import { createVoiceMouth, type VoiceMouth } from '../audio/voice-visemes';
import type { RoomView } from '../state/room';
import { attend, headOf, speakerOf } from './attention';
import { frameTally, tallyFrame, type RoomStats } from './frame-stats';
import type { Seat } from './layout';
import { trackedArms, type TrackedArms } from './arm-ik';
import type { AvatarRig, RigInput } from './rig';

/** Where a frame's words and gaze targets come from. Stable functions: they are called every frame. */
export interface FrameSource {
  /** Someone's mouth shapes now, if they are speaking. */
  visemes(id: string): RigInput['visemes'];
  /** The last samples heard of a human's voice (VoiceOutput.waveform): their mouth is read from it. */
  waveform?(id: string): { samples: Float32Array; sampleRate: number } | null;
  /** Where to look when `target` is not an avatar of the room (the viewer in a headset); null: at their avatar's head. */
  lookAt?(target: string): THREE.Vector3 | null;
  /**
   * Where a headset wearer's own head points (their relayed pose, xr/pose.ts): writes the room
   * point it looks at into `out` and returns true; false when none came lately (the room's gaze then).
   */
  headed?(id: string, out: THREE.Vector3): boolean;
  /** A headset wearer's relayed head and hands in the room (xr/pose.ts), written into `out`; false when none came lately (the clips move the arms). */
  arms?(id: string, out: TrackedArms): boolean;
  /** An avatar's head height became known once it was built (the live room moves its voice there). */
  onHead?(id: string, head: THREE.Vector3): void;
}

/** Updates every avatar for one frame; returns when that work began (performance.now()), for the caller to time what follows. */
export type Drive = (delta: number, view: RoomView, audible: string | null) => number;

/** The avatars a room or a replay draws: their seats, their rigs once built, and the frame's statistics. */
export interface AvatarCast {
  seats: Map<string, Seat>;
  rigs: React.RefObject<Map<string, AvatarRig>>;
  stats: React.RefObject<RoomStats>;
}

export const useAvatarDriver = ({ seats, rigs, stats }: AvatarCast, source: FrameSource): { drive: Drive; heads: Map<string, THREE.Vector3> } => {
  const { gl } = useThree();
  const heads = useMemo(() => new Map([...seats].map(([id, seat]) => [id, headOf(seat)])), [seats]);
  const input = useRef<RigInput>({ visemes: null, lookAt: null, speaking: false, nod: 0, handRaised: false, cutAt: 0 });
  const frames = useRef(frameTally());
  const looking = useMemo(() => new Vector3(), []);
  const reaching = useMemo(trackedArms, []);
  /** A voice-read mouth per human, made the first time they are drawn. */
  const mouths = useRef(new Map<string, VoiceMouth>());
  const from = useRef(source);
  from.current = source;

  const drive: Drive = (delta, view, audible) => {
    const speaker = speakerOf(view, audible);
    const begin = performance.now();
    const { visemes, lookAt, onHead, waveform, headed, arms } = from.current;
    const participants = view.snapshot?.participants;
    for (const [id, rig] of rigs.current) {
      // Once an avatar is built its head height is known: gaze (and a live voice) use it.
      const head = heads.get(id);
      const seat = seats.get(id);
      if (head && seat && Math.abs(head.y - (seat.position[1] + rig.headTop - 0.1)) > 0.01) {
        head.y = seat.position[1] + rig.headTop - 0.1;
        onHead?.(id, head);
      }
      const i = input.current;
      i.visemes = visemes(id);
      // A human whose own voice plays here (not a stand-in's synthesized lines, which come with cues).
      const heard = waveform && isHuman(participants, id) ? waveform(id) : null;
      if (heard) {
        let mouth = mouths.current.get(id);
        if (!mouth) mouths.current.set(id, (mouth = createVoiceMouth()));
        i.visemes = mouth.update(heard.samples, heard.sampleRate, delta);
      }
      const target = attend(i, view, id, audible, speaker);
      // A wearer's head goes where their headset looks; anyone else's where the room's attention goes.
      if (headed?.(id, looking)) i.lookAt = looking;
      else i.lookAt = target ? (lookAt?.(target) ?? heads.get(target) ?? null) : null;
      i.arms = arms?.(id, reaching) ? reaching : null;
      rig.update(Math.min(delta, 0.1), i);
    }
    const tallied = tallyFrame(frames.current, performance.now() - begin, gl, rigs.current.size);
    if (tallied) stats.current = tallied;
    else stats.current.frames = frames.current.total;
    return begin;
  };
  return { drive, heads };
};

/**
 * The rig ref of each participant's `<Avatar>`: made once per participant (and the function that
 * gives them is stable), so a memoised avatar is not re-rendered for a fresh callback. It files the rig under its participant in `rigs` (and out
 * when it goes), then tells `onRig`, if given.
 *
 * ```tsx
 * const rigRef = useRigRefs(rigs);
 * <Avatar rigRef={rigRef(p.id)} … manual />
 * ```
 */
export const useRigRefs = (rigs: React.RefObject<Map<string, AvatarRig>>, onRig?: (id: string, rig: AvatarRig | null) => void): ((id: string) => (rig: AvatarRig | null) => void) => {
  const tell = useRef(onRig);
  tell.current = onRig;
  return useMemo(() => {
    const made = new Map<string, (rig: AvatarRig | null) => void>();
    return (id: string) => {
      let ref = made.get(id);
      if (!ref) {
        ref = (rig) => {
          if (rig) rigs.current.set(id, rig);
          else rigs.current.delete(id);
          tell.current?.(id, rig);
        };
        made.set(id, ref);
      }
      return ref;
    };
  }, [rigs]);
};

/** Whether `id` is a human of the room (a loop, not a lookup table: it runs every frame without allocating). */
const isHuman = (participants: readonly { id: string; kind: string }[] | undefined, id: string): boolean => {
  if (!participants) return false;
  for (const p of participants) if (p.id === id) return p.kind === 'human';
  return false;
};
