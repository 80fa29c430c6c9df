/**
 * The headset's panel: whose turn it is (the room's status line), whether you are talking, your
 * hand, the last lines (or your brief), what went wrong with the hardware, and buttons to raise
 * your hand, mute, type, read the brief, exit VR, turn, recentre, sit or stand, and pin the panel.
 *
 * It sits in the lower third of the forward view (PANEL_BELOW_DEG under the horizon, PANEL_DISTANCE
 * away, tilted to face the eyes), never over a face, and follows the head lazily: it stays put
 * while the head turns less than FOLLOW_AFTER_DEG, then glides back in front; pinned, it stays
 * where it is. Text is at least a degree of visual angle (canvas-panel.ts), drawn on one canvas
 * texture; a controller's ray or a hand's points at a button, the trigger or a pinch presses it (as
 * it goes down: a headset draws a frame or two while a trigger is pulled, and a slow pull is still a press).
 *
 * ```tsx
 * <VrPanel view={view} session={session} vr={vr} voiceIn onExit={() => session.end()} />
 * ```
 */
import { useFrame, useThree, type ThreeEvent } from '@react-three/fiber';
import { useEffect, useMemo, useRef } from 'react';
import * as THREE from 'three';
import { nameOf, type RoomView } from '../state/room';
import { roomStatus, statusText } from '../state/status';
import { shownLines } from '../state/transcript';
import { buttonAt, drawButtons, PANEL_DISTANCE, PIXELS_PER_METRE, row, wrap, type PanelButton } from '../xr/canvas-panel';
import { VrKeyboard } from '../xr/keyboard';
import { registerTarget } from '../xr/targets';
import { useVrState, type VrState, type VrStore } from '../xr/vr-state';
import type { Session } from './session';

const WIDTH = 1200;
const HEIGHT = 600;
/**
 * The panel's centre below the horizon of the eyes. Its top edge is then 20.7° down: inside the lower
 * third of a Quest 3's ~96° tall view (below 20.3°), and of the emulator's 90° (below 18.4°).
 */
export const PANEL_BELOW_DEG = 32;
/** How far the head turns from the panel before it follows. */
const FOLLOW_AFTER_DEG = 25;
/** How far the head moves (leaning, metres) before the panel follows. */
const MOVE_AFTER = 0.15;
/** How quickly it glides back in front (1/s). */
const GLIDE = 5;
const font = { status: 38, body: 32, button: 30 };
const PAD = 24;

const buttonsFor = (s: VrState, handUp: boolean, voiceIn: boolean): PanelButton[] => [
  ...row(
    [
      { id: 'hand', label: handUp ? 'Lower hand' : 'Raise hand', on: handUp },
      { id: 'mute', label: !voiceIn ? 'No voice input' : s.muted ? 'Unmute' : 'Mute', on: voiceIn && s.muted, disabled: !voiceIn },
      { id: 'keyboard', label: 'Keyboard', on: s.keyboard },
      { id: 'brief', label: 'Brief', on: s.brief },
      { id: 'exit', label: 'Exit VR' },
    ],
    PAD,
    HEIGHT - 2 * 72 - PAD - 10,
    WIDTH - 2 * PAD,
    72,
  ),
  ...row(
    [
      { id: 'turn-left', label: '↶ Turn' },
      { id: 'turn-right', label: 'Turn ↷' },
      { id: 'recentre', label: 'Recentre' },
      { id: 'stance', label: s.stance === 'seated' ? 'Seated' : 'Standing' },
      { id: 'pin', label: s.pinned ? 'Unpin' : 'Pin', on: s.pinned },
    ],
    PAD,
    HEIGHT - 72 - PAD,
    WIDTH - 2 * PAD,
    72,
  ),
];

/** What the panel's middle shows: the brief, or the last lines that fit. */
const bodyText = (view: RoomView, s: VrState): { text: string; colour: string }[] => {
  if (s.brief) {
    const snapshot = view.snapshot;
    return [
      ...(snapshot?.scene.context ? [{ text: snapshot.scene.context, colour: '#ffffff' }] : []),
      ...(snapshot?.brief?.goals ?? []).map((goal) => ({ text: `• ${goal}`, colour: '#c9e3ff' })),
    ];
  }
  return shownLines(view)
    .slice(-4)
    .map((l) => ({ text: `${nameOf(view, l.speaker)}: ${l.text}`, colour: l.speaker === view.you?.participant ? '#c9e3ff' : '#ffffff' }));
};

export const VrPanel = ({ view, session, vr, voiceIn, onExit }: { view: RoomView; session: Session; vr: VrStore; voiceIn: boolean; onExit(): void }) => {
  const state = useVrState(vr, (s) => s);
  const canvas = useMemo(() => Object.assign(document.createElement('canvas'), { width: WIDTH, height: HEIGHT }), []);
  const texture = useMemo(() => Object.assign(new THREE.CanvasTexture(canvas), { colorSpace: THREE.SRGBColorSpace }), [canvas]);
  const me = view.you?.participant ?? null;
  const handUp = me !== null && view.hands.includes(me);
  const buttons = useMemo(() => buttonsFor(state, handUp, voiceIn), [state, handUp, voiceIn]);
  const buttonsRef = useRef(buttons);
  buttonsRef.current = buttons;
  const mesh = useRef<THREE.Mesh>(null);
  const group = useRef<THREE.Group>(null);

  useEffect(() => registerTarget('panel', { mesh: mesh.current!, canvas, buttons: () => buttonsRef.current }), [canvas]);
  useEffect(() => () => texture.dispose(), [texture]);

  useEffect(() => {
    const ctx = canvas.getContext('2d')!;
    ctx.clearRect(0, 0, WIDTH, HEIGHT);
    ctx.fillStyle = 'rgba(20, 24, 30, 0.9)';
    ctx.beginPath();
    ctx.roundRect(0, 0, WIDTH, HEIGHT, 24);
    ctx.fill();
    let y = PAD + font.status;
    ctx.fillStyle = '#ffffff';
    ctx.font = `bold ${font.status}px sans-serif`;
    ctx.fillText(statusText(view, roomStatus(view, performance.now())), PAD, y, WIDTH - 2 * PAD - 260);
    // The talking light: lit while push-to-talk is held or the server hears you.
    const talking = state.talking || (me !== null && view.talking.includes(me));
    ctx.fillStyle = talking ? '#d32f2f' : '#3a4048';
    ctx.beginPath();
    ctx.roundRect(WIDTH - PAD - 240, PAD - 4, 240, 56, 28);
    ctx.fill();
    ctx.fillStyle = '#ffffff';
    ctx.font = `bold ${font.button}px sans-serif`;
    ctx.fillText(talking ? '● Talking' : state.muted ? 'Muted' : voiceIn ? 'Hold to talk' : 'Type to talk', WIDTH - PAD - 220, PAD + 34, 200);

    ctx.font = `${font.body}px sans-serif`;
    y += 16;
    const notices = Object.values(state.notices);
    for (const line of notices.flatMap((n) => wrap(ctx, n, WIDTH - 2 * PAD)).slice(0, 3)) {
      y += font.body + 8;
      ctx.fillStyle = '#ffcc66';
      ctx.fillText(line, PAD, y);
    }
    const bottom = HEIGHT - 2 * 72 - PAD - 10 - 12;
    const room = Math.max(0, Math.floor((bottom - y) / (font.body + 8)));
    const lines = bodyText(view, state).flatMap(({ text, colour }) => wrap(ctx, text, WIDTH - 2 * PAD).map((line) => ({ line, colour })));
    for (const { line, colour } of state.brief ? lines.slice(0, room) : lines.slice(-room)) {
      y += font.body + 8;
      ctx.fillStyle = colour;
      ctx.fillText(line, PAD, y);
    }
    drawButtons(ctx, buttons, font.button);
    texture.needsUpdate = true;
  }, [view, state, me, canvas, texture, buttons, voiceIn]);

  const press = (e: ThreeEvent<PointerEvent>) => {
    e.stopPropagation();
    const s = vr.get();
    switch (buttonAt(buttonsRef.current, e.uv, canvas)?.id) {
      case 'hand':
        return session.setHand(!handUp);
      case 'mute':
        return vr.set({ muted: !s.muted });
      case 'keyboard':
        return vr.set({ keyboard: !s.keyboard });
      case 'brief':
        return vr.set({ brief: !s.brief });
      case 'exit':
        return onExit();
      case 'turn-left':
        return vr.set({ turns: s.turns - 1 });
      case 'turn-right':
        return vr.set({ turns: s.turns + 1 });
      case 'recentre':
        return vr.recentre();
      case 'stance':
        return vr.set({ stance: s.stance === 'seated' ? 'standing' : 'seated' });
      case 'pin':
        return vr.set({ pinned: !s.pinned });
    }
  };

  useFollowHead(group, state.pinned, state.placed);

  const below = THREE.MathUtils.degToRad(PANEL_BELOW_DEG);
  return (
    // Hidden until the eyes are known (useFollowHead).
    <group ref={group} visible={false}>
      {/* Tilted to face the eyes from below; the keyboard rises above it, between it and the room. */}
      <group position={[0, -PANEL_DISTANCE * Math.sin(below), -PANEL_DISTANCE * Math.cos(below)]} rotation={[-below, 0, 0]}>
        <mesh ref={mesh} onPointerDown={press}>
          <planeGeometry args={[WIDTH / PIXELS_PER_METRE, HEIGHT / PIXELS_PER_METRE]} />
          <meshBasicMaterial map={texture} transparent toneMapped={false} />
        </mesh>
        {state.keyboard && (
          <VrKeyboard
            position={[0, (HEIGHT / PIXELS_PER_METRE) * 0.5 + 0.15, 0.02]}
            onSend={(text) => session.say(text)}
            onTyping={(active) => session.send({ type: 'typing', active })}
          />
        )}
      </group>
    </group>
  );
};

/**
 * Keeps `group` at the eyes, turned to the head's heading, lazily: it follows only once the head has
 * turned FOLLOW_AFTER_DEG away, or leant MOVE_AFTER away, and then glides until it is in front again.
 * When the origin moves (`placed`: a recentre, a snap turn, sitting or standing) it comes back in
 * front at once, as the view itself jumped.
 *
 * The camera takes the headset's pose, and a new origin, only when an XR frame is drawn: the panel
 * is first placed, and placed again after the origin moves, two XR frames later. Placed from the
 * camera before that (the desktop's, a few centimetres off), it would stay there, inside MOVE_AFTER.
 */
const useFollowHead = (group: React.RefObject<THREE.Group | null>, pinned: boolean, placed: number) => {
  const { camera } = useThree();
  const eye = useMemo(() => new THREE.Vector3(), []);
  const forward = useMemo(() => new THREE.Vector3(), []);
  const follow = useRef({ placed: false, gliding: false, origin: placed, wait: 2 });
  useFrame((_, delta, frame?: XRFrame) => {
    const f = follow.current;
    if (f.origin !== placed) [f.origin, f.wait, f.placed] = [placed, 2, false];
    if (f.wait > 0) {
      if (frame) f.wait--;
      return;
    }
    const g = group.current;
    if (!g || pinned) return;
    camera.getWorldPosition(eye);
    camera.getWorldDirection(forward);
    // Straight up or down the heading is undefined: keep the last.
    if (Math.hypot(forward.x, forward.z) < 0.1) return;
    const heading = Math.atan2(-forward.x, -forward.z);
    const turn = Math.atan2(Math.sin(heading - g.rotation.y), Math.cos(heading - g.rotation.y));
    const moved = g.position.distanceTo(eye) > MOVE_AFTER;
    if (!f.placed) {
      g.position.copy(eye);
      g.rotation.set(0, heading, 0);
      g.visible = f.placed = true;
      return;
    }
    if (moved || Math.abs(turn) > THREE.MathUtils.degToRad(FOLLOW_AFTER_DEG)) f.gliding = true;
    if (!f.gliding) return;
    const k = 1 - Math.exp(-GLIDE * delta);
    g.rotation.y += turn * k;
    g.position.lerp(eye, k);
    if (Math.abs(turn) < THREE.MathUtils.degToRad(1) && g.position.distanceTo(eye) < 0.01) f.gliding = false;
  });
};
