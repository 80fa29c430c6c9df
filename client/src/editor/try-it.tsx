/**
 * The try-it tab: the saved scene run N times by the simulator (everyone simulated) with its
 * summary figures, conversation sense among them, or a live session started with a join link
 * per seat (yourself, a colleague) and the instructor's. It runs what the server has, so it asks
 * for unsaved changes to be saved first.
 *
 * ```tsx
 * <TryIt admin={token} id="salary-talk" ready={!dirty && problems.length === 0} />
 * ```
 */
import { useState } from 'react';
import { api, sceneApi, type Links, type SimulationSummary } from '../net/api';
import { useEditor } from './context';
import { Alert } from '../ui/alert';

/** The most runs the server simulates at once (server/api/scenes.ts MAX_SIMULATED_RUNS). */
const MAX_RUNS = 10;

/** The figures worth an author's glance, in the order they read; the rest stay in the simulator's files. */
const figures: { key: string; label: string; unit?: 'share' | 'percent' }[] = [
  { key: 'turns', label: 'Turns' },
  { key: 'wordsPerTurn', label: 'Words per turn' },
  { key: 'evenness', label: 'Spread of words per person (lower: more even)', unit: 'percent' },
  { key: 'answeredNext', label: 'Questions answered next', unit: 'share' },
  { key: 'answeredByContent', label: 'Answered by content', unit: 'share' },
  { key: 'roleAdherence', label: 'Role adherence', unit: 'share' },
  { key: 'repetitionRate', label: 'Repetition', unit: 'share' },
  { key: 'breakdowns', label: 'Breakdowns' },
  { key: 'leaks', label: 'Private-knowledge leaks' },
  { key: 'interruptions', label: 'Interruptions' },
];

/** A share (0..1) and a percentage both read as a percentage; counts with one decimal where they have one. */
const shown = (value: number, unit?: 'share' | 'percent') =>
  unit === 'share' ? `${Math.round(value * 100)}%` : unit === 'percent' ? `${Math.round(value)}%` : Number.isInteger(value) ? String(value) : value.toFixed(1);

export const TryIt = ({ admin, id, ready, why }: { admin: string; id: string; ready: boolean; why: string }) => {
  const [runs, setRuns] = useState(3);
  const [busy, setBusy] = useState<'simulate' | 'live' | null>(null);
  const [summary, setSummary] = useState<SimulationSummary | null>(null);
  const [links, setLinks] = useState<Links | null>(null);
  const [error, setError] = useState('');
  const { draft } = useEditor();
  const names = new Map(draft.participants.map((p) => [p.id, p.name || p.id]));
  const aggregate = summary?.metrics.aggregate;
  const act = async (what: 'simulate' | 'live') => {
    setBusy(what);
    setError('');
    try {
      if (what === 'simulate') setSummary(await sceneApi.simulate(admin, id, runs));
      else setLinks((await api.createSession(admin, { scene: id, pace: 'realtime' })).links);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(null);
    }
  };
  return (
    <div className="columns">
      <section className="card" aria-label="Simulated runs">
        <h2>Simulated runs</h2>
        <p className="note">Everyone is simulated, at instant pace, with the scripted generator (free, offline, the same figures for the same seed); up to {MAX_RUNS} runs at a time.</p>
        <div className="row">
          <label>
            Runs{' '}
            <input type="number" min={1} max={MAX_RUNS} value={runs} onChange={(e) => setRuns(Math.max(1, Math.min(MAX_RUNS, e.target.valueAsNumber || 1)))} />
          </label>
          <button className="primary" disabled={!ready || busy !== null} title={ready ? undefined : why} onClick={() => void act('simulate')}>
            {busy === 'simulate' ? 'Running…' : 'Run'}
          </button>
        </div>
        {aggregate && summary && (
          <table className="figures-table" aria-label="Summary of the runs">
            <caption>
              {summary.runs} {summary.runs === 1 ? 'run' : 'runs'} from seed {summary.seed}
              {Object.keys(aggregate.endReasons).length > 0 ? `; ended by ${Object.entries(aggregate.endReasons).map(([reason, n]) => `${reason} (${n})`).join(', ')}` : ''}
            </caption>
            <thead>
              <tr>
                <th>Figure</th>
                <th>Mean</th>
                <th>Range</th>
              </tr>
            </thead>
            <tbody>
              {figures.map(({ key, label, unit }) => {
                const stats = aggregate.metrics[key];
                return (
                  stats !== undefined && (
                    <tr key={key} data-figure={key}>
                      <td>{label}</td>
                      <td>{stats ? shown(stats.mean, unit) : '–'}</td>
                      <td>{stats ? `${shown(stats.min, unit)} – ${shown(stats.max, unit)}` : 'not measured'}</td>
                    </tr>
                  )
                );
              })}
            </tbody>
          </table>
        )}
      </section>
      <section className="card" aria-label="Live session">
        <h2>Live session</h2>
        <p className="note">A session in real time, waiting in its lobby: open your seat's link, send a colleague theirs.</p>
        <button className="primary" disabled={!ready || busy !== null} title={ready ? undefined : why} onClick={() => void act('live')}>
          {busy === 'live' ? 'Starting…' : 'Start a live session'}
        </button>
        {links && (
          <ul className="links">
            {Object.entries(links).map(([who, link]) => (
              <li key={who}>
                <b>{who === 'observer' ? 'instructor' : (names.get(who) ?? who)}</b>: <a href={link} target="_blank" rel="noreferrer">{link}</a>
              </li>
            ))}
          </ul>
        )}
      </section>
      {!ready && <p className="warn">{why}</p>}
      <Alert message={error} />
    </div>
  );
};
