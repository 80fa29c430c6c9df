/** Each participant's figures in one table: speaking, pace, fillers, questions, answers by content, interruptions, latency, gaze. */
import type { Report } from '../../../shared/review/report';
import { lanesOf } from './series';

const seconds = (ms: number | null) => (ms === null ? '–' : `${(ms / 1000).toFixed(1)} s`);
const percent = (share: number | null) => (share === null ? '–' : `${Math.round(share * 100)}%`);
/** "3/5 (1)": answered of asked, and those answered in part. */
const answered = (a: NonNullable<Report['answers']>) => `${a.answered}/${a.questions}${a.partly > 0 ? ` (${a.partly})` : ''}`;

export const People = ({ report, you }: { report: Report; you: string | null }) => {
  const colors = new Map(lanesOf(report).map((l) => [l.id, l.color]));
  return (
    <section className="card people-card">
      <h2>Participants</h2>
      <table className="people-table">
        <thead>
          <tr>
            <th>Participant</th>
            <th>Speaking</th>
            <th>Share</th>
            <th>Turns</th>
            <th>Words</th>
            <th title="Words per minute while speaking">Pace</th>
            <th>Fillers</th>
            <th title="Asked · spoke next after, of those put to them">Questions</th>
            <th title="Of the questions and requests put to them, those their reply answered (in part) · of their own, those the one asked answered">Answers</th>
            <th title="Made · received">Interruptions</th>
            <th title="Median · 90th percentile">Response latency</th>
            <th title="Share of others' speaking time spent looking at the speaker (VR)">Gaze at speaker</th>
          </tr>
        </thead>
        <tbody>
          {report.participants.map((p) => (
            <tr key={p.id} data-participant={p.id} className={p.id === you ? 'you' : undefined}>
              <td>
                <i className="swatch" style={{ background: colors.get(p.id) }} />
                {p.name} <small data-kind={p.simulated ? 'stand-in' : p.kind}>{p.kind === 'ai' ? 'AI' : p.simulated ? 'human (stand-in)' : p.id === you ? 'you' : 'human'}</small>
              </td>
              <td>{seconds(p.speakingMs)}</td>
              <td>{percent(p.speakingShare)}</td>
              <td>{p.turns}</td>
              <td>{p.words}</td>
              <td>{p.wordsPerMinute === null ? (p.words > 0 ? 'typed — no pace' : '–') : `${Math.round(p.wordsPerMinute)} wpm`}</td>
              <td title={p.fillers.list.map((f) => `${f.filler} ×${f.count}`).join(', ')}>{p.fillers.count}</td>
              <td>
                {p.questionsAsked} · {p.questionsAnswered}/{p.questionsReceived}
              </td>
              <td data-answers={p.answersGiven ? `${p.answersGiven.answered}/${p.answersGiven.questions}` : undefined}>
                {p.answersGiven && p.answersReceived ? `${answered(p.answersGiven)} · ${answered(p.answersReceived)}` : '–'}
              </td>
              <td>
                {p.interruptionsMade} · {p.interruptionsReceived}
              </td>
              <td>
                {seconds(p.responseLatencyMs.median)} · {seconds(p.responseLatencyMs.p90)}
              </td>
              <td>{percent(p.gazeAtSpeakerShare)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
};
