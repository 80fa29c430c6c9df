/**
 * A session's review, `/review/<session>?token=…` (issue 17, the verification stage): its headline
 * figures, the timeline with a lane per participant and the transcript in step with it, the
 * analytics charts, each participant's figures and the exports, and playback of the recorded speech
 * from the playhead at 1× or 2× (review/player.ts: the playhead, the transcript and the timeline
 * move with it; lines without a recording are marked and pass in silence), with a link to watch the
 * same moment in 3D (/replay). Any role of the session may open
 * it; a participant's report leaves out what only instructors see (server/review/report.ts). A link
 * that does not work gets the room links' problem page; a session where nobody spoke yet, an empty
 * state.
 */
import { useCallback, useEffect, useMemo, useState, type FormEvent } from 'react';
import type { Report } from '../../../shared/review/report';
import { readToken } from '../net/connection';
import { Analytics, TimeCharts } from './charts';
import { Figures } from './figures';
import { PlayerControls, usePlayer, usePlayhead } from './controls';
import { download, exportsOf, noRecordings, openRecordings, openReport, type Export, type OpenedReport } from './load';
import { People } from './people';
import type { Recordings } from './player';
import { utteranceAt, utterancesOf } from './series';
import { Timeline, type TimelineHandle } from './timeline';
import { Transcript } from './transcript';
import { LinkProblemPage } from '../ui/link-problem';
import { Alert } from '../ui/alert';

const endings: Record<NonNullable<Report['endReason']>, string> = {
  'snippets-done': 'ended: every part of the scene done',
  'max-turns': 'ended: turn limit reached',
  ended: 'ended by the instructor',
  aborted: 'cut short: the server stopped',
};

/** What browser tests read of the playback (`window.__playback` with ?test=1). */
export interface PlaybackHandle {
  position(): number;
  playing(): boolean;
  rate(): number;
  /** Recordings listed by the server, and clips started on the audio clock so far. */
  recordings: number;
  scheduled(): number;
  unrecorded(utterance: string): boolean;
}

declare global {
  interface Window {
    __playback?: PlaybackHandle;
  }
}

export const ReviewPage = ({ session, token, test }: { session: string; token: string; test: boolean }) => {
  const [opened, setOpened] = useState<{ report: OpenedReport; recordings: Recordings } | null>(null);
  useEffect(() => {
    // The recordings only once the report opened: without a token, or with one the server refuses, nothing more is asked.
    void openReport(session, token).then(async (report) => setOpened({ report, recordings: report.kind === 'report' ? await openRecordings(session, token) : noRecordings() }));
  }, [session, token]);
  if (!opened) return <main className="page">Opening the review…</main>;
  if (opened.report.kind === 'problem') return <LinkProblemPage problem={opened.report.problem} detail={opened.report.detail} />;
  return <Review session={session} token={token} report={opened.report.report} recordings={opened.recordings} test={test} />;
};

const Review = ({ session, token, report, recordings, test }: { session: string; token: string; report: Report; recordings: Recordings; test: boolean }) => {
  const claims = readToken(token);
  const you = claims?.role === 'participant' ? claims.participant : null;
  const utterances = useMemo(() => utterancesOf(report), [report]);
  // `&t=<ms>` (a debrief's link to a moment): the playhead there, and the utterance nearest it selected.
  const start = useMemo(() => startAt(new URLSearchParams(location.search).get('t'), utterances), [utterances]);
  const [selected, setSelected] = useState<string | null>(start?.utterance ?? null);
  const player = usePlayer(recordings, report.durationMs, token, start?.ms ?? 0);
  const playheadMs = usePlayhead(player);
  const select = useCallback(
    (id: string) => {
      setSelected(id);
      player.seek(utterances.find((u) => u.utterance === id)?.startMs ?? 0);
    },
    [utterances, player],
  );
  // While it plays, the line being spoken is the selected one (and the transcript scrolls to it).
  useEffect(() => {
    if (!player.playing()) return;
    const line = utteranceAt(utterances, playheadMs);
    if (line) setSelected(line.utterance);
  }, [player, utterances, playheadMs]);
  // Dragging the scrub bar (playing or paused) selects the line at the playhead, so the transcript follows it.
  const scrubbed = useCallback(
    (event: FormEvent<HTMLDivElement>) => {
      const scrub = event.target as HTMLInputElement;
      if (!scrub.classList.contains('scrub')) return;
      const ms = Number(scrub.value);
      const line = utteranceAt(utterances, ms) ?? utterances.findLast((u) => u.startMs <= ms);
      if (line) setSelected(line.utterance);
    },
    [utterances],
  );
  // Scrolling the transcript moves the playhead, unless playback moves it (and scrolls the transcript).
  const scrolledTo = useCallback(
    (ms: number) => {
      if (!player.playing()) player.seek(ms);
    },
    [player],
  );
  useEffect(() => {
    if (!test) return;
    window.__playback = {
      position: () => player.position(),
      playing: () => player.playing(),
      rate: () => player.rate(),
      recordings: recordings.recordings.length,
      scheduled: () => player.scheduled(),
      unrecorded: (utterance) => player.unrecorded(utterance),
    };
    return () => void delete window.__playback;
  }, [test, player, recordings]);
  // Lines are marked "no recording" when the session has recordings at all; without any, one note says so.
  const recorded = recordings.recordings.length > 0;
  const unrecorded = recorded ? (utterance: string) => player.unrecorded(utterance) : undefined;
  // The rest of the page does not follow the playhead: made once per report, not re-rendered as it moves.
  const people = useMemo(() => <People report={report} you={you} />, [report, you]);
  const figures = useMemo(() => <Figures report={report} />, [report]);
  const timeCharts = useMemo(() => <TimeCharts report={report} />, [report]);
  const analytics = useMemo(() => <Analytics report={report} />, [report]);
  const replay = `/replay/${encodeURIComponent(session)}?token=${encodeURIComponent(token)}&t=${Math.round(playheadMs)}${test ? '&test=1' : ''}`;
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
          {report.pace === 'instant' && (
            <p className="note" data-simulated-time>
              Run at instant pace, on simulated time: each turn follows the last after 0.4 s and lasts as long as its words take at the speaker's rate, so durations, response latencies and words per minute are the simulation's.
            </p>
          )}
        </div>
        <Exports session={session} token={token} />
      </header>
      {figures}
      {empty ? (
        <section className="card empty-state" data-empty>
          <h2>Nobody has spoken in this session yet</h2>
          <p>There is no timeline, transcript or chart to show until the first utterance. If the session is still in its lobby or running, reload this page once it has gone on.</p>
        </section>
      ) : (
        <>
          <section className="card timeline-card">
            <h2>Timeline</h2>
            <p className="note">Click a bar to find its line in the transcript; zoom with the slider or the mouse wheel. Play from the playhead to hear the session.</p>
            <div className="playback" onInput={scrubbed}>
              <PlayerControls player={player} ms={playheadMs} note={recorded ? undefined : 'No recorded speech in this session: playback runs in silence.'} />
              <a className="button watch" href={replay} data-replay>
                Watch in 3D
              </a>
            </div>
            <Timeline report={report} playheadMs={playheadMs} selected={selected} onSelect={select} handle={handle} />
          </section>
          <div className="review-grid">
            <section className="card transcript-card">
              <h2>Transcript</h2>
              <Transcript report={report} selected={selected} onSelect={select} onScrollTo={scrolledTo} unrecorded={unrecorded} />
            </section>
            <div className="review-stack">{timeCharts}</div>
          </div>
          <div className="review-row">{analytics}</div>
          {people}
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
      <Alert message={problem} />
    </div>
  );
};
