/**
 * The headset's floating panel: the last transcript lines, the room's status line, your hand and your
 * microphone. It floats low in front of your seat (below eye level, never over a face), drawn on a
 * canvas texture (no font files), readable at arm's length.
 */
import { useEffect, useMemo } from 'react';
import * as THREE from 'three';
import { nameOf, type RoomView } from '../state/room';
import { roomStatus, statusText } from '../state/status';
import { shownLines } from '../state/transcript';
import type { Seat } from '../scene/layout';
import type { Session } from './session';

const WIDTH = 1024;
const HEIGHT = 512;

const wrap = (ctx: CanvasRenderingContext2D, text: string, width: number): string[] => {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    const next = line ? `${line} ${word}` : word;
    if (ctx.measureText(next).width > width && line) {
      lines.push(line);
      line = word;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines;
};

export const VrPanel = ({ view, seat, session }: { view: RoomView; seat: Seat; session: Session }) => {
  const canvas = useMemo(() => Object.assign(document.createElement('canvas'), { width: WIDTH, height: HEIGHT }), []);
  const texture = useMemo(() => new THREE.CanvasTexture(canvas), [canvas]);
  const me = view.you?.participant ?? null;

  useEffect(() => {
    const ctx = canvas.getContext('2d')!;
    ctx.fillStyle = 'rgba(20, 24, 30, 0.88)';
    ctx.fillRect(0, 0, WIDTH, HEIGHT);
    ctx.fillStyle = '#fff';
    ctx.font = 'bold 40px sans-serif';
    ctx.fillText(statusText(view, roomStatus(view, performance.now())), 32, 60, WIDTH - 64);
    ctx.font = '30px sans-serif';
    const hand = me && view.hands.includes(me) ? '✋ hand raised' : 'hand down (A/X)';
    const mic = session.microphone() ? (me && view.talking.includes(me) ? '● mic live' : 'mic on (hold trigger)') : 'mic off';
    ctx.fillStyle = '#c9d1da';
    ctx.fillText(`${hand}   ·   ${mic}`, 32, 108);
    ctx.font = '32px sans-serif';
    let y = 170;
    const lines = shownLines(view).slice(-4).flatMap((l) => wrap(ctx, `${nameOf(view, l.speaker)}: ${l.text}`, WIDTH - 64));
    for (const line of lines.slice(-8)) {
      ctx.fillStyle = '#ffffff';
      ctx.fillText(line, 32, y);
      y += 42;
    }
    texture.needsUpdate = true;
  }, [view, me, canvas, texture, session]);

  // 0.55 m in front of the seat, 0.85 m high, tilted up toward the eyes.
  const forward = new THREE.Vector3(Math.sin(seat.yaw), 0, Math.cos(seat.yaw));
  const position: [number, number, number] = [seat.position[0] + forward.x * 0.55, seat.position[1] + 0.85, seat.position[2] + forward.z * 0.55];
  return (
    <mesh position={position} rotation={new THREE.Euler(-0.5, seat.yaw + Math.PI, 0, 'YXZ')}>
      <planeGeometry args={[0.6, 0.3]} />
      <meshBasicMaterial map={texture} transparent toneMapped={false} />
    </mesh>
  );
};
