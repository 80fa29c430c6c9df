/**
 * "Judge two runs" on the compare page (issue 17, compare): pick two of the compared runs and the
 * criteria, and POST /api/compare/judge (server/review/judge.ts). With a generator key a language
 * model judges both orders (each run shown first once) and the page shows both verdicts and the
 * reconciled one; without one, each criterion is decided from the figures, and the page says so.
 */
import { useState, type FormEvent } from 'react';
import { api } from '../net/api';
import { criteria, criterionIds, type Criterion, type PairJudgement, type Winner } from '../../../shared/review/answers';
import type { Report } from '../../../shared/review/report';
import { slim } from './report-files';

/** A compared run: a session by id, or a simulated run's report from its file. */
export interface JudgedRun {
  label: string;
  ref: { session: string } | { report: Report };
}

const winnerText = (winner: Winner, a: string, b: string) => (winner === 'tie' ? 'Tie' : winner === 'a' ? a : b);

export const JudgePanel = ({ runs, admin }: { runs: readonly JudgedRun[]; admin: string }) => {
  const [picked, setPicked] = useState<[number, number]>([0, 1]);
  // Runs come and go (report files added or removed): a pick past the end falls back to the first two.
  const [first, second] = picked[0] < runs.length && picked[1] < runs.length ? picked : [0, 1];
  const setFirst = (i: number) => setPicked([i, second]);
  const setSecond = (i: number) => setPicked([first, i]);
  const [chosen, setChosen] = useState<Criterion[]>([...criterionIds]);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [result, setResult] = useState<{ judgement: PairJudgement; a: string; b: string } | null>(null);

  const judge = async (event: FormEvent) => {
    event.preventDefault();
    const [a, b] = [runs[first], runs[second]];
    if (!a || !b || first === second || chosen.length === 0) return;
    setBusy(true);
    setProblem(null);
    try {
      const side = (run: JudgedRun) => ('session' in run.ref ? { session: run.ref.session, label: run.label } : { report: slim(run.ref.report), label: run.label });
      const judgement = await api.judge(admin, { a: side(a), b: side(b), criteria: criterionIds.filter((c) => chosen.includes(c)) });
      setResult({ judgement, a: a.label, b: b.label });
    } catch (error) {
      setProblem((error as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const picker = (value: number, set: (i: number) => void, label: string) => (
    <select value={value} onChange={(e) => set(Number(e.target.value))} aria-label={label}>
      {runs.map((r, i) => (
        <option key={r.label} value={i}>
          {r.label}
        </option>
      ))}
    </select>
  );

  return (
    <section className="card judge-panel" aria-label="Judge two runs">
      <h2>Judge two runs</h2>
      <form onSubmit={judge} aria-busy={busy}>
        <p>
          {picker(first, setFirst, 'First run')} against {picker(second, setSecond, 'Second run')}
        </p>
        <fieldset>
          <legend>On</legend>
          {criterionIds.map((c) => (
            <label key={c}>
              <input type="checkbox" checked={chosen.includes(c)} onChange={(e) => setChosen(e.target.checked ? [...chosen, c] : chosen.filter((x) => x !== c))} /> {criteria[c].label}
            </label>
          ))}
        </fieldset>
        <button type="submit" className="primary" disabled={busy || first === second || chosen.length === 0}>
          {busy ? 'Judging…' : 'Judge'}
        </button>
        {first === second && <span className="note"> Pick two different runs.</span>}
      </form>
      {problem && (
        <p className="note problem" role="alert">
          {problem}
        </p>
      )}
      {result && <Judged {...result} />}
    </section>
  );
};

const Judged = ({ judgement, a, b }: { judgement: PairJudgement; a: string; b: string }) => {
  const model = judgement.by === 'model';
  return (
    <div data-judgement={judgement.by}>
      <table className="judge-table">
        <thead>
          <tr>
            <th>Criterion</th>
            {model && <th>{a} shown first</th>}
            {model && <th>{b} shown first</th>}
            <th>Verdict</th>
          </tr>
        </thead>
        <tbody>
          {judgement.criteria.map((c) => (
            <tr key={c.criterion} data-criterion={c.criterion} data-winner={c.winner}>
              <th scope="row">{c.label}</th>
              {model && c.orders && (
                <>
                  <td>
                    <strong>{winnerText(c.orders.first.winner, a, b)}</strong> <span className="note">{c.orders.first.reason}</span>
                  </td>
                  <td>
                    <strong>{winnerText(c.orders.second.winner, a, b)}</strong> <span className="note">{c.orders.second.reason}</span>
                  </td>
                </>
              )}
              <td>
                <strong>{winnerText(c.winner, a, b)}</strong>
                {c.positionInconsistent && <span className="tag"> position-inconsistent</span>} <span className="note">{c.reason}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="note byline">
        {model
          ? `Judged by ${judgement.vendor ?? 'a language model'}, twice with the order swapped: where the two orders disagree, it is a tie.`
          : 'From the figures: without a generator key each criterion is decided by the report’s figures (breakdowns, fillers, answered questions, interruptions, evenness). With a key configured, a language model reads both transcripts, in both orders.'}
        {judgement.note ? ` (${judgement.note}.)` : ''}
      </p>
    </div>
  );
};
