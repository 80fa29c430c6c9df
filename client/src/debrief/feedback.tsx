/**
 * The debrief's written feedback and question box (issue 17, part 3), from
 * GET /api/sessions/:id/feedback and POST /api/sessions/:id/ask (server/api/review.ts).
 * The feedback says who wrote it: "Written by <vendor>" when a language model did, "From the
 * figures" when the rules did (no generator key, or the vendor failed). Every moment either cites
 * links into the review at that time. The question box is for the screen only (no-print).
 */
import { useEffect, useState, type FormEvent } from 'react';
import { clock, gist, MAX_QUESTION_CHARS, type Answer, type Feedback } from '../../../shared/review/answers';
import { api } from '../net/api';

/** Where a moment's link goes: the review with its playhead at `ms`. */
type LinkTo = (ms: number) => string;

const byline = (by: Feedback['by'], vendor: string | undefined) => (by === 'model' ? `Written by ${vendor ?? 'a language model'}` : 'From the figures');

export const WrittenFeedback = ({ session, token, seat, linkTo }: { session: string; token: string; seat: string; linkTo: LinkTo }) => {
  const [state, setState] = useState<{ kind: 'loading' } | { kind: 'done'; feedback: Feedback } | { kind: 'failed'; message: string }>({ kind: 'loading' });
  useEffect(() => {
    let live = true;
    setState({ kind: 'loading' });
    api
      .feedback(session, token, seat)
      .then((feedback) => live && setState({ kind: 'done', feedback }))
      .catch((error: Error) => live && setState({ kind: 'failed', message: error.message }));
    return () => {
      live = false;
    };
  }, [session, token, seat]);

  return (
    <section className="debrief-section written-feedback" data-feedback={state.kind === 'done' ? state.feedback.by : state.kind}>
      <h2>In a few words</h2>
      {state.kind === 'loading' && <p className="note">Writing your feedback…</p>}
      {state.kind === 'failed' && <p className="note" role="alert">The feedback could not be written: {state.message}</p>}
      {state.kind === 'done' && (
        <>
          <p className="paragraph">{state.feedback.paragraph}</p>
          {state.feedback.moments.length > 0 && (
            <ul className="feedback-moments">
              {state.feedback.moments.map((m) => (
                <li key={m.startMs}>
                  <a href={linkTo(m.startMs)} data-moment={m.startMs}>
                    {clock(m.startMs)}
                  </a>{' '}
                  <span className="note">{m.text}</span>
                </li>
              ))}
            </ul>
          )}
          <p className="note byline" data-by={state.feedback.by}>
            {byline(state.feedback.by, state.feedback.vendor)}
            {state.feedback.by === 'rules' && !state.feedback.note ? ': rule-based; with a generator key configured, a language model writes this from the transcript.' : '.'}
            {state.feedback.note ? ` (${state.feedback.note}.)` : ''}
          </p>
        </>
      )}
    </section>
  );
};

export const QuestionBox = ({ session, token, seat, linkTo }: { session: string; token: string; seat: string; linkTo: LinkTo }) => {
  const [question, setQuestion] = useState('');
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<Answer | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  const ask = async (event: FormEvent) => {
    event.preventDefault();
    if (!question.trim() || busy) return;
    setBusy(true);
    setProblem(null);
    try {
      setAnswer(await api.ask(session, token, { seat, question }));
    } catch (error) {
      setProblem((error as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="debrief-section question-box no-print" aria-label="Ask about this session">
      <h2>Ask about this session</h2>
      <form onSubmit={ask} aria-busy={busy}>
        <input
          type="text"
          value={question}
          onChange={(e) => setQuestion(e.target.value)}
          maxLength={MAX_QUESTION_CHARS}
          placeholder="When did I dodge the salary question?"
          aria-label="Your question"
          disabled={busy}
        />{' '}
        <button type="submit" className="primary" disabled={busy || !question.trim()}>
          {busy ? 'Asking…' : 'Ask'}
        </button>
      </form>
      {problem && (
        <p className="note problem" role="alert">
          {problem}
        </p>
      )}
      {answer && (
        <div className="answer" data-answer={answer.by}>
          <p>{answer.answer}</p>
          {answer.moments.length > 0 && (
            <ul className="feedback-moments">
              {answer.moments.map((m) => (
                <li key={m.startMs}>
                  <a href={linkTo(m.startMs)} data-moment={m.startMs}>
                    {clock(m.startMs)}
                  </a>{' '}
                  <strong>{m.name}:</strong> <span>“{gist(m.text, 24)}”</span>
                </li>
              ))}
            </ul>
          )}
          <p className="note byline" data-by={answer.by}>
            {answer.by === 'model' ? `Answered by ${answer.vendor ?? 'a language model'} from the transcript.` : 'Found by meaning in the transcript: with a generator key configured, a language model answers in words.'}
            {answer.note ? ` (${answer.note}.)` : ''}
          </p>
        </div>
      )}
    </section>
  );
};
