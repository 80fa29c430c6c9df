/**
 * The trainee's debrief, `/debrief/<session>?token=…` (issue 17, part 3; issue 25): for the viewer's
 * seat, from GET /api/sessions/:id/debrief (review/debrief.ts's rules, on the server): their talk
 * share against what the room expects, pace, fillers and response time of their speech (typed
 * lines get none: "typed — no pace measured"), questions answered (by what the reply said) and
 * answered next, interruptions, gaze in VR, and three observations, each moment a link into the
 * review at that time (`&t=<ms>`). An
 * instructor's or author's token shows a picker of the human seats, the first one chosen. Then a
 * written paragraph (feedback.tsx: a language model's with a generator key, else from the
 * figures) and a question box answered from the transcript. Prints as a one-page document
 * (styles.css, `@media print`), without the question box.
 */
import { useEffect, useMemo, useState } from 'react';
import type { ParticipantReport, Report } from '../../../shared/review/report';
import { readToken } from '../net/connection';
import { Chart, type ChartOption } from '../review/chart';
import { comfortablePace, type Debrief } from '../../../shared/review/answers';
import { api } from '../net/api';
import { QuestionBox, WrittenFeedback } from './feedback';
import { openReport, type OpenedReport } from '../review/load';
import { formatDuration } from '../ui/format';
import { LinkProblemPage } from '../ui/link-problem';

export const DebriefPage = ({ session, token }: { session: string; token: string }) => {
  const [opened, setOpened] = useState<OpenedReport | null>(null);
  useEffect(() => {
    void openReport(session, token).then(setOpened);
  }, [session, token]);
  if (!opened) return <main className="page">Opening your debrief…</main>;
  if (opened.kind === 'problem') return <LinkProblemPage problem={opened.problem} detail={opened.detail} />;
  return <DebriefOf session={session} token={token} report={opened.report} />;
};

const reviewAt = (session: string, token: string, ms?: number) => `/review/${encodeURIComponent(session)}?token=${encodeURIComponent(token)}${ms === undefined ? '' : `&t=${Math.round(ms)}`}`;
const seconds = (ms: number | null) => (ms === null ? '–' : `${(ms / 1000).toFixed(1)} s`);
const percent = (share: number) => `${Math.round(share * 100)}%`;

const DebriefOf = ({ session, token, report }: { session: string; token: string; report: Report }) => {
  const claims = readToken(token);
  const own = claims?.role === 'participant' ? claims.participant : null;
  const humans = report.participants.filter((p) => p.kind === 'human');
  const [picked, setPicked] = useState<string | null>(own ?? humans[0]?.id ?? null);
  const seat = own ?? picked;
  const known = seat !== null && report.participants.some((p) => p.id === seat);
  const [fetched, setFetched] = useState<{ seat: string; debrief: Debrief } | { seat: string; problem: string } | null>(null);
  useEffect(() => {
    if (!known) return;
    let current = true;
    api.debrief(session, token, seat).then(
      (debrief) => current && setFetched({ seat, debrief }),
      (error: Error) => current && setFetched({ seat, problem: error.message }),
    );
    return () => {
      current = false;
    };
  }, [session, token, seat, known]);
  const shown = fetched?.seat === seat ? fetched : null;
  const debrief = shown && 'debrief' in shown ? shown.debrief : null;
  if (known && !shown) return <main className="page">Opening your debrief…</main>;

  return (
    <main className="page debrief" data-page="debrief" data-seat={seat ?? ''}>
      <header className="debrief-head">
        <div>
          <p className="eyebrow">Debrief</p>
          <h1>{debrief ? (debrief.you.simulated ? `${debrief.you.name}: how the stand-in did` : `${debrief.you.name}, here is how it went`) : 'Debrief'}</h1>
          {debrief?.you.simulated && (
            <p className="stand-in-note" data-stand-in>
              This seat was played by the simulation (a stand-in): these figures describe the stand-in, not a person.
            </p>
          )}
          {report.pace === 'instant' && (
            <p className="note" data-simulated-time>
              Run at instant pace, on simulated time: response times and words per minute are the simulation's, not anyone's.
            </p>
          )}
          <p className="note">
            {report.title ?? report.scene ?? session} · {formatDuration(report.durationMs)} · {report.turns} turns · session <code>{session}</code>
          </p>
        </div>
        <nav className="debrief-actions no-print">
          <a className="button" href={reviewAt(session, token)}>
            Open the review
          </a>
          <button className="primary" onClick={() => window.print()}>
            Print or save as PDF
          </button>
        </nav>
      </header>
      {!own && humans.length > 0 && (
        <p className="debrief-picker no-print">
          <label>
            Debrief of{' '}
            <select value={seat ?? ''} onChange={(e) => setPicked(e.target.value)} aria-label="Participant">
              {humans.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </select>
          </label>{' '}
          <span className="note">you are viewing as an instructor: pick a human seat.</span>
        </p>
      )}
      {debrief ? (
        <Body session={session} token={token} seat={seat!} debrief={debrief} />
      ) : shown && 'problem' in shown ? (
        <section className="card empty-state" role="alert" data-problem>
          <h2>The debrief could not be opened</h2>
          <p>{shown.problem}</p>
        </section>
      ) : (
        <section className="card empty-state" data-empty>
          <h2>No one to debrief</h2>
          <p>{own ? 'Your seat is not in this session’s record.' : 'This session had no human participants: there is no trainee to debrief. The review shows how the personas did.'}</p>
        </section>
      )}
    </main>
  );
};

const Body = ({ session, token, seat, debrief }: { session: string; token: string; seat: string; debrief: Debrief }) => {
  const { you, speech } = debrief;
  const linkTo = (ms: number) => reviewAt(session, token, ms);
  return (
    <>
      <section className="debrief-section observations-section">
        <h2>{debrief.observations.length === 3 ? 'Three things to take away' : 'What to take away'}</h2>
        <ol className="observations" data-observations={debrief.observations.length}>
          {debrief.observations.map((o) => (
            <li key={o.id} className={o.tone} data-observation={o.id}>
              <span className="tone">{o.tone === 'positive' ? 'Went well' : o.tone === 'note' ? 'Note' : 'Work on'}</span>
              <p>{o.text}</p>
              {o.moments.length > 0 && (
                <p className="moments">
                  {o.moments.length === 1 ? 'The moment: ' : 'The moments: '}
                  {o.moments.map((m, i) => (
                    <span key={m.startMs}>
                      {i > 0 && ', '}
                      <a href={reviewAt(session, token, m.startMs)} data-moment={m.startMs}>
                        {m.label}
                      </a>
                    </span>
                  ))}
                </p>
              )}
            </li>
          ))}
        </ol>
      </section>
      <WrittenFeedback session={session} token={token} seat={seat} linkTo={linkTo} />
      <section className="debrief-section debrief-figures">
        <h2>Your figures</h2>
        <div className="debrief-grid">
          <Figure id="share" wide value={you.speakingShare} label="Talk share" shown={percent(you.speakingShare)}>
            <ShareBar share={you.speakingShare} expected={debrief.expectedShare} />
            <span className="note">
              Expected about {percent(debrief.expectedShare)}: {debrief.expectedBasis}. You spoke {formatDuration(you.speakingMs)} in {you.turns} turns.
            </span>
          </Figure>
          <Figure id="pace" value={speech.wordsPerMinute} label="Pace" shown={speech.wordsPerMinute === null ? '–' : `${Math.round(speech.wordsPerMinute)} wpm`}>
            {speech.wordsPerMinute === null ? <span className="note" data-unmeasured>{capital(debrief.unmeasured ?? 'not measured')}.</span> : <PaceChart wpm={speech.wordsPerMinute} />}
            <span className="note">
              Comfortable: {comfortablePace.low}–{comfortablePace.high} words per minute of speech. {speech.wordsPerMinute === null ? `${you.words} words in all.` : `${speech.words} words spoken${speech.turns < you.turns ? ` in ${speech.turns} of your ${you.turns} turns` : ''}.`}
            </span>
          </Figure>
          <Figure id="fillers" value={debrief.fillersPerMinute === null ? null : speech.fillers.count} label="Fillers" shown={debrief.fillersPerMinute === null ? '–' : String(speech.fillers.count)}>
            <span className="note">
              {debrief.fillersPerMinute === null ? `${capital(measuredOnSpeech(debrief))}.` : `${debrief.fillersPerMinute} a minute of speaking${speech.fillers.list.length ? ': ' + speech.fillers.list.slice(0, 3).map((f) => `“${f.filler}” ${f.count}×`).join(', ') : ''}.`}
            </span>
          </Figure>
          <Figure id="latency" value={speech.responseMs.median} label="Response time" shown={seconds(speech.responseMs.median)}>
            <span className="note">
              {speech.responseMs.samples === 0
                ? debrief.unmeasured
                  ? `${capital(measuredOnSpeech(debrief))}.`
                  : 'Not measured: you never spoke right after someone else.'
                : `Median; 90th percentile ${seconds(speech.responseMs.p90)}, over ${speech.responseMs.samples} spoken replies (time the session was paused not counted).`}
            </span>
          </Figure>
          {debrief.questions.byContent && (
            <Figure id="answers" value={debrief.questions.byContent.answered} label="Questions answered" shown={`${debrief.questions.byContent.answered} of ${debrief.questions.byContent.questions}`}>
              <span className="note">{answersNote(debrief.questions.byContent, debrief.questions.dodged)}</span>
            </Figure>
          )}
          <Figure id="questions" value={you.questionsAnswered} label="Answered next" shown={`${you.questionsAnswered} of ${you.questionsReceived}`}>
            <span className="note">{you.questionsReceived === 0 ? 'Nobody put a question to you by name.' : 'Questions put to you by name after which you spoke next.'} You asked {you.questionsAsked}.</span>
          </Figure>
          <Figure id="interruptions" value={you.interruptionsMade} label="Interruptions" shown={`${you.interruptionsMade} made`}>
            <span className="note">{you.interruptionsMade === 0 ? 'You let every speaker finish.' : 'Times you cut someone off.'} Others cut you off {you.interruptionsReceived === 1 ? 'once' : `${you.interruptionsReceived} times`}.</span>
          </Figure>
          <Figure id="gaze" value={you.gazeAtSpeakerShare} label="Gaze at the speaker" shown={you.gazeAtSpeakerShare === null ? '–' : percent(you.gazeAtSpeakerShare)}>
            <span className="note">{gazeNote(you, debrief.observations[0]?.tone === 'note')}</span>
          </Figure>
        </div>
      </section>
      <QuestionBox session={session} token={token} seat={seat} linkTo={linkTo} />
      <p className="note debrief-foot">
        The observations and figures are computed from the session’s record by rules. <span className="no-print">Click a time to open the review at that moment.</span>
      </p>
    </>
  );
};

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
/** Why fillers and pauses were not measured: the same reason as the pace. */
const measuredOnSpeech = (debrief: Debrief) => (debrief.unmeasured ?? 'not measured').replace(/no pace measured/, 'measured on speech only');

/** What the replies to the questions put to them gave, beyond the count answered. */
const answersNote = (given: NonNullable<Debrief['questions']['byContent']>, dodged: number) =>
  given.questions === 0
    ? 'Nobody put a question or request to you by name.'
    : `Questions and requests put to you by name that your reply answered${given.partly > 0 ? `; ${given.partly} in part` : ''}${given.not > 0 ? `; ${given.not} not answered` : ''}${dodged > 0 ? ` (${dodged} turned aside: a non-answer, or a reply that gave nothing asked)` : ''}.`;

/** Gaze is logged only in VR: without it, a desktop join (or a stand-in, or, when nobody spoke, nothing to look at). */
const gazeNote = (you: ParticipantReport, nobodySpoke: boolean) =>
  you.gazeAtSpeakerShare !== null
    ? 'Of the others’ speaking time, the share you looked at the speaker (VR head tracking).'
    : you.simulated
      ? 'Not measured: nobody joined this seat (gaze is measured in VR).'
      : nobodySpoke
      ? 'Not measured: nobody spoke.'
      : 'Not measured: you joined on a desktop (gaze is measured in VR).';

const Figure = ({ id, value, label, shown, wide, children }: { id: string; value: number | null; label: string; shown: string; wide?: boolean; children: React.ReactNode }) => (
  <div className={wide ? 'debrief-figure wide' : 'debrief-figure'} data-figure={id} data-value={value === null ? '' : String(value)}>
    <h3>{label}</h3>
    <p className="value">{shown}</p>
    {children}
  </div>
);

/** Their share as a bar, the expected share as a tick on it. */
const ShareBar = ({ share, expected }: { share: number; expected: number }) => (
  <div className="share-bar" role="img" aria-label={`${percent(share)} of the talk, about ${percent(expected)} expected`}>
    <i className="fill" style={{ width: `${Math.min(100, share * 100)}%` }} />
    <i className="expected" style={{ left: `${Math.min(100, expected * 100)}%` }} title="expected" />
  </div>
);

/** Pace as one bar on a 0–240 scale (or more), the comfortable band shaded. */
const PaceChart = ({ wpm }: { wpm: number }) => {
  const option = useMemo<ChartOption>(() => {
    const inBand = wpm >= comfortablePace.low && wpm <= comfortablePace.high;
    return {
      grid: { left: 8, right: 16, top: 22, bottom: 20 },
      xAxis: { type: 'value', min: 0, max: Math.max(240, Math.ceil(wpm / 20) * 20), splitLine: { show: false }, axisLabel: { fontSize: 10 } },
      yAxis: { type: 'category', data: ['you'], show: false },
      series: [
        {
          type: 'bar',
          data: [Math.round(wpm)],
          barWidth: 16,
          itemStyle: { color: inBand ? '#2e9e6a' : '#d9822b', borderRadius: 3 },
          label: { show: true, position: 'right', formatter: '{c}', fontSize: 11 },
          markArea: { silent: true, itemStyle: { color: 'rgba(46, 158, 106, 0.16)' }, label: { position: 'top', fontSize: 10, color: '#2e7d55' }, data: [[{ xAxis: comfortablePace.low, name: `${comfortablePace.low}–${comfortablePace.high}` }, { xAxis: comfortablePace.high }]] },
        },
      ],
    };
  }, [wpm]);
  return <Chart option={option} height={70} label={`Pace ${Math.round(wpm)} words per minute; comfortable ${comfortablePace.low}–${comfortablePace.high}`} className="pace-chart" />;
};
