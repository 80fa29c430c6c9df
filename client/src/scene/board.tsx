/**
 * The shared content on its board: title, owner, summary and sections drawn with the 2D canvas
 * API in the system's sans-serif (no font files to fetch), shown unlit so it reads in any light.
 * Slides get a coloured title band; posters and documents a plain page.
 */
import { useEffect, useMemo } from 'react';
import { CanvasTexture, SRGBColorSpace } from 'three';
import type { ContentKind } from '../../../server/scene/schema';
import { boardSize } from './furniture';
import type { Focus } from './layout';

/** What the board needs of a scene's content (`Scene['contents'][number]` fits, so does a snapshot's). */
export interface BoardContent {
  kind: ContentKind;
  title: string;
  /** A party id, or "public" (not shown). */
  owner?: string;
  summary?: string;
  sections?: readonly string[];
}

/** Pixels on the board's long side: sharp enough to read a summary from a few metres. */
const resolution = 1024;
const font = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

/** Splits `text` into lines no wider than `width` at the context's current font. */
const lines = (ctx: CanvasRenderingContext2D, text: string, width: number): string[] => {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const next = line ? `${line} ${word}` : word;
    if (line && ctx.measureText(next).width > width) {
      out.push(line);
      line = word;
    } else line = next;
  }
  return line ? [...out, line] : out;
};

const draw = (canvas: HTMLCanvasElement, content: BoardContent) => {
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('Board: no 2D canvas context to draw the content on');
  const { width, height } = canvas;
  const pad = Math.round(width * 0.06);
  const text = width - 2 * pad;
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, width, height);

  const titleSize = Math.round(Math.min(width, height) * (content.kind === 'slides' ? 0.09 : 0.07));
  ctx.font = `700 ${titleSize}px ${font}`;
  const title = lines(ctx, content.title, text).slice(0, 3);
  const band = pad * 1.6 + title.length * titleSize * 1.2;
  if (content.kind === 'slides') {
    ctx.fillStyle = '#27496d';
    ctx.fillRect(0, 0, width, band);
  }
  ctx.fillStyle = content.kind === 'slides' ? '#ffffff' : '#1d2430';
  ctx.textBaseline = 'top';
  title.forEach((line, i) => ctx.fillText(line, pad, pad + i * titleSize * 1.2));

  let y = band + pad * 0.4;
  const small = Math.round(titleSize * 0.42);
  if (content.owner && content.owner !== 'public') {
    ctx.font = `500 ${small}px ${font}`;
    ctx.fillStyle = '#6b7280';
    ctx.fillText(content.owner, pad, y);
    y += small * 1.8;
  }
  const bodySize = Math.round(titleSize * 0.55);
  ctx.font = `400 ${bodySize}px ${font}`;
  ctx.fillStyle = '#273142';
  for (const line of lines(ctx, content.summary ?? '', text)) {
    if (y > height - pad - bodySize) return;
    ctx.fillText(line, pad, y);
    y += bodySize * 1.35;
  }
  y += bodySize * 0.6;
  for (const section of content.sections ?? []) {
    for (const [i, line] of lines(ctx, section, text - bodySize).entries()) {
      if (y > height - pad - bodySize) return;
      if (i === 0) ctx.fillText('•', pad, y);
      ctx.fillText(line, pad + bodySize, y);
      y += bodySize * 1.35;
    }
  }
};

export interface BoardProps {
  content: BoardContent;
  focus: Focus;
}

export const Board = ({ content, focus }: BoardProps) => {
  const [width, height] = boardSize(content.kind, focus);
  const texture = useMemo(() => {
    const canvas = document.createElement('canvas');
    const scale = resolution / Math.max(width, height);
    canvas.width = Math.round(width * scale);
    canvas.height = Math.round(height * scale);
    draw(canvas, content);
    const map = new CanvasTexture(canvas);
    map.colorSpace = SRGBColorSpace;
    map.anisotropy = 4;
    return map;
  }, [content, width, height]);
  useEffect(() => () => texture.dispose(), [texture]);
  // 2.5 cm in front of the board's centre, just clear of its frame.
  const [x, y, z] = focus.position;
  const lift = 0.025;
  return (
    <mesh position={[x + lift * Math.sin(focus.yaw), y, z + lift * Math.cos(focus.yaw)]} rotation-y={focus.yaw}>
      <planeGeometry args={[width, height]} />
      <meshBasicMaterial map={texture} toneMapped={false} />
    </mesh>
  );
};
