/**
 * Runs of one scene side by side, `/compare?sessions=<id>,<id>,…` (issue 17, compare): the
 * differences the server calls out (review/compare.ts), a radar of the normalised session figures,
 * bars per figure (one bar per run; per participant, grouped by participant) and a table of every
 * figure; then "Judge two runs" (judge-panel.tsx). Runs are the sessions, numbered in the
 * order of the ids (the sessions page gives them oldest first), then simulated runs added from
 * their report files (report-files.tsx), which are posted with the ids (POST /api/compare).
 * It needs the admin token, kept for this tab (sessionStorage), as the sessions page keeps it.
 * Fewer than two runs, runs of different scenes or an unknown session: a message and the way
 * back, no error.
 */
import { useEffect, useMemo, useState } from 'react';
import { formatFigure, type ComparedSession, type Comparison, type Figure } from '../../../shared/review/comparison';
import { paths, request } from '../net/api';
import { ChartCard } from '../review/charts';
import { Chart, type ChartOption } from '../review/chart';
import { JudgePanel, type JudgedRun } from './judge-panel';
import { ReportFiles, slim, type AddedFiles, type ReportFile } from './report-files';

/** A colour per run, kept on every chart. */
export const runColours = ['#2857c5', '#e07b39', '#2e9e6a', '#b8439b', '#c9a227', '#5a6b7b', '#d1495b', '#3aa6b9'];

/** A figure for the table and the tooltips: "—" where the session has none. */
export const shownFigure = (value: number | null | undefined, figure: Pick<Figure, 'unit'>): string => (value === null || value === undefined ? '—' : formatFigure(value, figure.unit));

const runName = (i: number) => `Run ${i + 1}`;
const split = { lineStyle: { color: '#eceef1' } };

type Loaded = { kind: 'comparison'; comparison: Comparison } | { kind: 'problem'; message: string } | { kind: 'sign-in'; rejected?: boolean };

export const ComparePage = ({ ids: asked }: { ids: string[] }) => {
  const [admin, setAdmin] = useState(() => sessionStorage.getItem('admin-token') ?? '');
  const [draft, setDraft] = useState('');
  const [added, setAdded] = useState<AddedFiles>({ files: [], problems: [] });
  const { files } = added;
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  // Sessions of the link that no longer exist (deleted since it was made): compared without, and named.
  const [gone, setGone] = useState<string[]>([]);
  const ids = useMemo(() => asked.filter((id) => !gone.includes(id)), [asked, gone]);

  useEffect(() => {
    if (ids.length + files.length < 2) {
      const missing = gone.length ? `${goneNote(gone)} ` : '';
      return setLoaded({ kind: 'problem', message: `${missing}Choose at least two sessions of the same scene to compare: tick them on the sessions page, then "Compare selected"; or add simulated runs from their report files.` });
    }
    if (!admin) return setLoaded({ kind: 'sign-in' });
    let live = true;
    const asked = files.length
      ? request(paths.compareReports, admin, { method: 'POST', body: { sessions: ids, reports: files.map((f) => slim(f.report)), names: files.map((f) => f.name) } })
      : request(paths.compare(ids), admin);
    /** The asked sessions the server no longer has, from its list of sessions; none when that cannot be told. */
    const missingOf = async (): Promise<string[]> => {
      const res = await request(paths.sessions, admin);
      if (!res.ok) return [];
      const known = new Set(((await res.json()) as { sessions: { id: string }[] }).sessions.map((s) => s.id));
      return ids.filter((id) => !known.has(id));
    };
    void asked
      .then(async (res) => {
        const body = (await res.json().catch(() => ({}))) as Comparison & { message?: string };
        const missing = res.status === 404 ? await missingOf() : [];
        if (!live) return;
        if (missing.length) setGone((before) => [...before, ...missing]);
        else if (res.status === 401) setLoaded({ kind: 'sign-in', rejected: true });
        else if (!res.ok) setLoaded({ kind: 'problem', message: body.message ?? `The server answered ${res.status}.` });
        else setLoaded({ kind: 'comparison', comparison: body });
      })
      .catch(() => live && setLoaded({ kind: 'problem', message: 'The server did not answer. Reload the page to try again.' }));
    return () => {
      live = false;
    };
  }, [admin, ids, files, gone]);

  if (!loaded) return <main className="page">Comparing the runs…</main>;
  if (loaded.kind === 'sign-in') {
    return (
      <main className="page compare" data-page="compare" data-state="sign-in">
        <h1>Compare sessions</h1>
        <form
          className="sign-in"
          onSubmit={(e) => {
            e.preventDefault();
            sessionStorage.setItem('admin-token', draft);
            setAdmin(draft);
          }}
        >
          <label>
            Admin token <input type="password" value={draft} onChange={(e) => setDraft(e.target.value)} placeholder="printed by npm start" autoComplete="off" />
          </label>{' '}
          <button type="submit" className="primary" disabled={!draft}>
            Compare
          </button>
        </form>
        {loaded.rejected && <p className="note">The server did not accept that admin token: enter it again.</p>}
        {files.length > 0 && <ReportFiles added={added} onChange={setAdded} />}
      </main>
    );
  }
  if (loaded.kind === 'problem') {
    return (
      <main className="page compare" data-page="compare" data-state="problem">
        <h1>Compare sessions</h1>
        <p className="note" data-problem>
          {loaded.message}
        </p>
        <ReportFiles added={added} onChange={setAdded} />
        <p>
          <a href="/sessions">Back to the sessions</a>
        </p>
      </main>
    );
  }
  return <Compared comparison={loaded.comparison} added={added} onAdded={setAdded} admin={admin} gone={gone} />;
};

const goneNote = (gone: readonly string[]) =>
  gone.length === 1 ? `Session "${gone[0]}" no longer exists (it was deleted).` : `Sessions ${gone.map((id) => `"${id}"`).join(', ')} no longer exist (they were deleted).`;

const Compared = ({ comparison, added, onAdded, admin, gone }: { comparison: Comparison; added: AddedFiles; onAdded: (added: AddedFiles) => void; admin: string; gone: readonly string[] }) => {
  const { sessions, figures } = comparison;
  const files: readonly ReportFile[] = added.files;
  const judged = useMemo<JudgedRun[]>(
    () =>
      sessions.map((s, i) => {
        const file = s.file === undefined ? undefined : files.find((f) => f.name === s.file);
        return { label: runName(i), ref: file ? { report: file.report } : { session: s.id } };
      }),
    [sessions, files],
  );
  const title = comparison.title ?? comparison.scene;
  const sessionFigures = figures.filter((f) => !f.participant);
  const people = sessions.find((s) => s.participants.length)?.participants ?? [];
  const radar = useMemo(() => radarOf(comparison), [comparison]);
  return (
    <main className="page review compare" data-page="compare" data-state="comparison">
      <header className="review-head">
        <div>
          <h1>Compare runs{title ? ` · ${title}` : ''}</h1>
          <p className="note">
            {sessions.length} runs of one scene: sessions oldest first, then simulated runs from files · <a href="/sessions">all sessions</a>
          </p>
          {gone.length > 0 && (
            <p className="gone-note" data-gone={gone.join(',')}>
              {goneNote(gone)} The others are compared without {gone.length === 1 ? 'it' : 'them'}.
            </p>
          )}
        </div>
      </header>
      <div className="compare-top">
        <section className="card compare-differences" aria-label="Differences">
          <h2>What differs most</h2>
          {comparison.differences.length ? (
            <ul data-differences>
              {comparison.differences.map((d) => (
                <li key={d}>{d}</li>
              ))}
            </ul>
          ) : (
            <p className="note" data-differences>
              No figure differs by 20% or more between these runs.
            </p>
          )}
          <ol className="compare-runs">
            {sessions.map((s, i) => (
              <li key={s.id}>
                <span className="swatch" style={{ background: runColours[i % runColours.length] }} /> <strong>{runName(i)}</strong> <code>{s.id}</code> ·{' '}
                {s.file === undefined ? `${new Date(s.createdAt).toLocaleString()} · ${s.status}` : 'a simulated run, from its report file'}
                {s.pace === 'instant' ? ' · instant pace (simulated time)' : ''}
                {s.turns === 0 ? ' · nobody spoke' : ''}
              </li>
            ))}
          </ol>
          <ReportFiles added={added} onChange={onAdded} />
        </section>
        <ChartCard id="radar" title="Shape of each run" note="Each figure scaled across these runs: 0 the lowest, 1 the highest (all equal: 0.5).">
          <Chart option={radar} height={300} label="Radar of the normalised figures, one shape per run" />
        </ChartCard>
      </div>
      <div className="compare-bars">
        {sessionFigures.map((f) => (
          <ChartCard key={f.key} id={`bars-${f.key}`} title={capitalised(f.label)}>
            <Chart option={sessionBarsOf(sessions, f)} height={170} label={`${f.label} per run`} />
          </ChartCard>
        ))}
      </div>
      {people.length > 0 && (
        <div className="compare-bars people">
          {(['speakingShare', 'turns', 'wordsPerMinute', 'responseLatencyMedianMs'] as const).map((field) => {
            const perPerson = figures.filter((f) => f.key.endsWith(`:${field}`));
            const label = perPerson[0]?.label.replace(/^.*?'s /, '') ?? field;
            return (
              <ChartCard key={field} id={`bars-${field}`} title={`${capitalised(label)}, per person`}>
                <Chart option={groupedBarsOf(sessions, perPerson, people)} height={240} label={`${label} per person and run`} />
              </ChartCard>
            );
          })}
        </div>
      )}
      <JudgePanel runs={judged} admin={admin} />
      <section className="card" aria-label="Figures">
        <h2>Figures side by side</h2>
        <table className="compare-table">
          <thead>
            <tr>
              <th>Figure</th>
              {sessions.map((s, i) => (
                <th key={s.id} scope="col">
                  <span className="swatch" style={{ background: runColours[i % runColours.length] }} /> {runName(i)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {figures.map((f) => (
              <tr key={f.key} className={f.participant ? 'person' : ''}>
                <th scope="row">{capitalised(f.label)}</th>
                {sessions.map((s, i) => (
                  <td key={s.id} data-figure={f.key} data-run={i}>
                    {shownFigure(s.values[f.key], f)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </main>
  );
};

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The chart's value axis in the figure's own unit: seconds for times, percent for shares. */
const axisValue = (value: number | null, f: Figure): number | null => (value === null ? null : f.unit === 'ms' ? value / 1000 : f.unit === 'share' ? value * 100 : value);
const axisUnit = (f: Figure): string => (f.unit === 'ms' ? 's' : f.unit === 'share' ? '%' : f.unit === 'wpm' ? 'wpm' : '');

const radarOf = ({ sessions, figures, normalised }: Comparison): ChartOption => {
  const shown = figures.filter((f) => !f.participant);
  return {
    color: runColours,
    legend: { bottom: 0, itemWidth: 14, itemHeight: 10, textStyle: { fontSize: 12 } },
    tooltip: {
      trigger: 'item',
      formatter: (p: { seriesIndex: number; dataIndex: number; name: string }) => {
        const s = sessions[p.dataIndex]!;
        return [`<strong>${p.name}</strong>`, ...shown.map((f) => `${capitalised(f.label)}: ${shownFigure(s.values[f.key], f)}`)].join('<br>');
      },
    },
    radar: {
      center: ['50%', '48%'],
      radius: '64%',
      indicator: shown.map((f) => ({ name: capitalised(f.label).replace('Share of questions answered next', 'Answered next'), max: 1, min: 0 })),
      axisName: { color: '#3b3f45', fontSize: 12 },
      splitLine: split,
      splitArea: { areaStyle: { color: ['#fafbfc', '#f3f5f8'] } },
    },
    series: [
      {
        type: 'radar',
        symbolSize: 5,
        areaStyle: { opacity: 0.08 },
        // A figure a run lacks sits at the centre (the tooltip says "—").
        data: sessions.map((_, i) => ({ name: runName(i), value: shown.map((f) => normalised[f.key]?.[i] ?? 0) })),
      },
    ],
  };
};

// The value axis's unit ("s", "%") sits above the plot, higher than the tallest bar's value label: room for both.
const sessionBarsOf = (sessions: readonly ComparedSession[], f: Figure): ChartOption => ({
  grid: { left: 48, right: 12, top: 38, bottom: 24 },
  tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, formatter: (ps: { dataIndex: number }[]) => `${runName(ps[0]!.dataIndex)}: ${shownFigure(sessions[ps[0]!.dataIndex]!.values[f.key], f)}` },
  xAxis: { type: 'category', data: sessions.map((_, i) => runName(i)), axisTick: { show: false } },
  yAxis: { type: 'value', name: axisUnit(f), nameGap: 22, nameTextStyle: { color: '#50565e', align: 'right' }, splitLine: split, minInterval: f.unit === 'count' ? 1 : 0 },
  series: [
    {
      type: 'bar',
      name: f.label,
      barMaxWidth: 34,
      label: { show: true, position: 'top', fontSize: 11, formatter: (p: { dataIndex: number }) => shownFigure(sessions[p.dataIndex]!.values[f.key], f) },
      data: sessions.map((s, i) => ({ value: axisValue(s.values[f.key] ?? null, f) ?? 0, itemStyle: { color: runColours[i % runColours.length] } })),
    },
  ],
});

const groupedBarsOf = (sessions: readonly ComparedSession[], perPerson: readonly Figure[], people: readonly { id: string; name: string }[]): ChartOption => {
  const byPerson = new Map(perPerson.map((f) => [f.participant, f]));
  const unit = perPerson[0] ? axisUnit(perPerson[0]) : '';
  return {
    color: runColours,
    grid: { left: 48, right: 12, top: 44, bottom: 28 },
    legend: { top: 0, itemWidth: 12, itemHeight: 9, textStyle: { fontSize: 11 } },
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, formatter: (ps: { seriesIndex: number; dataIndex: number }[]) => {
      const f = byPerson.get(people[ps[0]!.dataIndex]!.id);
      return [people[ps[0]!.dataIndex]!.name, ...ps.map((p) => `${runName(p.seriesIndex)}: ${f ? shownFigure(sessions[p.seriesIndex]!.values[f.key], f) : '—'}`)].join('<br>');
    } },
    xAxis: { type: 'category', data: people.map((p) => p.name), axisTick: { show: false }, axisLabel: { interval: 0, fontSize: 11 } },
    yAxis: { type: 'value', name: unit, nameGap: 12, nameTextStyle: { color: '#50565e', align: 'right' }, splitLine: split },
    series: sessions.map((s, i) => ({
      type: 'bar',
      name: runName(i),
      barMaxWidth: 14,
      data: people.map((p) => {
        const f = byPerson.get(p.id);
        return f ? (axisValue(s.values[f.key] ?? null, f) ?? 0) : 0;
      }),
    })),
  };
};
