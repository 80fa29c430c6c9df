/**
 * The simulator's one-table comparison of scenes: a row per scene and one for all their runs
 * together, each the mean over runs. Rates are percentages, counts are per run, and `-` marks a
 * measure no run defines (role adherence in a scene without roles). Answered-next is who spoke
 * after a designated question; answered and partly, what their reply said (answers.ts). Rephrased
 * is a persona saying its own earlier sentence again in other words (repetition.ts). Breakdowns
 * count utterances that lead to one; selector fallbacks, next speakers drawn at random when the
 * LLM turn selector gave no valid answer.
 *
 * ```ts
 * process.stdout.write(formatTable([{ name: 'team-standup', aggregate }, { name: 'all', aggregate: total }]));
 * // scene         runs  turns  answered-next  answered  partly  repeat  near-dup  rephrased  top-opening  leaks  role-adherence  breakdowns  selector-fallbacks
 * // team-standup     3   40.0          75.0%     50.0%   12.5%    2.5%      5.0%       2.5%        10.0%    0.3               -         4.7                 0.0
 * ```
 */
import type { AggregateMetrics, NumericMetric } from './metrics';

export interface TableRow {
  name: string;
  aggregate: AggregateMetrics;
}

type Format = 'rate' | 'count';

const columns: readonly { title: string; metric: NumericMetric; format: Format }[] = [
  { title: 'turns', metric: 'turns', format: 'count' },
  { title: 'answered-next', metric: 'answeredNext', format: 'rate' },
  { title: 'answered', metric: 'answeredByContent', format: 'rate' },
  { title: 'partly', metric: 'partlyAnswered', format: 'rate' },
  { title: 'repeat', metric: 'repeatRate', format: 'rate' },
  { title: 'near-dup', metric: 'nearDuplicateRate', format: 'rate' },
  { title: 'rephrased', metric: 'meaningRepeatRate', format: 'rate' },
  { title: 'top-opening', metric: 'topOpeningShare', format: 'rate' },
  { title: 'leaks', metric: 'leaks', format: 'count' },
  { title: 'role-adherence', metric: 'roleAdherence', format: 'rate' },
  { title: 'breakdowns', metric: 'breakdowns', format: 'count' },
  { title: 'selector-fallbacks', metric: 'selectorFallbacks', format: 'count' },
];

const cell = (aggregate: AggregateMetrics, metric: NumericMetric, format: Format): string => {
  const mean = aggregate.metrics[metric]?.mean;
  if (mean === undefined) return '-';
  return format === 'rate' ? `${(mean * 100).toFixed(1)}%` : mean.toFixed(1);
};

/** Text columns aligned with spaces: the scene name left, numbers right. */
export const formatTable = (rows: readonly TableRow[]): string => {
  const header = ['scene', 'runs', ...columns.map((c) => c.title)];
  const body = rows.map((r) => [r.name, String(r.aggregate.runs), ...columns.map((c) => cell(r.aggregate, c.metric, c.format))]);
  const widths = header.map((title, i) => Math.max(title.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]): string =>
    cells.map((text, i) => (i === 0 ? text.padEnd(widths[i]!) : text.padStart(widths[i]!))).join('  ').trimEnd();
  return `${[header, ...body].map(line).join('\n')}\n`;
};
