/**
 * One character, built: its skeleton, the face mesh (`Wolf3D_Head`: head, eyes, lids, brows,
 * nose, ears, lips, teeth, beard) with its morph targets, and the body mesh (`Wolf3D_Body`:
 * neck, clothes, arms, hands, legs, shoes, hair, glasses), all skinned to the skeleton in its
 * T-pose rest. Stylized, vertex-coloured, deterministic.
 *
 * ```ts
 * const built = buildCharacter(cast[0]);
 * built.head.triangleCount + built.body.triangleCount; // about 8,000
 * built.morphs.find((m) => m.name === 'viseme_aa'); // position deltas for every head vertex
 * ```
 *
 * Morph targets are deformations of the rest face: a mouth model with a few parameters (jaw,
 * width, rounding, upper lip raise, lower lip tuck, lip press, smile, frown) gives each viseme its
 * shape; blinks rotate the upper lids over the eyes; `browInnerUp` lifts the inner brows.
 */
import { visemeMorph, visemes, type Viseme } from '../../shared/visemes';
import type { Character, RGB } from './cast';
import { clamp01, ellipsoid, lerp, loft, MeshBuilder, mix, refine, shade, sheet, smoothstep, torus, tube, type Ring, type Skin } from './mesh';
import { skeletonFor, type Bone, type Vec3 } from './skeleton';

export interface Morph {
  name: string;
  /** Position deltas, three per head vertex. */
  deltas: Float32Array;
}

export interface BuiltCharacter {
  bones: Bone[];
  head: MeshBuilder;
  body: MeshBuilder;
  morphs: Morph[];
}

/** The mouth model's parameters; a viseme or expression is a setting of them. */
interface MouthShape {
  jaw?: number;
  wide?: number;
  round?: number;
  upperUp?: number;
  lowerIn?: number;
  press?: number;
  smileL?: number;
  smileR?: number;
  frownL?: number;
  frownR?: number;
}

/** Oculus visemes as mouth shapes (the lip and jaw positions of each phoneme class). */
export const visemeShapes: Record<Viseme, MouthShape> = {
  sil: { press: 0.6 },
  PP: { press: 1, round: 0.15 },
  FF: { jaw: 0.12, lowerIn: 1, upperUp: 0.35 },
  TH: { jaw: 0.28, wide: 0.15, upperUp: 0.25 },
  DD: { jaw: 0.32, wide: 0.3 },
  kk: { jaw: 0.45, wide: 0.22 },
  CH: { jaw: 0.18, round: 0.65, upperUp: 0.45 },
  SS: { jaw: 0.08, wide: 0.65, upperUp: 0.5 },
  nn: { jaw: 0.22, wide: 0.12, upperUp: 0.1 },
  RR: { jaw: 0.25, round: 0.5 },
  aa: { jaw: 1, wide: 0.12 },
  E: { jaw: 0.45, wide: 0.55, upperUp: 0.3 },
  I: { jaw: 0.22, wide: 0.95, upperUp: 0.4 },
  O: { jaw: 0.62, round: 0.85 },
  U: { jaw: 0.22, round: 1.1 },
};

const expressionShapes: Record<string, MouthShape> = {
  jawOpen: { jaw: 1 },
  mouthSmileLeft: { smileL: 1 },
  mouthSmileRight: { smileR: 1 },
  mouthFrownLeft: { frownL: 1 },
  mouthFrownRight: { frownR: 1 },
};

export const morphNames = [...visemes.map(visemeMorph), 'eyeBlinkLeft', 'eyeBlinkRight', 'jawOpen', 'mouthSmileLeft', 'mouthSmileRight', 'browInnerUp', 'mouthFrownLeft', 'mouthFrownRight'];

const TAU = Math.PI * 2;
/** |azimuth| folded to 0 (front) .. π (back). */
const fold = (azimuth: number): number => {
  const a = ((azimuth % TAU) + TAU) % TAU;
  return a > Math.PI ? TAU - a : a;
};
/** Front → side → back interpolation of a value by azimuth. */
const around = (azimuth: number, front: number, side: number, back: number): number => {
  const f = fold(azimuth);
  return f < Math.PI / 2 ? lerp(front, side, smoothstep(0.3, Math.PI / 2, f)) : lerp(side, back, smoothstep(Math.PI / 2, Math.PI, f));
};

export const buildCharacter = (character: Character): BuiltCharacter => {
  const { height, build } = character;
  const s = height / 1.75;
  const bones = skeletonFor({ height, shoulders: build.shoulders, hips: build.hips });
  const index = new Map(bones.map((b, i) => [b.name, i]));
  const bone = (name: string): Bone => bones[index.get(name)!]!;
  const at = (name: string): Vec3 => bone(name).world;
  const rigid = (name: string): Skin => [[index.get(name)!, 1]];
  const blend = (a: string, b: string, t: number): Skin => [
    [index.get(a)!, 1 - t],
    [index.get(b)!, t],
  ];
  const feminine = character.presentation === 'feminine';
  const girth = build.girth;
  const skinColor = character.skin;

  // -------------------------------------------------------------------------------------------
  // The head: an ellipsoid with a narrower jaw and a flatter face; features placed on its surface.
  const hs = 0.93 + 0.07 * s;
  const headBone = at('Head');
  const c: Vec3 = [0, headBone[1] + 0.085 * hs, headBone[2] + 0.012 * hs];
  const R: Vec3 = [(feminine ? 0.071 : 0.075) * hs, 0.1 * hs, 0.089 * hs];
  const jawNarrowing = feminine ? 0.26 : 0.18;
  const headDeform = (p: Vec3): Vec3 => {
    const dy = p[1] - c[1];
    const k = smoothstep(0, -R[1], dy);
    const x = c[0] + (p[0] - c[0]) * (1 - jawNarrowing * k);
    const uz = (p[2] - c[2]) / R[2];
    const z = p[2] - (uz > 0.6 ? 0.006 * hs * ((uz - 0.6) / 0.4) : 0) + (dy < -0.06 * hs && uz > 0.3 ? 0.004 * hs * smoothstep(-0.06 * hs, -0.095 * hs, dy) : 0);
    return [x, p[1], z];
  };
  /** The face's z at (x, y), on the deformed head. */
  const surfaceZ = (x: number, y: number): number => {
    const dy = y - c[1];
    const rx = R[0] * (1 - jawNarrowing * smoothstep(0, -R[1], dy));
    const inside = Math.max(0, 1 - (x / rx) ** 2 - (dy / R[1]) ** 2);
    const uz = Math.sqrt(inside);
    return c[2] + R[2] * uz - (uz > 0.6 ? 0.006 * hs * ((uz - 0.6) / 0.4) : 0);
  };
  const eyeY = c[1] + 0.004 * hs;
  const eyeX = 0.031 * hs;
  const eyeR = 0.0125 * hs;
  const eyeZ = surfaceZ(eyeX, eyeY) - eyeR * 0.42;
  const mouth: Vec3 = [0, eyeY - 0.062 * hs, surfaceZ(0, eyeY - 0.062 * hs) + 0.0022 * hs];
  const lipA = (feminine ? 0.02 : 0.021) * hs;
  const lipB = 0.0055 * hs;
  const lipTube = (feminine ? 0.0047 : 0.0041) * hs;
  const jawDrop = 0.017 * hs;
  // The eye bones sit at the eyeballs' centres, so turning them turns the eyes.
  for (const side of [1, -1]) {
    const eye = bone(side > 0 ? 'LeftEye' : 'RightEye');
    eye.world = [side * eyeX, eyeY, eyeZ];
    eye.local = [eye.world[0] - headBone[0], eye.world[1] - headBone[1], eye.world[2] - headBone[2]];
  }

  const head = new MeshBuilder();
  const onHead = rigid('Head');
  // Lips redder on fair skin, a deeper shade of the skin on dark skin.
  const luminance = 0.3 * skinColor[0] + 0.59 * skinColor[1] + 0.11 * skinColor[2];
  const lipColor = mix(shade(skinColor, 0.78), [0.62, 0.26, 0.28], (feminine ? 0.2 : 0.1) + 0.35 * luminance);
  const blush = mix(skinColor, [0.86, 0.4, 0.38], feminine ? 0.2 : 0.13);
  // Brows and lashes darker than the hair, as they are: grey or fair hair would leave the face blank.
  const browColor = mix(character.hair.color, [0.12, 0.09, 0.07], 0.45);
  const lashColor: RGB = [0.07, 0.05, 0.045];

  // Skin shaded in its vertex colours, as light falls on a face: warm cheeks, the eye sockets, the
  // sides of the face and the underside of the jaw a little darker, the forehead a little lighter.
  const faceShading = (p: Vec3, u: Vec3): RGB => {
    const front = smoothstep(0.2, 0.7, u[2]);
    const cheekAt = Math.hypot(Math.abs(p[0]) - 0.036 * hs, p[1] - (eyeY - 0.032 * hs)) / (0.022 * hs);
    const socketAt = Math.hypot(Math.abs(p[0]) - eyeX, (p[1] - eyeY) * 1.4) / (0.02 * hs);
    let color = mix(skinColor, blush, front * (1 - smoothstep(0.4, 1, cheekAt)));
    color = shade(color, 1 - 0.09 * front * (1 - smoothstep(0.5, 1, socketAt)));
    color = shade(color, 1 - 0.1 * (1 - smoothstep(0.05, 0.6, u[2])) * smoothstep(-0.4, 0.2, u[1]));
    color = shade(color, 1 - 0.18 * smoothstep(-0.55, -0.9, u[1]));
    return shade(color, 1 + 0.05 * front * smoothstep(0.3, 0.6, u[1]));
  };
  ellipsoid(head, c, R, 24, 32, faceShading, () => onHead, 'skin', { deform: headDeform });
  // Ears.
  for (const side of [1, -1]) {
    ellipsoid(head, [side * R[0] * 0.93, eyeY - 0.01 * hs, c[2] - 0.008 * hs], [0.011 * hs, 0.026 * hs, 0.017 * hs], 8, 10, (_p, u) => shade(mix(skinColor, blush, 0.4), side * u[0] > 0.3 ? 0.93 : 0.8), () => onHead, 'skin');
  }
  // Nose: a bridge and a rounded tip, darker underneath where the nostrils are.
  const noseY = eyeY - 0.03 * hs;
  ellipsoid(head, [0, noseY + 0.004 * hs, surfaceZ(0, noseY) + 0.001 * hs], [0.012 * hs, 0.021 * hs, 0.013 * hs], 10, 12, () => shade(skinColor, 1.02), () => onHead, 'skin', {
    // Wider at the bottom, like a nose, not a stick.
    deform: (p) => [p[0] * (1 + 0.45 * smoothstep(noseY + 0.02 * hs, noseY - 0.015 * hs, p[1])), p[1], p[2]],
  });
  ellipsoid(head, [0, noseY - 0.012 * hs, surfaceZ(0, noseY - 0.012 * hs) + 0.008 * hs], [0.0145 * hs, 0.0095 * hs, 0.01 * hs], 8, 12, (_p, u) => shade(mix(skinColor, blush, 0.35), 1 - 0.45 * smoothstep(-0.3, -0.8, u[1]) * (1 - Math.abs(u[0]) * 0.5)), () => onHead, 'skin');
  // Eyes: the white (darker toward its edge), an iris with a darker rim, the pupil and a catchlight.
  for (const side of [1, -1]) {
    const centre: Vec3 = [side * eyeX, eyeY, eyeZ];
    const tag = side > 0 ? 'eyeL' : 'eyeR';
    const onEye = () => rigid(side > 0 ? 'LeftEye' : 'RightEye');
    ellipsoid(head, centre, [eyeR, eyeR, eyeR], 10, 12, (_p, u) => shade([0.97, 0.95, 0.93], 0.8 + 0.2 * smoothstep(0.3, 0.9, u[2])), onEye, tag);
    // Iris and pupil: thin discs on the front of the eyeball, so they stay round.
    ellipsoid(head, [centre[0], centre[1], centre[2] + eyeR * 0.88], [eyeR * 0.58, eyeR * 0.58, eyeR * 0.16], 5, 14, (_p, u) => shade(character.eyes, 0.55 + 0.55 * smoothstep(0.3, 0.8, u[2])), onEye, tag);
    ellipsoid(head, [centre[0], centre[1], centre[2] + eyeR * 0.98], [eyeR * 0.26, eyeR * 0.26, eyeR * 0.1], 4, 10, () => [0.02, 0.018, 0.018], onEye, tag);
    ellipsoid(head, [centre[0] - 0.2 * eyeR, centre[1] + 0.22 * eyeR, centre[2] + eyeR * 1.06], [eyeR * 0.11, eyeR * 0.11, eyeR * 0.04], 3, 6, () => [1, 1, 1], onEye, tag);
    // The upper lid: a cap over the top of the eye, open; the blink rotates it down. Its edge
    // carries the lashes, a dark line that makes the eye read from across the room.
    const lidTag = side > 0 ? 'lidL' : 'lidR';
    const lidEdge = (az: number) => around(az, 1.08, 1.4, 0.6);
    ellipsoid(head, centre, [eyeR * 1.13, eyeR * 1.13, eyeR * 1.13], 6, 14, () => shade(skinColor, 0.88), () => onHead, lidTag, { from: 0, to: lidEdge });
    const lash = Array.from({ length: 7 }, (_, i) => {
      const az = lerp(-1.05, 1.05, i / 6);
      const polar = lidEdge(az) - 0.06;
      const outward = side * Math.sin(az) > 0 ? smoothstep(0.5, 1.05, Math.abs(az)) : 0;
      const r = eyeR * (1.16 + (feminine ? 0.05 : 0.02) * outward);
      return { p: [centre[0] + r * Math.sin(polar) * Math.sin(az), centre[1] + r * Math.cos(polar) + (feminine ? 0.002 : 0.0008) * hs * outward, centre[2] + r * Math.sin(polar) * Math.cos(az)] as Vec3, r: (feminine ? 0.0011 : 0.0008) * hs * (1 - 0.4 * Math.abs(i - 3.5) / 3.5) };
    });
    tube(head, lash, 5, () => lashColor, () => onHead, lidTag);
    // Brows: thick in the middle, tapering and angled down toward the temples.
    const brow: Vec3 = [side * (eyeX + 0.002 * hs), eyeY + 0.024 * hs, surfaceZ(eyeX, eyeY + 0.024 * hs) + 0.0015 * hs];
    ellipsoid(head, brow, [0.018 * hs, 0.0034 * hs * (feminine ? 0.9 : 1.3), 0.005 * hs], 6, 12, (_p, u) => shade(browColor, 0.9 + 0.2 * u[1]), () => onHead, side > 0 ? 'browL' : 'browR', {
      deform: (p) => {
        const along = (p[0] - brow[0]) * side; // toward the temple is positive
        const arch = feminine ? 0.004 * hs * Math.exp(-(((along - 0.004 * hs) / (0.008 * hs)) ** 2)) : 0;
        return [p[0], p[1] + arch - 0.16 * Math.max(0, along) - 0.03 * Math.max(0, -along), p[2] - 0.3 * Math.abs(p[0] - brow[0]) ** 1.5 / Math.sqrt(hs)];
      },
    });
  }
  // The mouth: a dark inside, teeth, and the lips around them.
  ellipsoid(head, [0, mouth[1] - 0.0005 * hs, mouth[2] - 0.0032 * hs], [lipA * 0.92, 0.0042 * hs, 0.0028 * hs], 8, 16, () => [0.22, 0.06, 0.07], () => onHead, 'mouth');
  ellipsoid(head, [0, mouth[1] + 0.0026 * hs, mouth[2] - 0.0016 * hs], [lipA * 0.66, 0.0026 * hs, 0.0024 * hs], 6, 14, () => [0.94, 0.93, 0.88], () => onHead, 'teethU');
  ellipsoid(head, [0, mouth[1] - 0.0032 * hs, mouth[2] - 0.002 * hs], [lipA * 0.6, 0.0024 * hs, 0.0022 * hs], 6, 14, () => [0.9, 0.89, 0.84], () => onHead, 'teethL');
  // Lips: thin at the corners, the upper one with a bow, the lower one fuller; darker where they meet.
  torus(
    head,
    mouth,
    [lipA, lipB],
    lipTube,
    28,
    8,
    (_p, a, b) => shade(lipColor, (Math.sin(a) >= 0 ? 0.9 : 1.04) * (1 - 0.3 * smoothstep(0.3, 1, -Math.cos(b)))),
    () => onHead,
    (a) => (Math.sin(a) >= 0 ? 'lipU' : 'lipL'),
    {
      thickness: (a) => {
        const middle = Math.abs(Math.sin(a));
        const upper = Math.sin(a) >= 0;
        const bow = upper ? 1 - 0.25 * Math.exp(-((Math.cos(a) / 0.12) ** 2)) : 1;
        return (0.45 + 0.55 * middle ** 0.6) * (upper ? 0.85 : 1.15) * bow;
      },
      depth: 0.8,
    },
  );

  // Beard and moustache: shells over the lower face that move with the jaw.
  if (character.beard) {
    const belowLip = Math.acos(Math.max(-1, Math.min(1, (mouth[1] - 0.013 * hs - c[1]) / R[1])));
    const cheekLine = Math.acos((eyeY - 0.04 * hs - c[1]) / R[1]);
    const full = character.beard !== 'goatee';
    const thick = character.beard === 'full' ? 0.0045 * hs : 0.0014 * hs;
    const beardColor = character.beard === 'stubble' ? mix(skinColor, character.hair.color, 0.55) : shade(character.hair.color, 0.95);
    ellipsoid(head, c, [R[0] + thick, R[1] + thick, R[2] + thick], 10, 32, () => beardColor, () => onHead, 'beard', {
      from: (az) => {
        const f = fold(az);
        if (!full) return f < 0.5 ? belowLip : Math.PI - 0.02;
        return f < 0.45 ? belowLip : f < 1.9 ? lerp(belowLip, cheekLine, smoothstep(0.45, 1.2, f)) : lerp(cheekLine, Math.PI - 0.45, smoothstep(1.9, 2.4, f));
      },
      to: () => Math.PI - 0.02,
      deform: headDeform,
    });
    if (character.beard !== 'stubble') {
      ellipsoid(head, [0, mouth[1] + lipB + lipTube + 0.004 * hs, mouth[2] + 0.001 * hs], [lipA * 1.05, 0.0042 * hs, 0.0048 * hs], 6, 14, () => beardColor, () => onHead, 'moustache');
    }
  }

  // -------------------------------------------------------------------------------------------
  // The body.
  const body = new MeshBuilder();
  const { top, inner, legs, shoes } = character.colors;
  const accent = character.colors.accent ?? shade(inner, 0.7);
  const hips = at('Hips');
  const spine = at('Spine');
  const spine1 = at('Spine1');
  const spine2 = at('Spine2');
  const shoulderY = at('LeftArm')[1];
  const coat = character.outfit === 'lab-coat';

  // Neck, with a collar for shirts and suits.
  const neckBottom = spine2[1] + 0.1 * s;
  const neckTop = headBone[1] + 0.05 * s;
  const collar = ['suit', 'blazer', 'shirt', 'lab-coat'].includes(character.outfit);
  const neckRings: Ring[] = [neckBottom, neckBottom + 0.05 * s, lerp(neckBottom, neckTop, 0.6), neckTop].map((y, i) => ({
    c: [0, y, at('Neck')[2] + 0.005 * s],
    r: [((feminine ? 0.042 : 0.048) + (i === 0 ? 0.014 : 0)) * s * Math.sqrt(girth), ((feminine ? 0.045 : 0.051) + (i === 0 ? 0.01 : 0)) * s * Math.sqrt(girth)],
  }));
  // A shirt's collar is its own cloth; under a jacket or coat it is the shirt's.
  const collarColor = character.outfit === 'shirt' ? top : inner;
  const collarTop = neckBottom + 0.045 * s;
  // The neck darkens toward the jaw, in its shadow.
  const neckColor = (p: Vec3): RGB =>
    collar && p[1] < collarTop ? collarColor : character.outfit === 'hoodie' && p[1] < neckBottom + 0.03 * s ? top : shade(skinColor, 1 - 0.2 * smoothstep(neckBottom + 0.04 * s, neckTop, p[1]));
  loft(body, 'y', refine(neckRings, 1, [collarTop - 0.002 * s, collarTop + 0.002 * s, neckBottom + 0.028 * s, neckBottom + 0.032 * s]), 14, neckColor, (p) =>
    p[1] < at('Neck')[1] ? blend('Spine2', 'Neck', smoothstep(neckBottom, at('Neck')[1], p[1])) : blend('Neck', 'Head', smoothstep(at('Neck')[1], neckTop, p[1])),
  );

  // Torso (and the coat's or skirt's hem below the hips).
  const w = (x: number, widthFactor: number) => x * s * widthFactor * girth;
  const d = (x: number) => x * s * girth;
  const bust = feminine ? 0.013 * s : 0;
  const torso: (Ring & { wide?: boolean })[] = [];
  const hem = coat ? at('LeftLeg')[1] + 0.12 * s : character.skirt ? at('LeftLeg')[1] + 0.02 * s : null;
  if (hem !== null) {
    torso.push({ c: [0, hem, 0.005 * s], r: [w(coat ? 0.2 : 0.19, build.hips), d(coat ? 0.13 : 0.125)] });
    torso.push({ c: [0, lerp(hem, hips[1], 0.5), 0.004 * s], r: [w(coat ? 0.19 : 0.18, build.hips), d(0.12)] });
  } else torso.push({ c: [0, hips[1] - 0.095 * s, 0.002 * s], r: [w(0.15, build.hips), d(0.095)] });
  torso.push(
    { c: [0, hips[1] - 0.07 * s, 0.002 * s], r: [w(0.16, build.hips), d(0.102)] },
    { c: [0, hips[1], 0.004 * s], r: [w(0.168, build.hips), d(0.105)] },
    { c: [0, spine[1], 0.006 * s], r: [w(feminine ? 0.138 : 0.148, 1), d(0.095)] },
    { c: [0, spine1[1], 0.006 * s + bust * 0.3], r: [w(0.15, (build.shoulders + 1) / 2), d(0.1) + bust * 0.4] },
    { c: [0, spine2[1], 0.006 * s + bust], r: [w(0.163, build.shoulders), d(0.108) + bust] },
    { c: [0, spine2[1] + 0.07 * s, 0.004 * s], r: [w(0.178, build.shoulders), d(0.1)] },
    { c: [0, shoulderY + 0.005 * s, 0], r: [w(0.178, build.shoulders), d(0.082)] },
    { c: [0, shoulderY + 0.042 * s, -0.004 * s], r: [w(0.12, build.shoulders), d(0.064)] },
    { c: [0, shoulderY + 0.068 * s, -0.006 * s], r: [w(0.062, 1), d(0.05)] },
  );
  const vBottom = character.outfit === 'suit' || character.outfit === 'blazer' ? spine1[1] + 0.02 * s : character.outfit === 'lab-coat' ? spine1[1] + 0.06 * s : spine2[1] + 0.02 * s;
  const neckY = shoulderY + 0.068 * s;
  // The torso is one colour per band (trousers, garment, hem); everything on the front (a shirt's
  // V, lapels, a tie, a placket, a pocket) is a sheet of its own laid over it, so its edges stay
  // sharp: painted into the torso's vertices they smeared across its large faces.
  const torsoColor = (p: Vec3): RGB => {
    if (!coat && p[1] < hips[1] + 0.015 * s) return legs;
    switch (character.outfit) {
      case 'cardigan':
        return p[1] < hips[1] + 0.04 * s ? shade(top, 0.88) : top;
      case 'sweater':
        return p[1] < hips[1] + 0.045 * s ? shade(top, 0.85) : top;
      default:
        return top;
    }
  };
  const torsoSkin = (p: Vec3): Skin => {
    const y = p[1];
    const ax = Math.abs(p[0]);
    let base: Skin;
    if (y < hips[1]) {
      const side = p[0] >= 0 ? 'LeftUpLeg' : 'RightUpLeg';
      const t = 0.5 * smoothstep(0.02 * s, 0.1 * s, ax) * smoothstep(hips[1], hips[1] - 0.3 * s, y);
      base = blend('Hips', side, t);
    } else if (y < spine[1]) base = blend('Hips', 'Spine', smoothstep(hips[1], spine[1], y));
    else if (y < spine1[1]) base = blend('Spine', 'Spine1', smoothstep(spine[1], spine1[1], y));
    else if (y < spine2[1]) base = blend('Spine1', 'Spine2', smoothstep(spine1[1], spine2[1], y));
    else base = rigid('Spine2');
    const toShoulder = smoothstep(0.07 * s, 0.17 * s, ax) * smoothstep(spine2[1] + 0.02 * s, shoulderY, y);
    if (toShoulder <= 0) return base;
    const shoulder = p[0] >= 0 ? 'LeftShoulder' : 'RightShoulder';
    return [...base.map(([b, wt]) => [b, wt * (1 - toShoulder)] as [number, number]), [index.get(shoulder)!, toShoulder]];
  };
  const torsoCuts = [hips[1] + 0.011 * s, hips[1] + 0.019 * s, vBottom, lerp(vBottom, neckY, 0.35), lerp(vBottom, neckY, 0.7), hips[1] + 0.041 * s, hips[1] + 0.049 * s];
  const torsoRings = refine(torso, 1, torsoCuts);
  loft(body, 'y', torsoRings, 40, (p) => torsoColor(p), (p) => torsoSkin(p));

  /** A point on the torso's front at (x, y), `lift` metres out from it (rings interpolated as the loft does). */
  const onTorso = (x: number, y: number, lift: number): Vec3 => {
    let i = 0;
    while (i < torsoRings.length - 2 && torsoRings[i + 1]!.c[1] < y) i++;
    const a = torsoRings[i]!;
    const b = torsoRings[i + 1]!;
    const t = clamp01((y - a.c[1]) / (b.c[1] - a.c[1]));
    const cx = lerp(a.c[0], b.c[0], t);
    const cz = lerp(a.c[2], b.c[2], t);
    const rx = lerp(a.r[0], b.r[0], t);
    const rz = lerp(a.r[1], b.r[1], t);
    const across = Math.min(0.97, Math.abs(x - cx) / rx);
    const depth = Math.sqrt(1 - across * across);
    // Out along the ellipse's normal, so a sheet near the sides does not sink into them.
    const nx = (across / rx) * Math.sign(x - cx);
    const nz = depth / rz;
    const len = Math.hypot(nx, nz);
    return [x + (lift * nx) / len, y, cz + rz * depth + (lift * nz) / len];
  };
  /** A sheet on the torso's front between heights `from` and `to`, spanning `left(y)`..`right(y)` in x. */
  const frontSheet = (from: number, to: number, left: (y: number) => number, right: (y: number) => number, lift: number, color: RGB, rows = 6, columns = 5) => {
    // Rows at the torso's own rings too: between them the torso is straight, and a sheet row
    // spanning a ring would cut into the chest's curve.
    const even = Array.from({ length: rows }, (_, i) => lerp(from, to, i / (rows - 1)));
    const ys = [...new Set([...even, ...torsoRings.map((r) => r.c[1]).filter((y) => y > from && y < to)])].sort((a, b) => a - b);
    sheet(
      body,
      ys.length,
      columns,
      (u, v) => {
        const y = ys[Math.round(u * (ys.length - 1))]!;
        return onTorso(lerp(left(y), right(y), v), y, lift);
      },
      () => color,
      (p) => torsoSkin(p),
    );
  };
  const vTop = shoulderY + 0.035 * s;
  const vHalf = (y: number) => 0.075 * s * smoothstep(vBottom, vTop, y) ** 0.9;
  const mm = 0.001 * s;
  switch (character.outfit) {
    case 'suit':
    case 'blazer':
    case 'lab-coat': {
      // The shirt in the V, the lapels either side of it, and a tie on a suit.
      frontSheet(vBottom, vTop, (y) => -vHalf(y), (y) => vHalf(y), 1.5 * mm, inner);
      const lapel = coat ? shade(top, 0.9) : shade(top, 0.82);
      for (const side of [1, -1]) {
        const edge = (y: number) => side * vHalf(y);
        const outer = (y: number) => side * (vHalf(y) + lerp(0.012, 0.032, smoothstep(vBottom, vTop, y)) * s);
        frontSheet(vBottom - 0.01 * s, vTop - 0.006 * s, side > 0 ? edge : outer, side > 0 ? outer : edge, 3 * mm, lapel);
      }
      if (character.outfit === 'suit' && !feminine) {
        const tieColor = shade(accent, 0.85);
        const knotY = vTop - 0.028 * s;
        const tip = vBottom + 0.005 * s;
        // A blade widening from the knot, then coming to a point.
        const half = (y: number) => (y > tip + 0.03 * s ? lerp(0.022, 0.011, smoothstep(tip + 0.03 * s, knotY, y)) : 0.022 * ((y - tip) / (0.03 * s))) * s;
        frontSheet(tip, knotY, (y) => -half(y), (y) => half(y), 2.5 * mm, tieColor, 8, 3);
        ellipsoid(body, onTorso(0, knotY + 0.006 * s, 3 * mm), [0.012 * s, 0.01 * s, 0.007 * s], 5, 8, () => shade(tieColor, 0.92), (p) => torsoSkin(p));
      }
      if (coat) frontSheet(hem! + 0.005 * s, vBottom - 0.01 * s, () => -0.002 * s, () => 0.002 * s, 1.5 * mm, shade(top, 0.8), 4, 2);
      break;
    }
    case 'cardigan': {
      // The blouse between the open fronts, and the button bands.
      const half = (y: number) => Math.max(0.03 * s, vHalf(y));
      frontSheet(hips[1] + 0.05 * s, vTop, (y) => -half(y), (y) => half(y), 1.5 * mm, inner);
      for (const side of [1, -1]) {
        frontSheet(hips[1] + 0.04 * s, vTop, (y) => side * half(y) - (side < 0 ? 0.012 * s : 0), (y) => side * half(y) + (side > 0 ? 0.012 * s : 0), 2.5 * mm, shade(top, 0.86), 6, 2);
      }
      break;
    }
    case 'shirt': {
      // An open collar (skin in a small V) and the button placket below it.
      const openFrom = vTop - 0.06 * s;
      frontSheet(openFrom, vTop, (y) => -0.04 * s * smoothstep(openFrom, vTop, y), (y) => 0.04 * s * smoothstep(openFrom, vTop, y), 1.5 * mm, shade(skinColor, 0.93), 4, 3);
      frontSheet(hips[1] + 0.02 * s, openFrom, () => -0.007 * s, () => 0.007 * s, 1.5 * mm, shade(top, 0.9), 6, 2);
      break;
    }
    case 'hoodie': {
      // The front pocket and the drawstrings.
      frontSheet(hips[1] + 0.03 * s, hips[1] + 0.15 * s, (y) => -0.085 * s + 0.02 * s * smoothstep(hips[1] + 0.1 * s, hips[1] + 0.15 * s, y), (y) => 0.085 * s - 0.02 * s * smoothstep(hips[1] + 0.1 * s, hips[1] + 0.15 * s, y), 2 * mm, shade(top, 0.88), 4, 4);
      for (const side of [1, -1]) frontSheet(vTop - 0.14 * s, vTop - 0.01 * s, () => side * 0.03 * s - 0.003 * s, () => side * 0.03 * s + 0.003 * s, 2.5 * mm, character.colors.accent ?? inner, 4, 2);
      break;
    }
    case 'sweater':
      break;
  }
  if (character.outfit === 'hoodie') {
    // The hood, lying on the shoulders behind the neck.
    ellipsoid(body, [0, shoulderY + 0.045 * s, -0.07 * s], [0.1 * s, 0.05 * s, 0.06 * s], 8, 16, () => shade(top, 0.92), () => rigid('Spine2'));
  }

  // Arms and hands.
  for (const sideSign of [1, -1]) {
    const side = sideSign > 0 ? 'Left' : 'Right';
    const shoulder = at(`${side}Shoulder`);
    const arm = at(`${side}Arm`);
    const fore = at(`${side}ForeArm`);
    const hand = at(`${side}Hand`);
    const g = girth ** 0.7 * s;
    const ringAt = (x: number, ry: number, rz: number, dy = 0): Ring => ({ c: [x, arm[1] + dy, arm[2]], r: [ry * g, rz * g] });
    const rings = [
      ringAt(shoulder[0] * 0.7, 0.058, 0.058, -0.004 * s),
      ringAt(arm[0], 0.052, 0.05),
      ringAt(lerp(arm[0], fore[0], 0.5), 0.045, 0.043),
      ringAt(fore[0], 0.038, 0.037),
      ringAt(lerp(fore[0], hand[0], 0.45), 0.039, 0.035),
      ringAt(hand[0] - sideSign * 0.015 * s, 0.028, 0.023),
      ringAt(hand[0] + sideSign * 0.01 * s, 0.02, 0.015),
    ];
    const sleeveEnd = character.outfit === 'shirt' ? lerp(arm[0], fore[0], 0.55) : hand[0] - sideSign * 0.03 * s;
    const cuff = ['suit', 'blazer'].includes(character.outfit);
    const edges = [-0.003, 0.003, 0.009, 0.015].map((dx) => sleeveEnd + sideSign * dx * s);
    loft(
      body,
      sideSign > 0 ? 'x' : '-x',
      refine(rings, 0, edges),
      14,
      (p) => {
        const x = p[0] * sideSign;
        if (x > sleeveEnd * sideSign + 0.012 * s) return skinColor;
        if (x > sleeveEnd * sideSign) return cuff ? inner : shade(top, 0.85);
        return top;
      },
      (p) => {
        const x = p[0] * sideSign;
        if (x <= arm[0] * sideSign) return blend(`${side}Shoulder`, `${side}Arm`, smoothstep(shoulder[0] * sideSign, arm[0] * sideSign + 0.02 * s, x));
        if (x <= fore[0] * sideSign + 0.04 * s) return blend(`${side}Arm`, `${side}ForeArm`, smoothstep(fore[0] * sideSign - 0.04 * s, fore[0] * sideSign + 0.04 * s, x));
        return blend(`${side}ForeArm`, `${side}Hand`, smoothstep(hand[0] * sideSign - 0.03 * s, hand[0] * sideSign + 0.01 * s, x));
      },
    );
    // The palm, then five fingers through their bones.
    ellipsoid(body, [hand[0] + sideSign * 0.047 * s, hand[1], hand[2] + 0.002 * s], [0.048 * s, 0.017 * s, 0.041 * s], 8, 12, () => skinColor, () => rigid(`${side}Hand`));
    for (const finger of ['Thumb', 'Index', 'Middle', 'Ring', 'Pinky']) {
      const names = [1, 2, 3, 4].map((i) => `${side}Hand${finger}${i}`);
      const radius = (finger === 'Thumb' ? 0.0105 : finger === 'Pinky' ? 0.0078 : 0.0088) * s * girth ** 0.5;
      const points = names.map((n, i) => ({ p: at(n), r: radius * (1 - i * 0.08) }));
      tube(body, points, 7, () => skinColor, (_p, segment, t) => (t === 1 && segment < 2 ? blend(names[segment]!, names[segment + 1]!, 0.5) : rigid(names[Math.min(segment, 2)]!)));
    }
  }

  // Legs and shoes.
  for (const sideSign of [1, -1]) {
    const side = sideSign > 0 ? 'Left' : 'Right';
    const upLeg = at(`${side}UpLeg`);
    const knee = at(`${side}Leg`);
    const foot = at(`${side}Foot`);
    const toe = at(`${side}ToeBase`);
    const g = girth ** 0.8 * s;
    const ring = (y: number, rx: number, rz: number, dz = 0): Ring => ({ c: [lerp(upLeg[0], knee[0] * 0.9, clamp01((upLeg[1] - y) / (upLeg[1] - knee[1]))), y, dz * s], r: [rx * g, rz * g] });
    const rings = [
      ring(upLeg[1] + 0.06 * s, 0.094, 0.092),
      ring(upLeg[1] - 0.06 * s, 0.088, 0.086),
      ring(lerp(upLeg[1], knee[1], 0.55), 0.064, 0.07),
      ring(knee[1] + 0.02 * s, 0.05, 0.054),
      ring(knee[1] - 0.11 * s, 0.05, 0.058, -0.008),
      ring(foot[1] + 0.09 * s, 0.036, 0.038),
      ring(foot[1] + 0.03 * s, 0.034, 0.036),
      ring(foot[1] - 0.02 * s, 0.03, 0.032),
    ];
    const bare = (y: number) => character.skirt && y < knee[1] + 0.05 * s;
    loft(body, '-y', character.skirt ? refine(rings, 1, [knee[1] + 0.047 * s, knee[1] + 0.053 * s]) : rings, 14, (p) => (bare(p[1]) ? shade(skinColor, 0.92) : legs), (p) => {
      const y = p[1];
      if (y > upLeg[1] - 0.02 * s) return blend('Hips', `${side}UpLeg`, smoothstep(upLeg[1] + 0.07 * s, upLeg[1] - 0.04 * s, y));
      if (y > knee[1] - 0.05 * s) return blend(`${side}UpLeg`, `${side}Leg`, smoothstep(knee[1] + 0.05 * s, knee[1] - 0.05 * s, y));
      return blend(`${side}Leg`, `${side}Foot`, smoothstep(foot[1] + 0.06 * s, foot[1], y));
    });
    const shoeCentre: Vec3 = [foot[0], 0.046 * s, foot[2] + 0.035 * s];
    ellipsoid(
      body,
      shoeCentre,
      [0.046 * s, 0.05 * s, 0.13 * s],
      10,
      14,
      (p) => (p[1] < 0.014 * s ? shade(shoes, 0.55) : shoes),
      (p) => blend(`${side}Foot`, `${side}ToeBase`, smoothstep(toe[2] - 0.04 * s, toe[2] + 0.03 * s, p[2])),
      'body',
      { deform: (p) => [p[0], Math.max(p[1], 0.004 * s), p[2]] },
    );
  }

  // Hair.
  const hairColor = character.hair.color;
  const style = character.hair.style;
  const volume = { short: 0.007, buzz: 0.003, 'side-part': 0.011, curly: 0.02, receding: 0.005, bob: 0.012, long: 0.011, bun: 0.005, ponytail: 0.006, puffs: 0.005 }[style] * hs;
  const reach: Record<typeof style, [number, number, number]> = {
    short: [1.0, 1.62, 1.98],
    buzz: [0.98, 1.58, 1.95],
    'side-part': [0.95, 1.64, 1.98],
    curly: [0.92, 1.68, 2.02],
    receding: [1.28, 1.78, 2.0],
    bob: [1.0, 2.05, 2.2],
    long: [0.98, 2.35, 2.45],
    bun: [0.9, 1.55, 1.92],
    ponytail: [0.92, 1.55, 1.92],
    puffs: [0.9, 1.5, 1.9],
  };
  const [front, sideReach, back] = reach[style];
  const hang = style === 'long' ? 0.26 * s : style === 'bob' ? 0.05 * s : 0;
  const hangFrom = 1.7;
  const hairR: Vec3 = [R[0] + volume + 0.002, R[1] + volume + 0.002, R[2] + volume + 0.002];
  ellipsoid(
    body,
    c,
    hairR,
    style === 'long' || style === 'bob' ? 16 : 12,
    32,
    (_p, u) => shade(hairColor, 0.9 + 0.15 * u[1]),
    () => onHead,
    'hair',
    {
      from: style === 'receding' ? 0.95 : 0,
      // A receding hairline keeps only the sides and the back.
      to: (az) => (style === 'receding' ? lerp(0.97, lerp(1.55, 2.0, smoothstep(Math.PI / 2, Math.PI, fold(az))), smoothstep(1.0, 1.45, fold(az))) : around(az, front, sideReach, back)),
      deform: (p, unit, az, polar) => {
        let q = headDeform(p);
        if (style === 'side-part' && unit[1] > 0.3) q = [q[0], q[1] + 0.006 * hs * Math.max(0, unit[0] + 0.3), q[2]];
        if (style === 'curly') {
          // Curls all over, calming down toward the hairline so the edge stays clean.
          const edge = 1 - smoothstep(around(az, front, sideReach, back) - 0.4, around(az, front, sideReach, back), polar);
          const bump = 1 + 0.09 * edge * Math.sin(az * 9) * Math.sin(polar * 7);
          q = [c[0] + (q[0] - c[0]) * bump, c[1] + (q[1] - c[1]) * bump, c[2] + (q[2] - c[2]) * bump];
        }
        if (hang > 0 && polar > hangFrom) {
          // Below the ears the hair falls straight instead of closing under the head.
          const ringR = Math.sin(hangFrom);
          const x = c[0] + hairR[0] * ringR * Math.sin(az) * (1 + 0.12 * (polar - hangFrom));
          const z = c[2] + hairR[2] * ringR * Math.cos(az) * (1 + 0.05 * (polar - hangFrom)) - 0.01 * hs;
          const endPolar = around(az, front, sideReach, back);
          const fall = (polar - hangFrom) / Math.max(0.01, endPolar - hangFrom);
          q = [x * (1 - 0.25 * jawNarrowing), c[1] + hairR[1] * Math.cos(hangFrom) - fall * (hang + 0.04 * hs), z];
        }
        return q;
      },
    },
  );
  if (style === 'bun') ellipsoid(body, [0, c[1] + 0.055 * hs, c[2] - 0.085 * hs], [0.038 * hs, 0.036 * hs, 0.036 * hs], 8, 14, () => hairColor, () => onHead, 'hair');
  if (style === 'ponytail') {
    tube(body, [{ p: [0, c[1] + 0.03 * hs, c[2] - 0.095 * hs], r: 0.022 * hs }, { p: [0, c[1] - 0.06 * hs, c[2] - 0.12 * hs], r: 0.024 * hs }, { p: [0, c[1] - 0.17 * hs, c[2] - 0.11 * hs], r: 0.012 * hs }], 10, (_p, t) => shade(hairColor, 1 - 0.15 * t), () => onHead, 'hair');
  }
  if (style === 'puffs') {
    for (const sideSign of [1, -1]) {
      ellipsoid(body, [sideSign * 0.06 * hs, c[1] + 0.075 * hs, c[2] - 0.025 * hs], [0.05 * hs, 0.048 * hs, 0.05 * hs], 10, 16, () => hairColor, () => onHead, 'hair', {
        deform: (p, _u, az, polar) => {
          const bump = 1 + 0.05 * Math.sin(az * 8) * Math.sin(polar * 6);
          const centre: Vec3 = [sideSign * 0.06 * hs, c[1] + 0.075 * hs, c[2] - 0.025 * hs];
          return [centre[0] + (p[0] - centre[0]) * bump, centre[1] + (p[1] - centre[1]) * bump, centre[2] + (p[2] - centre[2]) * bump];
        },
      });
    }
  }

  // Glasses: two rims, a bridge and the temples back to the ears.
  if (character.glasses) {
    const frame: RGB = character.glasses === 'round' ? [0.32, 0.2, 0.12] : [0.08, 0.08, 0.1];
    const rim: [number, number] = character.glasses === 'round' ? [0.0175 * hs, 0.0165 * hs] : [0.0205 * hs, 0.0145 * hs];
    const z = eyeZ + eyeR + 0.008 * hs;
    for (const sideSign of [1, -1]) {
      torus(body, [sideSign * eyeX, eyeY - 0.001 * hs, z], rim, 0.0017 * hs, 20, 5, () => frame, () => onHead, () => 'glasses');
      tube(body, [{ p: [sideSign * (eyeX + rim[0]), eyeY + 0.004 * hs, z - 0.002 * hs], r: 0.0016 * hs }, { p: [sideSign * (R[0] + 0.001 * hs), eyeY + 0.004 * hs, c[2] + 0.005 * hs], r: 0.0016 * hs }], 5, () => frame, () => onHead, 'glasses');
    }
    tube(body, [{ p: [eyeX - rim[0], eyeY + 0.004 * hs, z], r: 0.0017 * hs }, { p: [-(eyeX - rim[0]), eyeY + 0.004 * hs, z], r: 0.0017 * hs }], 5, () => frame, () => onHead, 'glasses');
  }

  return { bones, head, body, morphs: faceMorphs(head, { c, mouth, lipA, jawDrop, hs, eyeX, eyeY, eyeZ }) };
};

const rotateX = (p: Vec3, centre: Vec3, angle: number): Vec3 => {
  const y = p[1] - centre[1];
  const z = p[2] - centre[2];
  return [p[0], centre[1] + y * Math.cos(angle) - z * Math.sin(angle), centre[2] + y * Math.sin(angle) + z * Math.cos(angle)];
};

interface Face {
  c: Vec3;
  mouth: Vec3;
  lipA: number;
  jawDrop: number;
  hs: number;
  eyeX: number;
  eyeY: number;
  eyeZ: number;
}

/** Every morph target of the face mesh, as position deltas. */
const faceMorphs = (head: MeshBuilder, face: Face): Morph[] => {
  const count = head.vertexCount;
  const point = (i: number): Vec3 => [head.positions[i * 3]!, head.positions[i * 3 + 1]!, head.positions[i * 3 + 2]!];
  const morph = (name: string, delta: (p: Vec3, tag: string) => Vec3): Morph => {
    const deltas = new Float32Array(count * 3);
    for (let i = 0; i < count; i++) {
      const [dx, dy, dz] = delta(point(i), head.tags[i]!);
      deltas[i * 3] = dx;
      deltas[i * 3 + 1] = dy;
      deltas[i * 3 + 2] = dz;
    }
    return { name, deltas };
  };
  const mouthMorph = (name: string, shape: MouthShape) => morph(name, (p, tag) => mouthDelta(face, shape, p, tag));
  const morphs: Morph[] = [];
  for (const viseme of visemes) morphs.push(mouthMorph(visemeMorph(viseme), visemeShapes[viseme]));
  for (const side of [1, -1]) {
    const centre: Vec3 = [side * face.eyeX, face.eyeY, face.eyeZ];
    const lid = side > 0 ? 'lidL' : 'lidR';
    morphs.push(
      morph(side > 0 ? 'eyeBlinkLeft' : 'eyeBlinkRight', (p, tag) => {
        if (tag !== lid) return [0, 0, 0];
        const q = rotateX(p, centre, 1.25);
        return [q[0] - p[0], q[1] - p[1], q[2] - p[2]];
      }),
    );
  }
  morphs.push(mouthMorph('jawOpen', expressionShapes.jawOpen!));
  morphs.push(mouthMorph('mouthSmileLeft', expressionShapes.mouthSmileLeft!));
  morphs.push(mouthMorph('mouthSmileRight', expressionShapes.mouthSmileRight!));
  morphs.push(
    morph('browInnerUp', (p, tag) => {
      if (tag !== 'browL' && tag !== 'browR') return [0, 0, 0];
      const inner = 1 - smoothstep(0.012 * face.hs, 0.045 * face.hs, Math.abs(p[0]));
      return [0, 0.0045 * face.hs * inner + 0.001 * face.hs, 0.0005 * face.hs * inner];
    }),
  );
  morphs.push(mouthMorph('mouthFrownLeft', expressionShapes.mouthFrownLeft!));
  morphs.push(mouthMorph('mouthFrownRight', expressionShapes.mouthFrownRight!));
  return morphs;
};

/** How the mouth model moves one vertex of the face for `shape`. */
const mouthDelta = (face: Face, shape: MouthShape, p: Vec3, tag: string): Vec3 => {
  const { mouth, lipA, jawDrop, hs } = face;
  const { jaw = 0, wide = 0, round = 0, upperUp = 0, lowerIn = 0, press = 0, smileL = 0, smileR = 0, frownL = 0, frownR = 0 } = shape;
  const rx = p[0] - mouth[0];
  const ry = p[1] - mouth[1];
  const across = Math.min(1, Math.abs(rx) / lipA);
  const corner = across * across;
  const left = rx > 0 ? 1 : 0;
  const smile = left ? smileL : smileR;
  const frown = left ? frownL : frownR;
  const widthChange = 0.24 * wide - 0.36 * round;
  const pucker = round * 0.0065 * hs * (1 - 0.6 * corner);
  const cornerLift = (0.0055 * smile - 0.0045 * frown) * hs * corner;
  const cornerOut = Math.sign(rx) * 0.0035 * hs * smile * corner;
  switch (tag) {
    case 'lipU':
    case 'moustache':
      return [rx * widthChange + cornerOut, (0.0032 * upperUp - 0.0011 * press) * hs + round * 0.0012 * hs + cornerLift, pucker + press * 0.0015 * hs];
    case 'lipL':
      return [
        rx * widthChange + cornerOut,
        -jaw * jawDrop * (1 - 0.25 * corner) + (0.0011 * press + 0.0026 * lowerIn) * hs - round * 0.0012 * hs + cornerLift,
        pucker + press * 0.0015 * hs - lowerIn * 0.0042 * hs,
      ];
    case 'mouth': {
      const lower = clamp01(0.5 - ry / (0.0084 * hs));
      return [rx * widthChange * 0.9, -jaw * jawDrop * lower * (1 - 0.3 * corner) + cornerLift * 0.5, pucker * 0.5];
    }
    case 'teethU':
      return [rx * Math.min(0, widthChange) * 0.5, 0, 0];
    case 'teethL':
      return [rx * Math.min(0, widthChange) * 0.5, -jaw * jawDrop * 0.92 + lowerIn * 0.001 * hs, 0];
    case 'skin':
    case 'beard': {
      if (p[2] < face.c[2]) return [0, 0, 0];
      const dist = Math.hypot(rx, ry);
      const nearMouth = 1 - smoothstep(0.012 * hs, 0.04 * hs, dist);
      const chin = smoothstep(0.003 * hs, -0.03 * hs, ry) * (1 - smoothstep(0.045 * hs, 0.08 * hs, Math.abs(rx)));
      const cornerDist = Math.hypot(Math.abs(rx) - lipA, ry);
      const cheek = 1 - smoothstep(0.004 * hs, 0.035 * hs, cornerDist);
      return [
        rx * widthChange * nearMouth * 0.7 + Math.sign(rx) * 0.0025 * hs * smile * cheek,
        -jaw * jawDrop * chin + (0.004 * smile - 0.0035 * frown) * hs * cheek,
        pucker * nearMouth * 0.6,
      ];
    }
    default:
      return [0, 0, 0];
  }
};
