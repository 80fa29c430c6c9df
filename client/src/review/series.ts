/**
 * What the dashboard draws, computed from a report: the timeline's lanes (a participant each, and
 * the room's for events of no one), each participant's colour, speaking time accumulated over the
 * session and pace in windows. Pure, so the figures can be checked without a browser.
 */
import { countWords } from '../../../shared/words';
import type { Report, TimelineItem } from '../../../shared/review/report';

/** Distinct at a glance and readable on white; a participant keeps their colour on every chart. */
export const palette = ['#2857c5', '#d9822b', '#2e9e6a', '#b03a7a', '#6a4fc4', '#1d8fa8', '#a8892b', '#c4453c', '#5a6b7c'];

export const ROOM = '(room)';

export interface Lane {
  id: string;
  name: string;
  color: string;
}

/** A lane per participant, in the report's order, and the room's last when anything happened to no one. */
export const lanesOf = (report: Report): Lane[] => {
  const lanes: Lane[] = report.participants.map((p, i) => ({ id: p.id, name: p.name, color: palette[i % palette.length]! }));
  const known = new Set(lanes.map((l) => l.id));
  for (const item of report.timeline) {
    const id = item.participant ?? ROOM;
    if (known.has(id)) continue;
    known.add(id);
    lanes.push({ id, name: id === ROOM ? 'Room' : id, color: id === ROOM ? '#7b838c' : palette[lanes.length % palette.length]! });
  }
  // The room's lane goes last, whenever it was first needed.
  return [...lanes.filter((l) => l.id !== ROOM), ...lanes.filter((l) => l.id === ROOM)];
};

export const utterancesOf = (report: Report): (TimelineItem & { utterance: string })[] =>
  report.timeline.filter((item): item is TimelineItem & { utterance: string } => item.kind === 'utterance' && item.utterance !== undefined);

/** The utterance under the playhead: of those running at `ms`, the latest to start; null between lines. */
export const utteranceAt = <U extends { startMs: number; endMs: number }>(utterances: readonly U[], ms: number): U | null => {
  let found: U | null = null;
  for (const u of utterances) if (u.startMs <= ms && ms < u.endMs && (!found || u.startMs >= found.startMs)) found = u;
  return found;
};

/** Each participant's speaking time so far, in seconds: a point where each utterance starts and where it ends. */
export const cumulativeSpeaking = (report: Report): Map<string, [number, number][]> => {
  const lines = new Map<string, [number, number][]>(report.participants.map((p) => [p.id, [[0, 0]]]));
  const totals = new Map<string, number>();
  for (const u of utterancesOf(report)) {
    const id = u.participant ?? ROOM;
    const line = lines.get(id) ?? [[0, 0]];
    const before = totals.get(id) ?? 0;
    const after = before + (u.endMs - u.startMs) / 1000;
    line.push([u.startMs, before], [u.endMs, after]);
    totals.set(id, after);
    lines.set(id, line);
  }
  for (const [id, line] of lines) line.push([report.durationMs, totals.get(id) ?? 0]);
  return lines;
};

/** A window length that gives about `target` windows over the session, from a list of round ones. */
export const windowFor = (durationMs: number, target = 12): number => {
  const steps = [5, 10, 15, 20, 30, 60, 120, 180, 300, 600, 900].map((s) => s * 1000);
  return steps.find((s) => durationMs / s <= target) ?? steps.at(-1)!;
};

/**
 * Words per minute in windows of `windowMs`: a participant's words over the time they spoke in the
 * window (an utterance's words shared among the windows it spans by time); null where they did not speak.
 */
export const paceOf = (report: Report, windowMs = windowFor(report.durationMs)): { windowMs: number; starts: number[]; lines: Map<string, (number | null)[]> } => {
  const count = Math.max(1, Math.ceil(report.durationMs / windowMs));
  const starts = Array.from({ length: count }, (_, i) => i * windowMs);
  const words = new Map<string, number[]>();
  const spoken = new Map<string, number[]>();
  for (const p of report.participants) {
    words.set(p.id, new Array<number>(count).fill(0));
    spoken.set(p.id, new Array<number>(count).fill(0));
  }
  for (const u of utterancesOf(report)) {
    const id = u.participant ?? ROOM;
    if (!words.has(id)) {
      words.set(id, new Array<number>(count).fill(0));
      spoken.set(id, new Array<number>(count).fill(0));
    }
    const length = u.endMs - u.startMs;
    const said = countWords(u.text ?? '');
    if (length <= 0) continue;
    for (let w = Math.floor(u.startMs / windowMs); w < count && w * windowMs < u.endMs; w++) {
      const overlap = Math.min(u.endMs, (w + 1) * windowMs) - Math.max(u.startMs, w * windowMs);
      if (overlap <= 0) continue;
      words.get(id)![w]! += (said * overlap) / length;
      spoken.get(id)![w]! += overlap;
    }
  }
  const lines = new Map<string, (number | null)[]>();
  for (const [id, counts] of words) {
    const times = spoken.get(id)!;
    lines.set(
      id,
      counts.map((n, w) => (times[w]! > 0 ? Math.round((n / (times[w]! / 60_000)) * 10) / 10 : null)),
    );
  }
  return { windowMs, starts, lines };
};

/** 754000 → "12:34"; 3723000 → "1:02:03". */
export const clock = (ms: number): string => {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
};
