/**
 * What a comparison of sessions is (server/review/compare.ts computes it; GET /api/compare serves
 * it; client/src/compare/page.tsx shows it): its types and how a figure is written, the same in the
 * sentences the server makes and the table the browser draws.
 */
import type { Report } from './report';

export type FigureUnit = 'count' | 'ms' | 'share' | 'wpm' | 'score';

export interface Figure {
  key: string;
  label: string;
  unit: FigureUnit;
  /** The participant it is about; absent for the session's own figures. */
  participant?: string;
  /** A plural noun ("turns"): the sentences say "were … those", not "was … that". */
  plural?: boolean;
}

export interface ComparedParticipant {
  id: string;
  name: string;
  kind: string;
  speakingShare: number;
  turns: number;
  wordsPerMinute: number | null;
  responseLatencyMedianMs: number | null;
}

export interface ComparedSession {
  id: string;
  /** A simulated run added from its report file (`report-<k>.json`): the file's name; absent for a session. */
  file?: string;
  createdAt: number;
  status: string;
  /** As the report has it: `instant` runs on simulated time. */
  pace?: Report['pace'];
  durationMs: number;
  turns: number;
  answeredNext: number | null;
  evenness: number | null;
  breakdowns: number;
  interruptions: number;
  participants: ComparedParticipant[];
  /** Every figure by key, as `figures` lists them. */
  values: Record<string, number | null>;
}

export interface Comparison {
  scene: string | null;
  title: string | null;
  sessions: ComparedSession[];
  figures: Figure[];
  /** Per figure key, one value per session (in order): 0..1, null where the session lacks it. */
  normalised: Record<string, (number | null)[]>;
  differences: string[];
}

/** A figure as the sentences say it: "1:05", "42%", "148 wpm", "12". */
export const formatFigure = (value: number, unit: FigureUnit): string => {
  switch (unit) {
    case 'ms':
      return value >= 59_500 ? `${Math.floor(Math.round(value / 1000) / 60)}:${String(Math.round(value / 1000) % 60).padStart(2, '0')}` : `${(Math.round(value / 100) / 10).toFixed(1)} s`;
    case 'share':
      return `${Math.round(value * 100)}%`;
    case 'wpm':
      return `${Math.round(value)} wpm`;
    case 'score':
      return value.toFixed(1);
    case 'count':
      return String(Math.round(value));
  }
};
