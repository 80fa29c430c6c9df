/**
 * The instructor's panel: hidden from the room, they follow the transcript and the turn state
 * (floor, hand queue, snippet, impromptu phase) and steer: pause, resume, skip, end, a direction
 * for the next AI turn, and the simulated humans' proposed contributions (2-3 candidates with
 * their intents to approve one of, or edit, dismiss, regenerate with another intent).
 */
import { useState } from 'react';
import { intents } from '../../../server/scene/schema';
import { nameOf, type RoomView } from '../state/room';
import type { Session } from './session';
import { Transcript } from './transcript';

export const ObserverPanel = ({ session, view }: { session: Session; view: RoomView }) => {
  const [direction, setDirection] = useState('');
  const [edit, setEdit] = useState<string | null>(null);
  const proposal = view.proposal;
  const send = session.send;
  return (
    <aside className="hud observer">
      <header>
        <b>Instructor · {view.snapshot?.scene.title}</b>
        <span>{view.ended ? 'ended' : view.paused ? 'paused' : 'live'}</span>
      </header>
      <dl className="state">
        <dt>Floor</dt>
        <dd>
          {nameOf(view, view.floor.speaker) || '—'}
          {view.floor.addressee && ` → ${nameOf(view, view.floor.addressee)}`}
        </dd>
        <dt>Waiting for</dt>
        <dd>{nameOf(view, view.waitingFor) || '—'}</dd>
        <dt>Hands</dt>
        <dd>{view.hands.map((h) => nameOf(view, h)).join(', ') || '—'}</dd>
        <dt>Snippet</dt>
        <dd>{view.snippet ?? '—'}</dd>
        <dt>Impromptu</dt>
        <dd>{view.impromptu ? `${nameOf(view, view.impromptu)} deviates` : '—'}</dd>
      </dl>
      <Transcript view={view} />
      {proposal && (
        <section className="proposal" aria-label="proposal">
          <p>
            <b>{nameOf(view, proposal.participant)}</b> could say:
          </p>
          <ol className="candidates">
            {(proposal.candidates ?? [{ intent: proposal.intent, text: proposal.text }]).map((candidate, i) => (
              <li key={i}>
                <span className="intent">{candidate.intent}</span> “{candidate.text}”
                <button onClick={() => send({ type: 'approve', proposal: proposal.id, ...(i ? { choice: i } : {}) })} aria-label={`approve ${candidate.intent}`}>
                  Approve
                </button>
              </li>
            ))}
          </ol>
          {edit === null ? (
            <div className="controls">
              <button onClick={() => setEdit(proposal.text)}>Edit</button>
              <button onClick={() => send({ type: 'dismiss', proposal: proposal.id })}>Dismiss</button>
              <select aria-label="regenerate" value="" onChange={(e) => e.target.value && send({ type: 'regenerate', proposal: proposal.id, intent: e.target.value as (typeof intents)[number] })}>
                <option value="">Regenerate as…</option>
                {intents.map((intent) => (
                  <option key={intent} value={intent}>
                    {intent}
                  </option>
                ))}
              </select>
            </div>
          ) : (
            <div className="say">
              <input value={edit} onChange={(e) => setEdit(e.target.value)} aria-label="edited contribution" />
              <button
                onClick={() => {
                  send({ type: 'edit', proposal: proposal.id, text: edit });
                  setEdit(null);
                }}
              >
                Send edited
              </button>
              <button onClick={() => setEdit(null)}>Cancel</button>
            </div>
          )}
        </section>
      )}
      <div className="say">
        <input value={direction} placeholder="Direction for the next AI turn (only the AI sees it)" onChange={(e) => setDirection(e.target.value)} aria-label="direction" />
        <button
          disabled={!direction.trim()}
          onClick={() => {
            send({ type: 'inject', text: direction.trim() });
            setDirection('');
          }}
        >
          Inject
        </button>
      </div>
      <div className="controls">
        {view.paused ? <button onClick={() => send({ type: 'resume' })}>Resume</button> : <button onClick={() => send({ type: 'pause' })}>Pause</button>}
        <button onClick={() => send({ type: 'skip-turn' })}>Skip turn</button>
        <button className="danger" onClick={() => send({ type: 'end' })} disabled={view.ended}>
          End session
        </button>
      </div>
      {view.notices.slice(-3).map((n) => (
        <p key={n.seq} className={n.level === 'info' ? 'note' : 'warn'}>
          {n.message}
        </p>
      ))}
    </aside>
  );
};
