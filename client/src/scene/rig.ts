/**
 * One avatar's body language, frame by frame, without React: idle breathing (standing or seated),
 * talking gestures, nods, a raised hand, lip sync, blinks, and head and eyes turned toward a point;
 * a speaker's head also dips on stresses, sways, and looks aside now and then.
 *
 * The body clips come from `avatars/animations.glb` (rotations only). The idle plays all the time;
 * every other clip is made additive against the idle's first frame, so it moves each bone from the
 * idle pose toward its own pose by its weight, and the seated idle's legs stay bent underneath (no
 * other clip has leg tracks). Gaze, the head jerk of a cut and every morph target are set after the
 * mixer, on top of whatever it posed.
 *
 * Per frame it allocates nothing: bones and morph indices are looked up once here.
 *
 * ```ts
 * const rig = new AvatarRig(SkeletonUtils.clone(gltf.scene), animations.animations, { seated: true, seed: 7 });
 * useFrame((_, dt) => rig.update(dt, { visemes, lookAt, speaking, nod, handRaised, cutAt }));
 * rig.morph('viseme_aa'); // 0.8
 * ```
 */
import {
  AnimationMixer,
  AnimationUtils,
  Euler,
  LoopOnce,
  Matrix4,
  Quaternion,
  Vector3,
  type AnimationAction,
  type AnimationClip,
  type Bone,
  type Mesh,
  type Object3D,
} from 'three';
import { rngFrom, type Rng } from '../../../shared/rng';
import { visemeMorph, visemes, type Viseme } from '../../../shared/visemes';
import { ArmLayer, type TrackedArms } from './arm-ik';

export interface RigInput {
  /** Lip-sync weights 0..1 per viseme, already smoothed; null when silent. */
  visemes: Partial<Record<Viseme, number>> | null;
  /** A world point the head and eyes turn toward, or null to look straight ahead. */
  lookAt: Vector3 | null;
  /** Plays a talking gesture loop while true. */
  speaking: boolean;
  /** Each increment plays one nod. */
  nod: number;
  handRaised: boolean;
  /** Each increment plays a cut: the mouth snaps shut and the head jerks back a little. */
  cutAt: number;
  /** A headset wearer's relayed head and hands (xr/pose.ts): the arms reach for the tracked hands; absent or null: the clips move them. */
  arms?: TrackedArms | null;
}

export interface RigOptions {
  seated: boolean;
  /** Seeds this avatar's blinks, gesture choices and idle phase; give each avatar its own. */
  seed?: number;
}

const degrees = Math.PI / 180;
const limits = { headYaw: 60 * degrees, headPitch: 30 * degrees, eyeYaw: 30 * degrees, eyePitch: 20 * degrees };
/** Time constants of the gaze easing: the head settles in about 250 ms, the eyes well before it. */
const headLag = 0.08;
const eyeLag = 0.03;
/** Seconds a gesture layer takes to fade in or out. */
const fadeIn = 0.3;
const fadeOut = 0.5;
const blink = { close: 0.06, open: 0.09, minGap: 2, maxGap: 6 };
const cut = { hold: 0.25, rise: 0.04, fall: 0.26, jerk: 6 * degrees };
/** How far each viseme opens the jaw; jawOpen follows lightly, on top of the viseme shapes. */
const jawShare: Partial<Record<Viseme, number>> = { aa: 0.3, O: 0.22, E: 0.15, U: 0.1, I: 0.1, CH: 0.08, kk: 0.08, DD: 0.06 };
const talkClips = ['talk-1', 'talk-2', 'talk-3'] as const;
/** How far each viseme opens the mouth (the jaw of its shape in avatars/generator/character.ts), for `mouthOpen`. */
const openness: Partial<Record<Viseme, number>> = { aa: 1, O: 0.62, E: 0.45, kk: 0.45, DD: 0.32, TH: 0.28, RR: 0.25, nn: 0.22, I: 0.22, U: 0.22, CH: 0.18, FF: 0.12, SS: 0.08 };
/**
 * A speaker's head while talking: it dips on the voice's stresses (a rise of the mouth's opening
 * over its recent mean), sways slowly, and the eyes leave the listener now and then, as people's
 * do when they think aloud (Argyle & Cook, "Gaze and Mutual Gaze": speakers look away more than listeners).
 */
const talkingHead = { stress: 10 * degrees, sway: 2.5 * degrees, aside: 12 * degrees, asideEvery: [2.5, 5] as const, asideFor: [0.5, 1.1] as const };

interface Layers {
  idle: AnimationClip;
  talks: AnimationClip[];
  nod: AnimationClip;
  raiseHand: AnimationClip;
}

/** The clips prepared for a clip list, once per list and pose (rigs share them; each has its own actions). */
const prepared = new WeakMap<readonly AnimationClip[], Map<boolean, Layers>>();

const layersFor = (clips: readonly AnimationClip[], seated: boolean): Layers => {
  const cached = prepared.get(clips)?.get(seated);
  if (cached) return cached;
  const named = (name: string): AnimationClip => {
    const clip = clips.find((c) => c.name === name);
    if (!clip) throw new Error(`AvatarRig: the animations have no clip "${name}" (found: ${clips.map((c) => c.name).join(', ')})`);
    return clip;
  };
  const idle = named(seated ? 'idle-seated' : 'idle-standing');
  /** `name` as a delta from `reference`'s first frame, keeping only the tracks of bones that `keep` accepts. */
  const additive = (name: string, reference: AnimationClip | null, keep: (bone: string) => boolean = () => true) => {
    const clip = named(name).clone();
    clip.tracks = clip.tracks.filter((track) => keep(track.name.slice(0, track.name.indexOf('.'))));
    return AnimationUtils.makeClipAdditive(clip, 0, reference ?? clip);
  };
  const layers: Layers = {
    idle,
    talks: talkClips.map((name) => additive(name, idle)),
    // The nod clip also holds the arms down; only its head and neck are the nod.
    nod: additive('nod', null, (bone) => bone === 'Neck' || bone === 'Head'),
    // Only the raised arm: the other stays as the idle holds it (on the thigh, when seated).
    raiseHand: additive('raise-hand', idle, (bone) => bone.startsWith('Right')),
  };
  prepared.set(clips, (prepared.get(clips) ?? new Map<boolean, Layers>()).set(seated, layers));
  return layers;
};

/** Where a morph target lives: one mesh's influences and the target's index in them. */
interface MorphSlot {
  influences: number[];
  index: number;
}

const approach = (value: number, target: number, step: number): number =>
  value < target ? Math.min(target, value + step) : Math.max(target, value - step);

/** What a bone's quaternion does on change instead of updating its Euler angles (the constructor says why). */
const keepEuler = (): void => {};

const clamp = (value: number, limit: number): number => (value > limit ? limit : value < -limit ? -limit : value);

export class AvatarRig {
  /** Metres from the floor to the top of the head in the rest pose (standing, or seated on a chair). */
  readonly headTop: number;

  private readonly root: Object3D;
  private readonly mixer: AnimationMixer;
  private readonly rng: Rng;
  private readonly talks: AnimationAction[];
  private readonly nodding: AnimationAction;
  private readonly raising: AnimationAction;

  private readonly neck: Object3D;
  private readonly head: Object3D;
  /** The top of the skull (HeadTop_End), or null when the avatar has no such bone. */
  private readonly crown: Object3D | null;
  private readonly eyes: Object3D[];
  /** The bones gaze turns, as the mixer last posed them: restored before each mixer update, which writes only what changed. */
  private readonly posed: Quaternion[];
  private readonly gazed: Object3D[];
  /** The same bones as they were before this rig, put back on dispose (the mixer restores only the bones it animates). */
  private readonly found: Quaternion[];
  /** The arms laid over the clips when a headset wearer's hands are tracked (arm-ik.ts). */
  private readonly arms: ArmLayer;

  /** Every bone with the callback that kept its Euler angles in step, put back on dispose. */
  private readonly synced: (readonly [Object3D, () => void])[];

  private readonly meshes: Mesh[];
  private readonly visemeSlots: MorphSlot[][];
  private readonly jawSlots: MorphSlot[];
  private readonly blinkSlots: MorphSlot[];

  private time = 0;
  private lastNod: number | null = null;
  private lastCut: number | null = null;
  private wasSpeaking = false;
  private talk = 0;
  private talkLeft = 0;
  private raiseWeight = 0;
  private readonly talkWeights: number[];
  private nextBlink: number;
  /** When the last cut began, on this rig's clock. */
  private cutStart = -Infinity;
  private headYaw = 0;
  private headPitch = 0;
  private eyeYaw = 0;
  private eyePitch = 0;
  private readonly drop: number;
  /** The mouth's opening (the last frame's), its slow mean, and the stress dip it drives. */
  private open = 0;
  private openMean = 0;
  private stress = 0;
  /** The speaking share of the head motion (eases in and out), and the next look aside while speaking. */
  private talking = 0;
  private asideAt = 0;
  private asideUntil = 0;
  private asideYaw = 0;

  // Scratch objects for the per-frame maths.
  private readonly target = new Vector3();
  private readonly inverse = new Matrix4();
  private readonly euler = new Euler(0, 0, 0, 'YXZ');
  private readonly turn = new Quaternion();

  constructor(gltfScene: Object3D, clips: readonly AnimationClip[], options: RigOptions) {
    this.root = gltfScene;
    this.rng = rngFrom(options.seed ?? 1);
    const bone = (name: string): Object3D => {
      const found = gltfScene.getObjectByName(name);
      if (!found) throw new Error(`AvatarRig: the avatar has no bone "${name}"`);
      return found;
    };
    this.neck = bone('Neck');
    this.head = bone('Head');
    this.eyes = [bone('LeftEye'), bone('RightEye')];
    this.gazed = [this.head, ...this.eyes];
    this.found = this.gazed.map((b) => b.quaternion.clone());
    const toe = bone('LeftToeBase');
    this.arms = new ArmLayer(gltfScene); // before any clip poses the arms: it reads them at rest

    const meshes: Mesh[] = [];
    gltfScene.traverse((o) => {
      const mesh = o as Mesh;
      if (mesh.isMesh && mesh.morphTargetDictionary && mesh.morphTargetInfluences) meshes.push(mesh);
    });
    this.meshes = meshes;
    const slots = (name: string): MorphSlot[] =>
      meshes.flatMap((m) => {
        const index = m.morphTargetDictionary![name];
        return index === undefined ? [] : [{ influences: m.morphTargetInfluences!, index }];
      });
    this.visemeSlots = visemes.map((v) => slots(visemeMorph(v)));
    this.jawSlots = slots('jawOpen');
    this.blinkSlots = [...slots('eyeBlinkLeft'), ...slots('eyeBlinkRight')];

    // three.js keeps each object's Euler `rotation` in step with its quaternion, working out the
    // angles again on every quaternion write: the mixer writes about fifty bones a frame, gaze three
    // more. Nothing reads a bone's Euler angles (the rig, the mixer and the renderer use the
    // quaternion), so only writing `rotation` still turns a bone (its quaternion follows it).
    const bones: Object3D[] = [];
    gltfScene.traverse((o) => {
      if ((o as Bone).isBone) bones.push(o);
    });
    this.synced = bones.map((b) => [b, b.quaternion._onChangeCallback] as const);
    for (const b of bones) b.quaternion._onChange(keepEuler);

    const layers = layersFor(clips, options.seated);
    this.mixer = new AnimationMixer(gltfScene);
    const idle = this.mixer.clipAction(layers.idle);
    idle.time = this.rng.next() * layers.idle.duration; // avatars do not breathe in step
    idle.play();
    this.talks = layers.talks.map((clip) => this.mixer.clipAction(clip).setEffectiveWeight(0).play());
    this.talkWeights = this.talks.map(() => 0);
    this.nodding = this.mixer.clipAction(layers.nod).setLoop(LoopOnce, 1);
    this.raising = this.mixer.clipAction(layers.raiseHand).setLoop(LoopOnce, 1).setEffectiveWeight(0);
    this.raising.clampWhenFinished = true;

    // Seated, the legs bend at the hip and knee but the hips keep their height: lower the whole
    // avatar until the feet are back on the floor.
    const toeHeight = () => {
      gltfScene.updateWorldMatrix(true, true);
      return gltfScene.worldToLocal(toe.getWorldPosition(this.target)).y;
    };
    const standingToe = toeHeight();
    this.mixer.update(0);
    this.drop = options.seated ? toeHeight() - standingToe : 0;
    gltfScene.position.y = -this.drop;
    gltfScene.updateWorldMatrix(true, true);
    this.crown = gltfScene.getObjectByName('HeadTop_End') ?? null;
    const top = this.crown ?? this.head;
    this.headTop = gltfScene.worldToLocal(top.getWorldPosition(this.target)).y - this.drop + (this.crown ? 0 : 0.2);
    this.posed = this.gazed.map((b) => b.quaternion.clone());
    this.nextBlink = this.gap();
    this.asideAt = talkingHead.asideEvery[0] + this.rng.next() * (talkingHead.asideEvery[1] - talkingHead.asideEvery[0]);
  }

  /**
   * The corners of the head's box as it is posed now, in world space, written into `corners` (8
   * vectors). The box is the head bone's, sized by its height to the crown: the skull from just
   * below the bone to the crown, ears and hair either side, back of the head to the nose (the
   * avatars' head is an ellipsoid above and a little in front of the bone, avatars/generator).
   */
  headCorners(corners: readonly Vector3[]): void {
    const h = this.crown ? this.crown.position.length() : 0.2;
    for (const [i, corner] of corners.entries()) this.head.localToWorld(corner.set((i & 1 ? 0.43 : -0.43) * h, (i & 2 ? 1 : -0.1) * h, (i & 4 ? 0.55 : -0.45) * h));
  }

  /** The middle of the head's box (`headCorners`) as it is posed now, in world space. */
  headCentre(target: Vector3): Vector3 {
    const h = this.crown ? this.crown.position.length() : 0.2;
    return this.head.localToWorld(target.set(0, 0.45 * h, 0.05 * h));
  }

  update(dt: number, input: RigInput): void {
    // A frame after a stall (a hidden tab) should not replay seconds of motion at once.
    const step = Math.min(Math.max(dt, 0), 0.1);
    this.time += step;
    this.trigger(input);
    this.weigh(step, input);

    const bones = this.gazed;
    for (let i = 0; i < bones.length; i++) bones[i]!.quaternion.copy(this.posed[i]!);
    this.arms.restore();
    this.mixer.update(step);
    for (let i = 0; i < bones.length; i++) this.posed[i]!.copy(bones[i]!.quaternion);
    this.arms.capture();

    this.aim(step, input.lookAt);
    this.arms.update(step, input.arms ?? null);
    this.face(step, input.visemes);
  }

  /** Where the avatar's wrist (its hand bone) is now, in the room; null for an avatar without that arm. */
  wrist(side: 'left' | 'right', out: Vector3): Vector3 | null {
    return this.arms.wrist(side, out);
  }

  /** Whether the last input had this avatar speaking. */
  get speaking(): boolean {
    return this.wasSpeaking;
  }

  /** Where the head is turned by gaze now, in degrees: yaw toward the avatar's left, pitch down (negative: up). */
  gaze(): { yaw: number; pitch: number } {
    return { yaw: this.headYaw / degrees, pitch: this.headPitch / degrees };
  }

  /** How open the mouth is now, 0 (shut) to 1 (a full "aa"), from the visemes shown. */
  mouthOpen(): number {
    return this.open;
  }

  /** Whether the head (the meshes with the face's morph targets) is drawn. */
  get headShown(): boolean {
    return this.meshes.every((mesh) => mesh.visible);
  }

  /** Draws the head or not: the wearer's own avatar in their headset has none (their eyes are inside it). */
  set headShown(shown: boolean) {
    for (const mesh of this.meshes) mesh.visible = shown;
  }

  /** A morph target's current influence on the first mesh that has it; 0 if none has it. */
  morph(name: string): number {
    for (const mesh of this.meshes) {
      const index = mesh.morphTargetDictionary![name];
      if (index !== undefined) return mesh.morphTargetInfluences![index] ?? 0;
    }
    return 0;
  }

  /** Stops every clip and leaves the body posed and placed as it was given. */
  dispose(): void {
    this.mixer.stopAllAction();
    this.mixer.uncacheRoot(this.root);
    this.gazed.forEach((b, i) => b.quaternion.copy(this.found[i]!));
    this.arms.dispose();
    for (const [bone, sync] of this.synced) {
      bone.quaternion._onChange(sync);
      sync();
    }
    this.root.position.y += this.drop;
  }

  /** Starts the one-shot motions whose counters moved since the last frame (never on the first). */
  private trigger(input: RigInput): void {
    if (this.lastNod !== null && input.nod !== this.lastNod) this.nodding.reset().setEffectiveWeight(1).play();
    this.lastNod = input.nod;
    if (this.lastCut !== null && input.cutAt !== this.lastCut) this.cutStart = this.time;
    this.lastCut = input.cutAt;
    if (input.handRaised && this.raiseWeight === 0) this.raising.reset().play();
    if (input.speaking && !this.wasSpeaking) this.nextTalk();
    this.wasSpeaking = input.speaking;
  }

  /** Eases each gesture layer's weight toward what the input asks for. */
  private weigh(step: number, input: RigInput): void {
    this.raiseWeight = approach(this.raiseWeight, input.handRaised ? 1 : 0, step / (input.handRaised ? fadeIn : fadeOut));
    this.raising.setEffectiveWeight(this.raiseWeight);
    // Talking gestures move the right arm too; a raised hand wins.
    const talking = input.speaking && !input.handRaised;
    if (talking) {
      this.talkLeft -= step;
      if (this.talkLeft <= 0) this.nextTalk();
    }
    for (let i = 0; i < this.talks.length; i++) {
      const wanted = talking && i === this.talk ? 1 : 0;
      this.talkWeights[i] = approach(this.talkWeights[i]!, wanted, step / (wanted ? fadeIn : fadeOut));
      this.talks[i]!.setEffectiveWeight(this.talkWeights[i]!);
    }
  }

  /** Crossfades to another talking loop, held for 3 to 7 seconds. */
  private nextTalk(): void {
    const others = this.talks.length - 1;
    this.talk = others > 0 ? (this.talk + 1 + Math.floor(this.rng.next() * others)) % this.talks.length : 0;
    this.talkLeft = 3 + 4 * this.rng.next();
  }

  /** Turns head and eyes toward `lookAt` on top of the animated pose, plus the jerk of a cut. */
  private aim(step: number, lookAt: Vector3 | null): void {
    let yaw = 0;
    let pitch = 0;
    if (lookAt) {
      // The target in the neck's frame, from the head joint: yaw toward +X (the avatar's left), pitch down.
      this.neck.updateWorldMatrix(true, false);
      const p = this.target.copy(lookAt).applyMatrix4(this.inverse.copy(this.neck.matrixWorld).invert()).sub(this.head.position);
      yaw = Math.atan2(p.x, p.z);
      pitch = Math.atan2(-p.y, Math.sqrt(p.x * p.x + p.z * p.z));
    }
    // While speaking: stresses dip the head, it sways, and the eyes now and then look aside.
    this.talking += ((this.wasSpeaking ? 1 : 0) - this.talking) * (1 - Math.exp(-step / 0.4));
    this.openMean += (this.open - this.openMean) * (1 - Math.exp(-step / 0.35));
    this.stress += (Math.max(0, this.open - this.openMean - 0.1) - this.stress) * (1 - Math.exp(-step / 0.08));
    if (this.wasSpeaking && this.time >= this.asideAt) {
      const [min, max] = talkingHead.asideFor;
      this.asideUntil = this.time + min + (max - min) * this.rng.next();
      this.asideYaw = (this.rng.next() < 0.5 ? -1 : 1) * talkingHead.aside;
      const [every, most] = talkingHead.asideEvery;
      this.asideAt = this.asideUntil + every + (most - every) * this.rng.next();
    }
    const aside = this.wasSpeaking && this.time < this.asideUntil ? this.asideYaw : 0;
    yaw += aside;
    pitch += (aside !== 0 ? -0.3 * Math.abs(aside) : 0) + this.talking * (talkingHead.stress * Math.min(1, 2 * this.stress) + talkingHead.sway * 0.3 * Math.sin(this.time * 2.1));
    yaw += this.talking * talkingHead.sway * Math.sin(this.time * 0.9);
    const head = 1 - Math.exp(-step / headLag);
    const eyes = 1 - Math.exp(-step / eyeLag);
    this.headYaw += (clamp(yaw, limits.headYaw) - this.headYaw) * head;
    this.headPitch += (clamp(pitch, limits.headPitch) - this.headPitch) * head;
    // The eyes cover what the head has not turned yet, or cannot.
    this.eyeYaw += (clamp(yaw - this.headYaw, limits.eyeYaw) - this.eyeYaw) * eyes;
    this.eyePitch += (clamp(pitch - this.headPitch, limits.eyePitch) - this.eyePitch) * eyes;

    const t = this.time - this.cutStart;
    const jerk = t < cut.rise ? t / cut.rise : t < cut.rise + cut.fall ? (1 - (t - cut.rise) / cut.fall) ** 2 : 0;
    this.turn.setFromEuler(this.euler.set(this.headPitch - cut.jerk * jerk, this.headYaw, 0));
    this.head.quaternion.premultiply(this.turn);
    this.turn.setFromEuler(this.euler.set(this.eyePitch, this.eyeYaw, 0));
    for (const eye of this.eyes) eye.quaternion.premultiply(this.turn);
  }

  /** Lip sync, the jaw, and blinks. */
  private face(step: number, weights: Partial<Record<Viseme, number>> | null): void {
    const shut = this.time - this.cutStart < cut.hold;
    // Silence lets the mouth close over a few frames; a cut closes it at once.
    const decay = Math.exp(-step / 0.05);
    let jaw = 0;
    let open = 0;
    for (let v = 0; v < visemes.length; v++) {
      const name = visemes[v]!;
      const slots = this.visemeSlots[v]!;
      for (let s = 0; s < slots.length; s++) {
        const slot = slots[s]!;
        const value = shut ? 0 : weights ? (weights[name] ?? 0) : slot.influences[slot.index]! * decay;
        slot.influences[slot.index] = value;
        if (s === 0) {
          jaw += value * (jawShare[name] ?? 0);
          open += value * (openness[name] ?? 0);
        }
      }
    }
    for (const slot of this.jawSlots) slot.influences[slot.index] = Math.min(jaw, 0.35);
    this.open = Math.min(1, open);

    const since = this.time - this.nextBlink;
    let lid = 0;
    if (since >= 0) {
      lid = since < blink.close ? since / blink.close : Math.max(0, 1 - (since - blink.close) / blink.open);
      if (since >= blink.close + blink.open) this.nextBlink = this.time + this.gap();
    }
    for (const slot of this.blinkSlots) slot.influences[slot.index] = lid;
  }

  /** Seconds until the next blink. */
  private gap(): number {
    return blink.minGap + (blink.maxGap - blink.minGap) * this.rng.next();
  }
}
