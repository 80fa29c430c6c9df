/**
 * A readable transcript of a session log: one line per utterance with its addressee, and short
 * notes for interruptions, hand raises, snippets and impromptu phases. Each reader gets what the
 * events' audiences let them see (a participant: nothing instructor-only, no other seat's notices),
 * and every text is printed clean (shared/protocol/text.ts), old logs included. The exports (JSON,
 * Markdown, WebVTT, CSV) are written from the session's report, as its viewer may see it. Every
 * format has the record's order, times and count (shared/review/record.ts), as the review does.
 */
import type { Role } from '../../shared/claims';
import { visibleTo, type SessionEvent } from '../../shared/events';
import { printable } from '../../shared/protocol/text';
import type { LoadedScene } from '../../shared/scene/schema';
import { csvOf, textCell } from '../review/csv';
import { recordOf } from '../../shared/review/record';
import type { Report } from '../../shared/review/report';

const clock = (ms: number): string => {
  const s = Math.floor(ms / 1000);
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
};

export const transcriptOf = (events: readonly SessionEvent[], scene: LoadedScene | undefined, reader: { role: Role; participant: string | null }): string => {
  const viewer = { instructor: reader.role !== 'participant', seat: reader.participant };
  const start = events.find((e) => e.type === 'session-start');
  const names = new Map((start?.type === 'session-start' ? start.participants : []).map((p) => [p.id, p.name]));
  const name = (id: string | null) => printable(id ? (names.get(id) ?? id) : 'everyone');
  // The record's order and times, from the session's start, as the review and the exports have them (a lobby's wait is not in them).
  const record = recordOf(events);
  const lines: string[] = [];
  if (start?.type === 'session-start') lines.push(`${printable(start.title)}${scene ? ` (${printable(scene.topic)})` : ''}`, '');
  for (const e of record.ordered) {
    if (!visibleTo(viewer, e)) continue;
    const at = `[${clock(record.place(e))}]`;
    switch (e.type) {
      case 'snippet-start':
        lines.push('', `— ${printable(e.title)} —`);
        break;
      case 'utterance':
        lines.push(`${at} ${name(e.speaker)}${e.addressee ? ` → ${name(e.addressee)}` : ''}: ${printable(e.text)}`);
        break;
      case 'interruption':
        lines.push(`${at}   (${name(e.by)} cuts in)`);
        break;
      case 'hand-raise':
        if (e.action !== 'lower') lines.push(`${at}   (${name(e.participant)} ${e.action === 'raise' ? 'raises a hand' : 'is called on'})`);
        break;
      case 'impromptu-start':
        lines.push(`${at}   (${name(e.participant)} steers the conversation: ${e.intent})`);
        break;
      case 'system':
        lines.push(`${at}   [${printable(e.message)}]`);
        break;
      case 'end':
        lines.push('', `— end (${e.reason}), ${record.turns} turns —`);
        break;
      default:
        break;
    }
  }
  return `${lines.join('\n')}\n`;
};

/** The transcript's formats (`?format=`); `text`, the readable one above, is the default. */
export const transcriptFormats = ['text', 'json', 'markdown', 'vtt', 'csv'] as const;
export type TranscriptFormat = (typeof transcriptFormats)[number];

/** The other formats are written from the session's report (review/report.ts), as its viewer may see it. */
const linesOf = (report: Report) => {
  const names = new Map(report.participants.map((p) => [p.id, p.name]));
  const name = (id: string | null) => (id ? (names.get(id) ?? id) : null);
  return report.timeline
    .filter((item) => item.kind === 'utterance')
    .map((item) => ({
      id: item.utterance ?? '',
      speaker: item.participant ?? '',
      name: name(item.participant) ?? '',
      addressee: item.addressee ?? null,
      addresseeName: name(item.addressee ?? null),
      startMs: item.startMs,
      endMs: item.endMs,
      text: item.text ?? '',
    }));
};

/** JSON: the session, its participants and one line per utterance with its times in ms from the start. */
export const transcriptJsonOf = (report: Report) => ({
  title: report.title,
  scene: report.scene,
  durationMs: report.durationMs,
  participants: report.participants.map((p) => ({ id: p.id, name: p.name, kind: p.kind })),
  lines: linesOf(report),
});

/** HH:MM:SS.mmm, as WebVTT's cue timings write it. */
const vttTime = (ms: number): string => {
  const whole = Math.max(0, Math.round(ms));
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${pad(Math.floor(whole / 3_600_000))}:${pad(Math.floor(whole / 60_000) % 60)}:${pad(Math.floor(whole / 1000) % 60)}.${pad(whole % 1000, 3)}`;
};
const vttEscape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** A cue's text is one paragraph: a blank line would end it. */
const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

/**
 * WebVTT (W3C): a cue per utterance, in order of start, identified by the utterance's id, its
 * speaker in a voice span; `&`, `<` and `>` escaped. A cue lasts at least a millisecond.
 */
export const transcriptVttOf = (report: Report): string => {
  const cues = linesOf(report).map((line) => {
    const id = /-->|[\r\n]/.test(line.id) || !line.id ? '' : `${line.id}\n`;
    const timing = `${vttTime(line.startMs)} --> ${vttTime(Math.max(line.endMs, line.startMs + 1))}`;
    return `${id}${timing}\n<v ${vttEscape(oneLine(line.name))}>${vttEscape(oneLine(line.text))}\n`;
  });
  return ['WEBVTT\n', ...cues].join('\n');
};

/** CSV (RFC 4180): a row per utterance. */
export const transcriptCsvOf = (report: Report): string =>
  csvOf(
    ['startMs', 'endMs', 'speaker', 'name', 'addressee', 'text'],
    linesOf(report).map((line) => [line.startMs, line.endMs, line.speaker, line.name, line.addressee, textCell(line.text)]),
  );

/**
 * Inline Markdown's special characters, escaped with a backslash (CommonMark allows it before any
 * ASCII punctuation). Every line opens with its time, so no text starts a heading or a list.
 */
const markdownEscape = (text: string): string => oneLine(text).replace(/[\\`*_[\]<>~&]/g, '\\$&');

/** Markdown: the title, a heading per snippet, a line per utterance and short notes, as the text transcript has them. */
export const transcriptMarkdownOf = (report: Report): string => {
  const names = new Map(report.participants.map((p) => [p.id, p.name]));
  const name = (id: string | null | undefined) => markdownEscape(id ? (names.get(id) ?? id) : 'everyone');
  const lines: string[] = [`# ${markdownEscape(report.title ?? 'Session')}`, ''];
  for (const item of report.timeline) {
    const at = `\\[${clock(item.startMs)}\\]`;
    switch (item.kind) {
      case 'snippet':
        lines.push('', `## ${markdownEscape(item.text ?? '')}`, '');
        break;
      case 'utterance':
        lines.push(`${at} **${name(item.participant)}**${item.addressee ? ` → ${name(item.addressee)}` : ''}: ${markdownEscape(item.text ?? '')}  `);
        break;
      case 'interruption':
        lines.push(`${at} _${name(item.participant)} cuts in_  `);
        break;
      case 'impromptu':
        lines.push(`${at} _${name(item.participant)} steers the conversation: ${markdownEscape(item.text ?? '')}_  `);
        break;
      case 'instructor':
      case 'system':
        if (item.text) lines.push(`${at} _${markdownEscape(item.text)}_  `);
        break;
      default:
        break;
    }
  }
  return `${lines.join('\n')}\n`;
};
