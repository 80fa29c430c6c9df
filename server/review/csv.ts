/**
 * CSV as RFC 4180 writes it: a header row, CRLF after every record, a field quoted when it holds a
 * comma, a quote, CR or LF, with its quotes doubled. Free text (what people said) that starts like
 * a spreadsheet formula (=, +, -, @) is prefixed with an apostrophe, so opening an export in a
 * spreadsheet never runs what a participant typed.
 *
 * ```ts
 * csvOf(['name', 'text'], [['Ana', 'Yes, "now"']]); // 'name,text\r\nAna,"Yes, ""now"""\r\n'
 * ```
 */
import type { Report } from '../../shared/review/report';

export type Cell = string | number | null;

const field = (cell: Cell): string => {
  const text = cell === null ? '' : String(cell);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

export const csvOf = (header: readonly string[], rows: readonly (readonly Cell[])[]): string =>
  [header, ...rows].map((row) => `${row.map(field).join(',')}\r\n`).join('');

/** Free text for a cell: defused if a spreadsheet would read it as a formula. */
export const textCell = (text: string): string => (/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);

/**
 * The report's figures, one a row (`scope`: session, or a participant's id): every figure of the
 * JSON report but the timeline and the breakdowns' list, for a spreadsheet to pivot.
 */
export const reportCsvOf = (report: Report): string => {
  const rows: Cell[][] = [];
  const session = (figure: string, value: Cell) => rows.push(['session', '', figure, value]);
  for (const key of ['title', 'scene', 'endReason', 'durationMs', 'turns', 'words', 'answeredNext'] as const) session(key, report[key]);
  if (report.answers) {
    session('answeredByContent', report.answeredByContent ?? null);
    for (const [n, count] of Object.entries(report.answers)) session(`answers.${n}`, count);
  }
  session('evenness', report.evenness);
  session('breakdowns', report.breakdowns.count);
  for (const [kind, n] of Object.entries(report.breakdowns.kinds)) session(`breakdowns.${kind}`, n);
  for (const key of ['interruptions', 'backchannels', 'impromptuPhases'] as const) session(key, report[key]);
  for (const p of report.participants) {
    const figure = (name: string, value: Cell) => rows.push(['participant', p.id, name, value]);
    for (const key of ['name', 'kind', 'speakingMs', 'speakingShare', 'turns', 'words', 'wordsPerMinute'] as const) figure(key, p[key]);
    figure('fillers', p.fillers.count);
    for (const { filler, count } of p.fillers.list) figure(`fillers.${filler}`, count);
    for (const key of ['interruptionsMade', 'interruptionsReceived', 'questionsAsked', 'questionsReceived', 'questionsAnswered'] as const) figure(key, p[key]);
    for (const [n, count] of Object.entries(p.answersGiven ?? {})) figure(`answersGiven.${n}`, count);
    for (const [n, count] of Object.entries(p.answersReceived ?? {})) figure(`answersReceived.${n}`, count);
    figure('responseLatencyMs.median', p.responseLatencyMs.median);
    figure('responseLatencyMs.p90', p.responseLatencyMs.p90);
    figure('responseLatencyMs.samples', p.responseLatencyMs.samples);
    figure('gazeAtSpeakerShare', p.gazeAtSpeakerShare);
  }
  return csvOf(['scope', 'participant', 'figure', 'value'], rows);
};
