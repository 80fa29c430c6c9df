/**
 * The Ready Player Me / Mixamo skeleton: bone names, hierarchy and rest positions.
 *
 * Conventions (the same as Ready Player Me full-body avatars): glTF Y up, metres, the character
 * faces +Z, its left side is +X. The root node is `Armature`; `Hips` is its child. The rest pose is
 * a T-pose with every bone's rest rotation the identity, so an animation's rotations mean the same
 * thing on every avatar of any height (animations carry rotations only, never translations).
 *
 * ```ts
 * const bones = skeletonFor({ height: 1.78, shoulders: 1.05, hips: 0.95 });
 * bones.find((b) => b.name === 'LeftForeArm'); // { name, parent: 'LeftArm', local: [0.28, 0, 0], world: [...] }
 * ```
 */

export type Vec3 = [number, number, number];

export interface Bone {
  name: string;
  parent: string | null;
  /** Translation from the parent bone (the rest pose; rotation is the identity). */
  local: Vec3;
  /** Position in the avatar's space (root at the floor, between the feet). */
  world: Vec3;
}

export interface Proportions {
  /** Standing height, metres (top of the head). */
  height: number;
  /** Shoulder width factor, 1 = average. */
  shoulders: number;
  /** Hip width factor, 1 = average. */
  hips: number;
}

const fingers = ['Thumb', 'Index', 'Middle', 'Ring', 'Pinky'] as const;

/** Every bone name, parents before children. */
export const boneNames: readonly string[] = (() => {
  const names = ['Hips', 'Spine', 'Spine1', 'Spine2', 'Neck', 'Head', 'HeadTop_End', 'LeftEye', 'RightEye'];
  for (const side of ['Left', 'Right']) {
    names.push(`${side}Shoulder`, `${side}Arm`, `${side}ForeArm`, `${side}Hand`);
    for (const f of fingers) for (let i = 1; i <= 4; i++) names.push(`${side}Hand${f}${i}`);
  }
  for (const side of ['Left', 'Right']) names.push(`${side}UpLeg`, `${side}Leg`, `${side}Foot`, `${side}ToeBase`, `${side}Toe_End`);
  return names;
})();

/** The bones the issue and Ready Player Me code look up by name. */
export const requiredBones = [
  'Hips', 'Spine', 'Spine1', 'Spine2', 'Neck', 'Head', 'LeftEye', 'RightEye',
  'LeftShoulder', 'LeftArm', 'LeftForeArm', 'LeftHand', 'LeftHandIndex1', 'LeftHandThumb1',
  'RightShoulder', 'RightArm', 'RightForeArm', 'RightHand', 'RightHandIndex1', 'RightHandThumb1',
  'LeftUpLeg', 'LeftLeg', 'LeftFoot', 'LeftToeBase', 'RightUpLeg', 'RightLeg', 'RightFoot', 'RightToeBase',
] as const;

/** Reference positions for a 1.75 m average build: parent and offset from it (left side; right mirrors x). */
const reference: Record<string, [string | null, Vec3]> = {
  Hips: [null, [0, 0.95, 0]],
  Spine: ['Hips', [0, 0.1, -0.005]],
  Spine1: ['Spine', [0, 0.11, 0]],
  Spine2: ['Spine1', [0, 0.12, 0]],
  Neck: ['Spine2', [0, 0.175, -0.01]],
  Head: ['Neck', [0, 0.09, 0.015]],
  HeadTop_End: ['Head', [0, 0.2, 0]],
  LeftEye: ['Head', [0.031, 0.085, 0.062]],
  LeftShoulder: ['Spine2', [0.045, 0.125, 0]],
  LeftArm: ['LeftShoulder', [0.125, 0, 0]],
  LeftForeArm: ['LeftArm', [0.27, 0, 0]],
  LeftHand: ['LeftForeArm', [0.25, 0, 0]],
  LeftHandThumb1: ['LeftHand', [0.022, -0.012, 0.025]],
  LeftHandThumb2: ['LeftHandThumb1', [0.03, -0.004, 0.014]],
  LeftHandThumb3: ['LeftHandThumb2', [0.027, -0.002, 0.008]],
  LeftHandThumb4: ['LeftHandThumb3', [0.022, 0, 0.004]],
  LeftHandIndex1: ['LeftHand', [0.09, 0.002, 0.026]],
  LeftHandIndex2: ['LeftHandIndex1', [0.036, 0, 0]],
  LeftHandIndex3: ['LeftHandIndex2', [0.024, 0, 0]],
  LeftHandIndex4: ['LeftHandIndex3', [0.02, 0, 0]],
  LeftHandMiddle1: ['LeftHand', [0.095, 0.002, 0.007]],
  LeftHandMiddle2: ['LeftHandMiddle1', [0.04, 0, 0]],
  LeftHandMiddle3: ['LeftHandMiddle2', [0.027, 0, 0]],
  LeftHandMiddle4: ['LeftHandMiddle3', [0.021, 0, 0]],
  LeftHandRing1: ['LeftHand', [0.09, 0.001, -0.012]],
  LeftHandRing2: ['LeftHandRing1', [0.036, 0, 0]],
  LeftHandRing3: ['LeftHandRing2', [0.025, 0, 0]],
  LeftHandRing4: ['LeftHandRing3', [0.02, 0, 0]],
  LeftHandPinky1: ['LeftHand', [0.082, 0, -0.029]],
  LeftHandPinky2: ['LeftHandPinky1', [0.028, 0, 0]],
  LeftHandPinky3: ['LeftHandPinky2', [0.019, 0, 0]],
  LeftHandPinky4: ['LeftHandPinky3', [0.017, 0, 0]],
  LeftUpLeg: ['Hips', [0.088, -0.055, 0]],
  LeftLeg: ['LeftUpLeg', [0, -0.415, 0.005]],
  LeftFoot: ['LeftLeg', [0, -0.405, -0.015]],
  LeftToeBase: ['LeftFoot', [0, -0.055, 0.115]],
  LeftToe_End: ['LeftToeBase', [0, 0, 0.07]],
};

const mirror = (name: string): string => name.replace(/^Left/, 'Right').replace(/^LeftEye$/, 'RightEye');

/** Widths that follow the build (x offsets of these bones scale with shoulders or hips). */
const shoulderBones = new Set(['LeftShoulder', 'LeftArm']);
const hipBones = new Set(['LeftUpLeg']);

export const skeletonFor = ({ height, shoulders, hips }: Proportions): Bone[] => {
  const s = height / 1.75;
  const local = new Map<string, [string | null, Vec3]>();
  for (const [name, [parent, [x, y, z]]] of Object.entries(reference)) {
    const wx = shoulderBones.has(name) ? shoulders : hipBones.has(name) ? hips : 1;
    const offset: Vec3 = [x * s * wx, y * s, z * s];
    local.set(name, [parent, offset]);
    if (name.startsWith('Left')) {
      const other = mirror(name);
      local.set(other, [parent && parent.startsWith('Left') ? mirror(parent) : parent, [-offset[0], offset[1], offset[2]]]);
    }
  }
  const bones: Bone[] = [];
  const world = new Map<string, Vec3>();
  for (const name of boneNames) {
    const [parent, offset] = local.get(name)!;
    const base = parent ? world.get(parent)! : ([0, 0, 0] as Vec3);
    const position: Vec3 = [base[0] + offset[0], base[1] + offset[1], base[2] + offset[2]];
    world.set(name, position);
    bones.push({ name, parent, local: offset, world: position });
  }
  return bones;
};
