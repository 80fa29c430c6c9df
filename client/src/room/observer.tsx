/**
 * The instructor's panel: hidden from the room, they follow the transcript and the turn state
 * (floor, hand queue, snippet, impromptu phase) and steer: start the session from its lobby (when
 * every human is here, or with stand-ins for those who are not), hand an empty seat to the
 * simulation, pause, resume, skip, end, a direction for the next AI turn, and the simulated
 * humans' proposed contributions (2-3 candidates with their intents to approve one of, or edit,
 * dismiss, regenerate with another intent), with the time left before the scene's default decides.
 */
import { useEffect, useState } from 'react';
import type { EventOf } from '../../../shared/events';
import { intents } from '../../../shared/scene/schema';
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
        <dd data-floor>
          {nameOf(view, view.floor.speaker) || '—'}
          {view.floor.addressee && ` → ${nameOf(view, view.floor.addressee)}`}
          {view.floor.speaker && view.floorReason && <small className="why"> · {whyTheFloor[view.floorReason]}</small>}
        </dd>
        <dt>Waiting for</dt>
        <dd>{nameOf(view, view.waitingFor) || '—'}</dd>
        <dt>Hands</dt>
        <dd>{view.hands.map((h) => nameOf(view, h)).join(', ') || '—'}</dd>
        <dt>Snippet</dt>
        <dd data-progress>{view.progress ? `${view.progress.title} · turn ${Math.min(view.progress.done, view.progress.turns)} of ${view.progress.turns}` : (view.snippet ?? '—')}</dd>
        <dt>Elapsed</dt>
        <dd>
          <Elapsed view={view} />
        </dd>
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
        <EndButton onEnd={() => send({ type: 'end' })} disabled={ended} />
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

/** Why the engine gave someone the floor, in the instructor's words. */
const whyTheFloor: Record<EventOf<'floor'>['reason'], string> = {
  initiator: 'opens the snippet',
  scripted: "the scene's scripted line",
  designated: 'was asked, and must answer',
  'self-selected': 'bid to speak (self-selection)',
  continues: 'goes on',
  'round-robin': 'round-robin order',
  equal: 'equal order',
  random: 'drawn at random',
  'llm-selector': 'chosen by the LLM selector',
  'llm-selector-fallback': 'the selector failed: drawn at random',
  party: "their party's turn",
  moderator: 'called on by the chair',
  'hand-approved': 'raised a hand, called on',
  interruption: 'cuts in',
  impromptu: 'impromptu phase',
  facilitator: 'facilitator act',
  human: 'spoke up',
  'taking-up': "takes up what the trainee said",
  closing: 'closes the session',
};

/** Time since the session started, ticking while it runs. */
const Elapsed = ({ view }: { view: RoomView }) => {
  const [now, setNow] = useState(() => performance.now());
  const running = view.status === 'live';
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setNow(performance.now()), 1000);
    return () => clearInterval(timer);
  }, [running]);
  if (!view.clock) return <>—</>;
  const ms = view.clock.t + (running ? Math.max(0, now - view.clock.at) : 0);
  const seconds = Math.floor(ms / 1000);
  return <span role="timer">{`${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`}</span>;
};

/** Ending cannot be undone: the first click asks, the second ends. */
const EndButton = ({ onEnd, disabled }: { onEnd: () => void; disabled: boolean }) => {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button className="danger" onClick={() => setAsking(true)} disabled={disabled}>
        End session
      </button>
    );
  }
  return (
    <span className="confirm" role="group" aria-label="confirm end">
      End for everyone?{' '}
      <button
        className="danger"
        onClick={() => {
          setAsking(false);
          onEnd();
        }}
      >
        Yes, end it
      </button>
      <button onClick={() => setAsking(false)}>Keep going</button>
    </span>
  );
};

/**
 * Every seat: a human's (here, empty and whether the simulation stands in, with a "Stand in" for
 * an empty one) and a persona's; the instructor may take any seat nobody is in over, speak for it,
 * and hand it back.
 */
const Seats = ({ session, view }: { session: Session; view: RoomView }) => {
  const people = view.snapshot?.participants ?? [];
  const waitedFor = view.pausedFor?.reason === 'seat-empty' ? view.pausedFor.participants : [];
  const live = view.status !== 'ended';
  return (
    <ul className="seats" aria-label="seats">
      {people.map((p) => {
        const human = p.kind === 'human';
        const stoodIn = view.standIns.includes(p.id);
        const mine = view.controlled.includes(p.id);
        const here = human && p.present && !mine;
        const state = mine ? 'you speak for them' : !human ? 'AI persona' : p.present ? 'here' : stoodIn ? 'empty: the simulation stands in' : waitedFor.includes(p.id) ? 'empty: the session waits' : 'not here';
        return (
          <li key={p.id} className={here || !human || mine ? 'present' : 'missing'}>
            {p.name} <small>{state}</small>
            {human && !p.present && !stoodIn && !mine && live && (
              <button onClick={() => session.send({ type: 'stand-in', participant: p.id })} aria-label={`stand in for ${p.name}`}>
                Stand in
              </button>
            )}
            {!here && live && view.status !== 'lobby' && (
              <button onClick={() => session.send({ type: mine ? 'hand-back' : 'take-over', participant: p.id })} aria-label={`${mine ? 'hand back' : 'take over'} ${p.name}`}>
                {mine ? 'Hand back' : 'Take over'}
              </button>
            )}
            {mine && live && <SayAs session={session} view={view} participant={p.id} name={p.name} />}
          </li>
        );
      })}
    </ul>
  );
};

/** The instructor's line in a seat they took over; the room waits for it on that seat's turns. */
const SayAs = ({ session, view, participant, name }: { session: Session; view: RoomView; participant: string; name: string }) => {
  const [text, setText] = useState('');
  const asked = view.waitingFor === participant;
  return (
    <div className="say">
      <input value={text} placeholder={asked ? `Their turn: say it as ${name}` : `Say as ${name}`} onChange={(e) => setText(e.target.value)} aria-label={`say as ${name}`} />
      <button
        disabled={!text.trim()}
        onClick={() => {
          session.send({ type: 'say-as', participant, text: text.trim() });
          setText('');
        }}
      >
        Say
      </button>
    </div>
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
