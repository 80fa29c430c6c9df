/**
 * What the headset's panels are drawn with: a 2D canvas as a texture (no font files, one draw call
 * a panel), text wrapped to a width, and buttons laid out in the canvas's pixels that a pointer ray
 * finds by the texture coordinate it hit.
 *
 * Sizes are in texture pixels at PIXELS_PER_METRE: at the panel's distance (PANEL_DISTANCE) one
 * degree of visual angle is `degreePx` pixels, and no text is drawn smaller than that (Quest 3
 * shows about 25 pixels a degree; text under a degree is hard to read there).
 *
 * ```ts
 * const buttons = row([{ id: 'hand', label: 'Raise hand' }, { id: 'exit', label: 'Exit VR' }], 20, 500, 1160, 70);
 * drawButtons(ctx, buttons);
 * buttonAt(buttons, event.uv, canvas); // 'exit'
 * ```
 */

/** Texture pixels per metre of panel. */
export const PIXELS_PER_METRE = 2000;
/** From the eyes to the panel, metres. */
export const PANEL_DISTANCE = 0.75;
/** One degree of visual angle at the panel's distance, in texture pixels (26). */
export const degreePx = Math.tan(Math.PI / 180) * PANEL_DISTANCE * PIXELS_PER_METRE;

export interface PanelButton {
  id: string;
  label: string;
  x: number;
  y: number;
  width: number;
  height: number;
  /** Drawn lit (a raised hand, a pinned panel). */
  on?: boolean;
  disabled?: boolean;
}

/** `items` side by side across `width` from `x`, a gap between them. */
export const row = (items: readonly Omit<PanelButton, 'x' | 'y' | 'width' | 'height'>[], x: number, y: number, width: number, height: number, gap = 12): PanelButton[] => {
  const each = (width - gap * (items.length - 1)) / items.length;
  return items.map((item, i) => ({ ...item, x: x + i * (each + gap), y, width: each, height }));
};

export const wrap = (ctx: CanvasRenderingContext2D, text: string, width: number): string[] => {
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

export const drawButtons = (ctx: CanvasRenderingContext2D, buttons: readonly PanelButton[], fontPx: number): void => {
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.font = `bold ${fontPx}px sans-serif`;
  for (const b of buttons) {
    ctx.fillStyle = b.disabled ? '#3a4048' : b.on ? '#2e7d32' : '#4a5563';
    ctx.beginPath();
    ctx.roundRect(b.x, b.y, b.width, b.height, 12);
    ctx.fill();
    ctx.fillStyle = b.disabled ? '#8a939e' : '#ffffff';
    ctx.fillText(b.label, b.x + b.width / 2, b.y + b.height / 2, b.width - 12);
  }
  ctx.textAlign = 'left';
  ctx.textBaseline = 'alphabetic';
};

/** The enabled button under texture coordinate `uv` (0..1, v up) of a canvas drawn at `canvas`'s size, or null. */
export const buttonAt = (buttons: readonly PanelButton[], uv: { x: number; y: number } | undefined, canvas: { width: number; height: number }): PanelButton | null => {
  if (!uv) return null;
  const x = uv.x * canvas.width;
  const y = (1 - uv.y) * canvas.height;
  return buttons.find((b) => !b.disabled && x >= b.x && x <= b.x + b.width && y >= b.y && y <= b.y + b.height) ?? null;
};
