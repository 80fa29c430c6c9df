/**
 * A participant's name floating above them, always facing the viewer, with a dot that lights while
 * they speak. One sprite; the canvas is redrawn only when the name or the speaking state changes.
 */
import { useEffect, useMemo } from 'react';
import { CanvasTexture, SRGBColorSpace } from 'three';

const size = { width: 512, height: 128 };
/** Metres wide in the room; the height follows the canvas. */
const worldWidth = 0.5;
const font = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

const draw = (canvas: HTMLCanvasElement, name: string, speaking: boolean) => {
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('NameTag: no 2D canvas context to draw the name on');
  const { width, height } = size;
  ctx.clearRect(0, 0, width, height);
  ctx.fillStyle = 'rgba(22, 27, 34, 0.72)';
  ctx.beginPath();
  ctx.roundRect(4, 14, width - 8, height - 28, (height - 28) / 2);
  ctx.fill();

  const dot = { x: 62, y: height / 2, r: 18 };
  if (speaking) {
    ctx.fillStyle = 'rgba(74, 222, 128, 0.35)';
    ctx.beginPath();
    ctx.arc(dot.x, dot.y, dot.r + 10, 0, 2 * Math.PI);
    ctx.fill();
  }
  ctx.fillStyle = speaking ? '#4ade80' : '#6b7280';
  ctx.beginPath();
  ctx.arc(dot.x, dot.y, dot.r, 0, 2 * Math.PI);
  ctx.fill();

  // Long names shrink to fit rather than run off the tag.
  const room = width - 120 - 36;
  let px = 54;
  ctx.font = `600 ${px}px ${font}`;
  while (px > 24 && ctx.measureText(name).width > room) ctx.font = `600 ${(px -= 2)}px ${font}`;
  ctx.fillStyle = '#ffffff';
  ctx.textBaseline = 'middle';
  ctx.fillText(name, 108, height / 2 + 2);
};

export interface NameTagProps {
  name: string;
  speaking: boolean;
}

export const NameTag = ({ name, speaking }: NameTagProps) => {
  const canvas = useMemo(() => Object.assign(document.createElement('canvas'), size), []);
  // The tag is never offset or repeated: its texture's transform need not be worked out every frame.
  const texture = useMemo(() => Object.assign(new CanvasTexture(canvas), { colorSpace: SRGBColorSpace, matrixAutoUpdate: false }), [canvas]);
  useEffect(() => {
    draw(canvas, name, speaking);
    texture.needsUpdate = true;
  }, [canvas, texture, name, speaking]);
  useEffect(() => () => texture.dispose(), [texture]);
  return (
    <sprite scale={[worldWidth, (worldWidth * size.height) / size.width, 1]}>
      <spriteMaterial map={texture} transparent depthWrite={false} />
    </sprite>
  );
};
