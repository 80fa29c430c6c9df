/**
 * A session's review, `/review/<session>?token=…` (issue 17, the verification stage): its headline
 * figures, the timeline with a lane per participant and the transcript in step with it, the
 * analytics charts, each participant's figures and the exports. Any role of the session may open
 * it; a participant's report leaves out what only instructors see (server/review/report.ts). A link
 * that does not work gets the room links' problem page; a session where nobody spoke yet, an empty
 * state.
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { Report } from '../../../server/review/report';
import { readToken } from '../net/connection';
import { Analytics, TimeCharts } from '../review/charts';
import { Figures } from '../review/figures';
import { download, exportsOf, openReport, type Export, type OpenedReport } from '../review/load';
import { People } from '../review/people';
import { utterancesOf } from '../review/series';
import { Timeline, type TimelineHandle } from '../review/timeline';
import { Transcript } from '../review/transcript';
import { LinkProblemPage } from './link-problem';

const endings: Record<NonNullable<Report['endReason']>, string> = {
  'snippets-done': 'ended: every part of the scene done',
  'max-turns': 'ended: turn limit reached',
  ended: 'ended by the instructor',
  aborted: 'cut short: the server stopped',
};

export const ReviewPage = ({ session, token, test }: { session: string; token: string; test: boolean }) => {
  const [opened, setOpened] = useState<OpenedReport | null>(null);
  useEffect(() => {
    void openReport(session, token).then(setOpened);
  }, [session, token]);
  if (!opened) return <main className="page">Opening the review…</main>;
  if (opened.kind === 'problem') return <LinkProblemPage problem={opened.problem} detail={opened.detail} />;
  return <Review session={session} token={token} report={opened.report} test={test} />;
};

const Review = ({ session, token, report, test }: { session: string; token: string; report: Report; test: boolean }) => {
  const claims = readToken(token);
  const you = claims?.role === 'participant' ? claims.participant : null;
  const utterances = useMemo(() => utterancesOf(report), [report]);
  // `&t=<ms>` (a debrief's link to a moment): the playhead there, and the utterance nearest it selected.
  const start = useMemo(() => startAt(new URLSearchParams(location.search).get('t'), utterances), [utterances]);
  const [selected, setSelected] = useState<string | null>(start?.utterance ?? null);
  const [playheadMs, setPlayheadMs] = useState(start?.ms ?? 0);
  const select = useCallback(
    (id: string) => {
      setSelected(id);
      setPlayheadMs(utterances.find((u) => u.utterance === id)?.startMs ?? 0);
    },
    [utterances],
  );
  const handle = useCallback(
    (timeline: TimelineHandle) => {
      if (test) (window as { __review?: TimelineHandle }).__review = timeline;
    },
    [test],
  );
  const empty = report.turns === 0;

  return (
    <main className="page review" data-page="review" data-state={empty ? 'empty' : 'report'}>
      <header className="review-head">
        <div>
          <h1>{report.title ?? report.scene ?? session}</h1>
          <p className="note">
            Review of session <code>{session}</code>
            {report.endReason ? ` · ${endings[report.endReason]}` : ' · still running, or ended without a record of its end'}
            {' · '}
            {you ? 'your view as a participant' : 'instructor view'}
          </p>
        </div>
        <Exports session={session} token={token} />
      </header>
      <Figures report={report} />
      {empty ? (
        <section className="card empty-state" data-empty>
          <h2>Nobody has spoken in this session yet</h2>
          <p>There is no timeline, transcript or chart to show until the first utterance. If the session is still in its lobby or running, reload this page once it has gone on.</p>
        </section>
      ) : (
        <>
          <section className="card timeline-card">
            <h2>Timeline</h2>
            <p className="note">Click a bar to find its line in the transcript; zoom with the slider or the mouse wheel.</p>
            <Timeline report={report} playheadMs={playheadMs} selected={selected} onSelect={select} handle={handle} />
          </section>
          <div className="review-grid">
            <section className="card transcript-card">
              <h2>Transcript</h2>
              <Transcript report={report} selected={selected} onSelect={select} onScrollTo={setPlayheadMs} />
            </section>
            <div className="review-stack">
              <TimeCharts report={report} />
            </div>
          </div>
          <div className="review-row">
            <Analytics report={report} />
          </div>
          <People report={report} you={you} />
        </>
      )}
    </main>
  );
};

/** The moment a `t` parameter names (milliseconds from the start) and the utterance nearest it, or null for none or nonsense. */
const startAt = (t: string | null, utterances: { utterance: string; startMs: number; endMs: number }[]): { ms: number; utterance: string | null } | null => {
  const ms = t === null || t === '' ? NaN : Number(t);
  if (!Number.isFinite(ms) || ms < 0) return null;
  const distance = (u: { startMs: number; endMs: number }) => (ms < u.startMs ? u.startMs - ms : ms > u.endMs ? ms - u.endMs : 0);
  const nearest = utterances.reduce<(typeof utterances)[number] | null>((best, u) => (!best || distance(u) < distance(best) ? u : best), null);
  return { ms: Math.round(ms), utterance: nearest?.utterance ?? null };
};

const Exports = ({ session, token }: { session: string; token: string }) => {
  const [problem, setProblem] = useState('');
  const save = (item: Export) => {
    setProblem('');
    download(item, token).catch((error: Error) => setProblem(`Could not download ${item.file}: ${error.message}`));
  };
  return (
    <div className="exports" aria-label="Exports">
      {exportsOf(session).map(({ group, files }) => (
        <div key={group} className="export-group">
          <span>{group}</span>
          {files.map((item) => (
            <button key={item.path} className="small" onClick={() => save(item)} data-export={item.file}>
              {item.label}
            </button>
          ))}
        </div>
      ))}
      {problem && (
        <p className="error" role="alert">
          {problem}
        </p>
      )}
    </div>
  );
};
