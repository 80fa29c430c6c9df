/**
 * A keyboard in the headset for typed lines (the server has no transcriber, or the trainee would
 * rather type): a grid of keys on one canvas texture, pointed at with a controller's ray or a hand's
 * and pressed with the trigger or a pinch; the line typed so far above the keys; Send says it.
 * While there is text the room is told the trainee is typing, as the desktop's text box does.
 *
 * ```tsx
 * <VrKeyboard position={[0, 0.3, 0]} onSend={(text) => session.say(text)} onTyping={(on) => session.send({ type: 'typing', active: on })} />
 * ```
 */
import type { ThreeEvent } from '@react-three/fiber';
import { useEffect, useMemo, useRef, useState } from 'react';
import * as THREE from 'three';
import { buttonAt, drawButtons, PIXELS_PER_METRE, row, type PanelButton } from './canvas-panel';
import { registerTarget } from './targets';

const WIDTH = 1200;
const HEIGHT = 520;
const letters = ['1234567890', 'qwertyuiop', "asdfghjkl'", 'zxcvbnm,.?'];
const KEY_HEIGHT = 74;
const TOP = 96;

const keysFor = (shift: boolean): PanelButton[] => [
  ...letters.flatMap((chars, r) =>
    row(
      [...chars].map((c) => ({ id: `key:${c}`, label: shift ? c.toUpperCase() : c })),
      20,
      TOP + r * (KEY_HEIGHT + 10),
      WIDTH - 40,
      KEY_HEIGHT,
      10,
    ),
  ),
  ...row(
    [
      { id: 'shift', label: '⇧ Shift', on: shift },
      { id: 'space', label: 'space' },
      { id: 'back', label: '⌫ Delete' },
      { id: 'send', label: 'Send ↵' },
    ],
    20,
    TOP + 4 * (KEY_HEIGHT + 10),
    WIDTH - 40,
    KEY_HEIGHT,
    10,
  ),
];

export const VrKeyboard = ({ position, onSend, onTyping }: { position: [number, number, number]; onSend(text: string): void; onTyping(active: boolean): void }) => {
  const [text, setText] = useState('');
  const [shift, setShift] = useState(false);
  const canvas = useMemo(() => Object.assign(document.createElement('canvas'), { width: WIDTH, height: HEIGHT }), []);
  const texture = useMemo(() => Object.assign(new THREE.CanvasTexture(canvas), { colorSpace: THREE.SRGBColorSpace }), [canvas]);
  const keys = useMemo(() => keysFor(shift), [shift]);
  const keysRef = useRef(keys);
  keysRef.current = keys;
  const mesh = useRef<THREE.Mesh>(null);

  useEffect(() => registerTarget('keyboard', { mesh: mesh.current!, canvas, buttons: () => keysRef.current }), [canvas]);
  useEffect(() => () => texture.dispose(), [texture]);
  // Typing ends when the keyboard closes with text still on it.
  useEffect(() => () => onTyping(false), []); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => {
    const ctx = canvas.getContext('2d')!;
    ctx.fillStyle = 'rgba(20, 24, 30, 0.92)';
    ctx.fillRect(0, 0, WIDTH, HEIGHT);
    ctx.fillStyle = '#0d1014';
    ctx.fillRect(20, 16, WIDTH - 40, 64);
    ctx.font = '34px sans-serif';
    ctx.fillStyle = text ? '#ffffff' : '#8a939e';
    const shown = text || 'Type a line, then Send';
    // The end of a long line stays in view.
    let start = 0;
    while (ctx.measureText(shown.slice(start)).width > WIDTH - 80) start++;
    ctx.fillText(shown.slice(start) + (text ? '▏' : ''), 36, 60);
    drawButtons(ctx, keys, 32);
    texture.needsUpdate = true;
  }, [canvas, texture, keys, text]);

  const edit = (next: string) => {
    setText(next);
    onTyping(next.length > 0);
  };
  const press = (e: ThreeEvent<PointerEvent>) => {
    e.stopPropagation();
    const key = buttonAt(keysRef.current, e.uv, canvas);
    if (!key) return;
    if (key.id === 'shift') return setShift(!shift);
    if (key.id === 'space') return edit(`${text} `);
    if (key.id === 'back') return edit(text.slice(0, -1));
    if (key.id === 'send') {
      if (text.trim()) onSend(text.trim());
      return edit('');
    }
    edit(text + key.label);
    setShift(false);
  };

  return (
    <mesh ref={mesh} position={position} onPointerDown={press}>
      <planeGeometry args={[WIDTH / PIXELS_PER_METRE, HEIGHT / PIXELS_PER_METRE]} />
      <meshBasicMaterial map={texture} transparent toneMapped={false} />
    </mesh>
  );
};
