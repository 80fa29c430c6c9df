/**
 * A shared content on its board, drawn with the 2D canvas API in the system's sans-serif (no font
 * files to fetch) and shown unlit so it reads in any light. Slides show their current slide: the
 * deck's title in a coloured band, that slide's point in large type, and its number; posters and
 * documents a page of title, owner, summary and sections. The type is as large as the page allows,
 * so a short document reads from across the room. A content with an uploaded image (`file`) shows
 * the image under its title instead, once it has loaded (read with the page's `UploadToken`).
 */
import { useContext, useEffect, useMemo, useState } from 'react';
import { CanvasTexture, SRGBColorSpace } from 'three';
import type { ContentKind } from '../../../shared/scene/schema';
import type { BoardPlace } from './layout';
import { isImageFile, UploadToken, useUploaded } from './uploaded';

/** What the board needs of a scene's content (`Scene['contents'][number]` fits, so does a snapshot's). */
export interface BoardContent {
  kind: ContentKind;
  title: string;
  /** A party id, or "public" (not shown). */
  owner?: string;
  summary?: string;
  sections?: readonly string[];
  /** An uploaded file (`<scene>/<name>`); an image is shown on the board. */
  file?: string;
}

/** Pixels on the board's long side: sharp enough to read a summary from a few metres. */
const resolution = 1024;
const font = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

/** The slides a deck has: one per section, or one (its summary) without sections, as the server counts them. */
export const slideCount = (content: BoardContent): number => Math.max(1, content.sections?.length ?? 0);

/** A run of text in the page's flow; sizes in ems of the page's type size. */
interface Block {
  text: string;
  em: number;
  weight: number;
  colour: string;
  bullet?: boolean;
  /** Space before it, in ems. */
  before?: number;
}

interface Laid {
  text: string;
  x: number;
  y: number;
  font: string;
  colour: string;
}

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

/** Lays `blocks` out from y = 0 at `unit` pixels per em within `width`; the lines and the height they take. */
const flow = (ctx: CanvasRenderingContext2D, blocks: readonly Block[], unit: number, width: number): { laid: Laid[]; height: number } => {
  const laid: Laid[] = [];
  let y = 0;
  for (const block of blocks) {
    const size = block.em * unit;
    const indent = block.bullet ? size : 0;
    ctx.font = `${block.weight} ${Math.round(size)}px ${font}`;
    y += (block.before ?? 0) * unit;
    for (const [i, line] of lines(ctx, block.text, width - indent).entries()) {
      if (block.bullet && i === 0) laid.push({ text: '•', x: 0, y, font: ctx.font, colour: block.colour });
      laid.push({ text: line, x: indent, y, font: ctx.font, colour: block.colour });
      y += size * 1.3;
    }
  }
  return { laid, height: y };
};

/**
 * Draws `blocks` in the box at (`left`, `top`), `width` by `height`: at the largest type up to
 * `largest` pixels per em that fits, down to `smallest`, below which what does not fit is left off.
 */
const fit = (ctx: CanvasRenderingContext2D, blocks: readonly Block[], box: { left: number; top: number; width: number; height: number }, largest: number, smallest: number) => {
  let unit = largest;
  let page = flow(ctx, blocks, unit, box.width);
  while (page.height > box.height && unit > smallest) {
    unit = Math.max(smallest, unit * 0.92);
    page = flow(ctx, blocks, unit, box.width);
  }
  ctx.textBaseline = 'top';
  for (const line of page.laid) {
    if (line.y + unit > box.height) return;
    ctx.font = line.font;
    ctx.fillStyle = line.colour;
    ctx.fillText(line.text, box.left + line.x, box.top + line.y);
  }
};

const ownerLine = (content: BoardContent): Block[] =>
  content.owner && content.owner !== 'public' ? [{ text: `${content.owner} only`, em: 0.7, weight: 500, colour: '#6b7280', before: 0.3 }] : [];

const drawSlide = (ctx: CanvasRenderingContext2D, content: BoardContent, slide: number, perMetre: number) => {
  const { width, height } = ctx.canvas;
  const pad = Math.round(width * 0.05);
  const count = slideCount(content);
  const index = Math.min(Math.max(slide, 0), count - 1);
  const band = Math.round(height * 0.24);
  ctx.fillStyle = '#27496d';
  ctx.fillRect(0, 0, width, band);
  fit(ctx, [{ text: content.title, em: 1, weight: 700, colour: '#ffffff' }], { left: pad, top: pad * 0.6, width: width - 2 * pad, height: band - pad }, 0.07 * perMetre, 0.03 * perMetre);
  const point = content.sections?.[index];
  const body: Block[] = point ? [{ text: point, em: 1, weight: 600, colour: '#1d2430' }] : [{ text: content.summary ?? '', em: 0.8, weight: 400, colour: '#273142' }];
  const footer = Math.round(0.05 * perMetre);
  fit(ctx, [...body, ...ownerLine(content)], { left: pad, top: band + pad, width: width - 2 * pad, height: height - band - 2 * pad - footer }, 0.13 * perMetre, 0.035 * perMetre);
  ctx.font = `500 ${footer}px ${font}`;
  ctx.fillStyle = '#6b7280';
  ctx.textAlign = 'right';
  ctx.fillText(`${index + 1} / ${count}`, width - pad, height - pad * 0.5 - footer);
  ctx.textAlign = 'left';
};

const drawPage = (ctx: CanvasRenderingContext2D, content: BoardContent, perMetre: number) => {
  const { width, height } = ctx.canvas;
  const pad = Math.round(Math.min(width, height) * 0.06);
  const blocks: Block[] = [
    { text: content.title, em: 1.45, weight: 700, colour: '#1d2430' },
    ...ownerLine(content),
    { text: content.summary ?? '', em: 1, weight: 400, colour: '#273142', before: 0.6 },
    ...(content.sections ?? []).map((section, i) => ({ text: section, em: 1, weight: 400, colour: '#273142', bullet: true, before: i === 0 ? 0.6 : 0.25 })),
  ];
  // Body type between 2.5 and 6 cm: a few words a line at most, legible across a room at best.
  fit(ctx, blocks, { left: pad, top: pad, width: width - 2 * pad, height: height - 2 * pad }, 0.06 * perMetre, 0.025 * perMetre);
};

/** The title in a band, the image below it as large as the board allows, its proportions kept. */
const drawImage = (ctx: CanvasRenderingContext2D, content: BoardContent, image: HTMLImageElement, perMetre: number) => {
  const { width, height } = ctx.canvas;
  const pad = Math.round(Math.min(width, height) * 0.04);
  const band = Math.round(height * 0.14);
  fit(ctx, [{ text: content.title, em: 1, weight: 700, colour: '#1d2430' }, ...ownerLine(content)], { left: pad, top: pad, width: width - 2 * pad, height: band - pad }, 0.07 * perMetre, 0.025 * perMetre);
  const room = { width: width - 2 * pad, height: height - band - 2 * pad };
  const scale = Math.min(room.width / image.naturalWidth, room.height / image.naturalHeight);
  const [w, h] = [image.naturalWidth * scale, image.naturalHeight * scale];
  ctx.drawImage(image, (width - w) / 2, band + pad + (room.height - h) / 2, w, h);
};

/** The uploaded image `file`, decoded; null until then, or when there is none (or no token to read it with). */
const useBoardImage = (file: string | undefined): HTMLImageElement | null => {
  const token = useContext(UploadToken);
  const { url } = useUploaded(token, isImageFile(file) ? file : undefined);
  const [image, setImage] = useState<HTMLImageElement | null>(null);
  useEffect(() => {
    setImage(null);
    if (!url) return;
    const loading = new Image();
    loading.onload = () => setImage(loading);
    loading.src = url;
    return () => void (loading.onload = null);
  }, [url]);
  return image;
};

export interface BoardProps {
  content: BoardContent;
  place: BoardPlace;
  /** Slides: the slide shown (from 0). */
  slide?: number;
}

export const Board = ({ content, place, slide = 0 }: BoardProps) => {
  const [width, height] = place.size;
  const image = useBoardImage(content.file);
  const texture = useMemo(() => {
    const canvas = document.createElement('canvas');
    const perMetre = resolution / Math.max(width, height);
    canvas.width = Math.round(width * perMetre);
    canvas.height = Math.round(height * perMetre);
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new Error('Board: no 2D canvas context to draw the content on');
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    if (image) drawImage(ctx, content, image, perMetre);
    else if (content.kind === 'slides') drawSlide(ctx, content, slide, perMetre);
    else drawPage(ctx, content, perMetre);
    const map = new CanvasTexture(canvas);
    map.colorSpace = SRGBColorSpace;
    map.anisotropy = 4;
    // Never offset or repeated: the texture's transform need not be worked out every frame.
    map.matrixAutoUpdate = false;
    return map;
  }, [content, slide, width, height, image]);
  useEffect(() => () => texture.dispose(), [texture]);
  // 2.5 cm in front of the board's centre, just clear of its frame.
  const [x, y, z] = place.position;
  const lift = 0.025;
  return (
    <mesh position={[x + lift * Math.sin(place.yaw), y, z + lift * Math.cos(place.yaw)]} rotation-y={place.yaw}>
      <planeGeometry args={[width, height]} />
      <meshBasicMaterial map={texture} toneMapped={false} />
    </mesh>
  );
};
