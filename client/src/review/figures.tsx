/**
 * The session's headline figures, as cards: how long, how many turns and words, how often the one
 * asked spoke next and how often their reply answered the question, how evenly people spoke,
 * breakdowns and interruptions.
 * Each card carries its raw value (`data-value`) beside the formatted one.
 */
import type { Report } from '../../../shared/review/report';
import { formatDuration } from '../ui/format';

const kindsOf = (report: Report) =>
  Object.entries(report.breakdowns.kinds)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${n} ${kind}`)
    .join(', ');

export const Figures = ({ report }: { report: Report }) => {
  const figures: { id: string; label: string; value: number | null; shown: string; note?: string }[] = [
    { id: 'duration', label: 'Duration', value: report.durationMs, shown: formatDuration(report.durationMs) },
    { id: 'turns', label: 'Turns', value: report.turns, shown: String(report.turns), note: `${report.words} words` },
    {
      id: 'answered-next',
      label: 'Answered next',
      value: report.answeredNext,
      shown: report.answeredNext === null ? '–' : `${Math.round(report.answeredNext * 100)}%`,
      note: report.answeredNext === null ? 'no questions put to anyone' : 'questions after which the one asked spoke next',
    },
    ...(report.answers
      ? [
          {
            id: 'answered',
            label: 'Answered',
            value: report.answeredByContent ?? null,
            shown: report.answeredByContent == null ? '–' : `${Math.round(report.answeredByContent * 100)}%`,
            note:
              report.answers.questions === 0
                ? 'no questions put to anyone'
                : `of ${report.answers.questions} questions and requests, by what the reply said; ${report.answers.partly} in part, ${report.answers.not} not`,
          },
        ]
      : []),
    { id: 'evenness', label: 'Evenness', value: report.evenness, shown: report.evenness === null ? '–' : `${report.evenness.toFixed(1)}%`, note: 'variation of words per person; lower is more even' },
    { id: 'breakdowns', label: 'Breakdowns', value: report.breakdowns.count, shown: String(report.breakdowns.count), note: kindsOf(report) || 'none found' },
    { id: 'interruptions', label: 'Interruptions', value: report.interruptions, shown: String(report.interruptions), note: `${report.backchannels} backchannel${report.backchannels === 1 ? '' : 's'}` },
  ];
  return (
    <dl className="figures">
      {figures.map((f) => (
        <div key={f.id} className="figure" data-figure={f.id} data-value={f.value === null ? '' : String(f.value)}>
          <dt>{f.label}</dt>
          <dd>{f.shown}</dd>
          {f.note && <dd className="note">{f.note}</dd>}
        </div>
      ))}
    </dl>
  );
};
