/**
 * The instructor's panel: hidden from the room, they follow the transcript and the turn state
 * (floor, hand queue, snippet, impromptu phase) and steer: start the session from its lobby (when
 * every human is here, or with stand-ins for those who are not), hand an empty seat to the
 * simulation, pause, resume, skip, end, a direction for the next AI turn, and the simulated
 * humans' proposed contributions (2-3 candidates with their intents to approve one of, or edit,
 * dismiss, regenerate with another intent), with the time left before the scene's default decides.
 */
import { useEffect, useState } from 'react';
import { intents } from '../../../server/scene/schema';
import { nameOf, type Proposal, type RoomView } from '../state/room';
import type { Session } from './session';
import { StatusLine, useRoomStatus } from './status-line';
import { Transcript } from './transcript';

export const ObserverPanel = ({ session, view }: { session: Session; view: RoomView }) => {
  const [direction, setDirection] = useState('');
  const status = useRoomStatus(view);
  const send = session.send;
  const ended = view.status === 'ended';
  return (
    <aside className="hud observer">
      <header>
        <b>Instructor · {view.snapshot?.scene.title}</b>
        <span className="lifecycle">{view.status}</span>
      </header>
      <StatusLine view={view} status={status} />
      {view.status === 'lobby' && <StartControls session={session} view={view} />}
      <Seats session={session} view={view} />
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
      <Transcript view={view} position={session.position} />
      {view.proposal && <ProposalCard key={view.proposal.id} session={session} view={view} proposal={view.proposal} />}
      <div className="say">
        <input value={direction} placeholder="Direction for the next AI turn (only the AI sees it)" onChange={(e) => setDirection(e.target.value)} aria-label="direction" />
        <button
          disabled={!direction.trim() || ended}
          onClick={() => {
            send({ type: 'inject', text: direction.trim() });
            setDirection('');
          }}
        >
          Inject
        </button>
      </div>
      <div className="controls">
        {view.status === 'paused' ? (
          <button onClick={() => send({ type: 'resume' })}>Resume</button>
        ) : (
          <button onClick={() => send({ type: 'pause' })} disabled={view.status !== 'live'}>
            Pause
          </button>
        )}
        <button onClick={() => send({ type: 'skip-turn' })} disabled={view.status !== 'live'}>
          Skip turn
        </button>
        <button className="danger" onClick={() => send({ type: 'end' })} disabled={ended}>
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

/** The lobby's two ways to start: everyone is here, or stand-ins speak for who is not. */
const StartControls = ({ session, view }: { session: Session; view: RoomView }) => {
  const humans = view.snapshot?.participants.filter((p) => p.kind === 'human') ?? [];
  const everyone = humans.every((p) => p.present);
  return (
    <div className="controls start">
      <button className="primary" onClick={() => session.send({ type: 'start' })} disabled={!everyone} title={everyone ? '' : 'Every human seat must be taken'}>
        Start
      </button>
      <button onClick={() => session.send({ type: 'start', standIns: true })} disabled={everyone}>
        Start with stand-ins
      </button>
    </div>
  );
};

/** Every human seat: here, empty (and whether the simulation stands in), with a "Stand in" for an empty one. */
const Seats = ({ session, view }: { session: Session; view: RoomView }) => {
  const humans = view.snapshot?.participants.filter((p) => p.kind === 'human') ?? [];
  const waitedFor = view.pausedFor?.reason === 'seat-empty' ? view.pausedFor.participants : [];
  return (
    <ul className="seats" aria-label="seats">
      {humans.map((p) => {
        const stoodIn = view.standIns.includes(p.id);
        return (
          <li key={p.id} className={p.present ? 'present' : 'missing'}>
            {p.name} <small>{p.present ? 'here' : stoodIn ? 'empty: the simulation stands in' : waitedFor.includes(p.id) ? 'empty: the session waits' : 'not here'}</small>
            {!p.present && !stoodIn && view.status !== 'ended' && (
              <button onClick={() => session.send({ type: 'stand-in', participant: p.id })} aria-label={`stand in for ${p.name}`}>
                Stand in
              </button>
            )}
          </li>
        );
      })}
    </ul>
  );
};

/** Seconds left before the deadline, counting down once a second. */
const useSecondsLeft = (deadline: number | null): number | null => {
  const [now, setNow] = useState(() => performance.now());
  useEffect(() => {
    if (deadline === null) return;
    const timer = setInterval(() => setNow(performance.now()), 250);
    return () => clearInterval(timer);
  }, [deadline]);
  return deadline === null ? null : Math.max(0, Math.ceil((deadline - now) / 1000));
};

const ProposalCard = ({ session, view, proposal }: { session: Session; view: RoomView; proposal: Proposal }) => {
  const [edit, setEdit] = useState<string | null>(null);
  const secondsLeft = useSecondsLeft(proposal.deadline);
  const send = session.send;
  return (
    <section className="proposal" aria-label="proposal">
      <p>
        <b>{nameOf(view, proposal.participant)}</b> could say:
        {secondsLeft !== null && (
          <span className="countdown" role="timer">
            {' '}
            {secondsLeft > 0 ? `the scene decides in ${secondsLeft} s` : 'the scene decides now'}
          </span>
        )}
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
  );
};
