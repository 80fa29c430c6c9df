/**
 * What a join link shows once its session has ended: the scene, how long it ran, how many turns,
 * who took part, and the review when there is one (and, for a participant, their debrief first) (opened with the viewer's own token: the
 * review shows what their role may see).
 */
import type { Role } from '../../../shared/claims';
import type { EndedSummary } from '../net/sessions';
import { formatDuration } from '../ui/format';

/** The review's address with the viewer's token, which the page opened from its own link (`?token=`). */
export const reviewLink = (review: string, token: string): string => (token ? `${review}${review.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}` : review);

/** The participant's debrief (debrief/page.tsx): the review's address with `/debrief/` for `/review/`, and their token. */
export const debriefLink = (review: string, token: string): string => reviewLink(review.replace(/^\/review\//, '/debrief/'), token);

export const EndedPage = ({ summary, role, token = new URLSearchParams(location.search).get('token') ?? '' }: { summary: EndedSummary; role: Role | null; token?: string }) => (
  <main className="page ended" data-page="ended">
    <h1>{summary.scene.title}</h1>
    <p className="lead">This session has ended{summary.endedBecause && summary.endedBecause !== 'The session was ended' ? `: ${summary.endedBecause.charAt(0).toLowerCase()}${summary.endedBecause.slice(1)}` : ''}.</p>
    <dl className="facts">
      {summary.durationMs !== null && (
        <>
          <dt>Duration</dt>
          <dd>{formatDuration(summary.durationMs)}</dd>
        </>
      )}
      {summary.turns !== null && (
        <>
          <dt>Turns</dt>
          <dd>{summary.turns}</dd>
        </>
      )}
      {summary.participants.length > 0 && (
        <>
          <dt>Participants</dt>
          <dd>
            <ul className="people">
              {summary.participants.map((p) => (
                <li key={p.id}>
                  {p.name} <small>{p.kind === 'ai' ? 'AI persona' : 'human'}</small>
                </li>
              ))}
            </ul>
          </dd>
        </>
      )}
    </dl>
    {summary.review ? (
      <p className="ended-actions">
        {role === 'participant' && token && (
          <a className="button primary" href={debriefLink(summary.review, token)}>
            Your debrief
          </a>
        )}{' '}
        <a className={role === 'participant' && token ? 'button' : 'button primary'} href={reviewLink(summary.review, token)}>
          Open the review
        </a>
      </p>
    ) : (
      <p className="note">
        {role === 'participant' ? 'There is no review of it yet: your instructor can share one. To rehearse again, ask for a new join link.' : 'There is no review of it yet. Create a new session from the home page to rehearse again.'}
      </p>
    )}
  </main>
);
