/**
 * A session's 3D replay, `/replay/<session>?token=…&t=<ms>` (issue 17 part 4): the room as it was
 * at the playhead, its avatars speaking with lip sync, looking and gesturing as they did, with
 * play, pause, 1× or 2× and a scrub bar (the review's player and controls), the line being said,
 * and who was in the room. Any role of the session may open it and sees what its review shows
 * (the log as the role may see it). Opened from the review's "Watch in 3D", at its playhead.
 */
import { useEffect, useMemo, useState } from 'react';
import type { ReplayData } from '../../../shared/review/replay';
import type { Report } from '../../../shared/review/report';
import { readToken } from '../net/connection';
import { PlayerControls, usePlayer, usePlayhead } from '../review/controls';
import { openRecordings, openReplay, openReport } from '../review/load';
import type { Recordings } from '../review/player';
import { createReplay } from './replay';
import { Replay3D } from './replay3d';
import { utteranceAt, utterancesOf } from '../review/series';
import { nameOf, type RoomView } from '../state/room';
import { LinkProblemPage } from '../ui/link-problem';

type Person = NonNullable<RoomView['snapshot']>['participants'][number];
/** In the room at the playhead: a persona always, a human once joined and until they left. */
const here = (p: Person): boolean => p.kind !== 'human' || p.present;
/** Humans the simulation spoke for at some point of the session (stand-ins from its start leave no other trace). */
const simulatedIn = (data: ReplayData): Set<string> => new Set(data.events.flatMap((e) => (e.type === 'utterance' && e.source === 'simulated-human' ? [e.speaker] : [])));

type Opened =
  | { kind: 'ready'; report: Report; data: ReplayData; recordings: Recordings }
  | { kind: 'problem'; problem: Parameters<typeof LinkProblemPage>[0]['problem']; detail: string | null };

const open = async (session: string, token: string): Promise<Opened> => {
  const [report, data, recordings] = await Promise.all([openReport(session, token), openReplay(session, token), openRecordings(session, token)]);
  if (report.kind === 'problem') return report;
  if (data.kind === 'problem') return { kind: 'problem', problem: 'unexpected', detail: data.detail };
  return { kind: 'ready', report: report.report, data: data.data, recordings };
};

export const ReplayPage = ({ session, token, test }: { session: string; token: string; test: boolean }) => {
  const [opened, setOpened] = useState<Opened | null>(null);
  useEffect(() => {
    void open(session, token).then(setOpened);
  }, [session, token]);
  if (!opened) return <main className="page">Opening the replay…</main>;
  if (opened.kind === 'problem') return <LinkProblemPage problem={opened.problem} detail={opened.detail} />;
  return <Replay session={session} token={token} report={opened.report} data={opened.data} recordings={opened.recordings} test={test} />;
};

const Replay = ({ session, token, report, data, recordings, test }: { session: string; token: string; report: Report; data: ReplayData; recordings: Recordings; test: boolean }) => {
  const claims = readToken(token);
  const replay = useMemo(() => createReplay(data, report, { participant: claims?.participant ?? null, role: claims?.role ?? 'observer' }), [data, report]); // eslint-disable-line react-hooks/exhaustive-deps
  // `&t=<ms>` (the review's playhead): the replay starts there.
  const t = Number(new URLSearchParams(location.search).get('t'));
  const player = usePlayer(recordings, report.durationMs, token, Number.isFinite(t) && t > 0 ? t : 0);
  const ms = usePlayhead(player);
  const [view, setView] = useState<RoomView>(() => replay.at(player.position()));
  const utterances = useMemo(() => utterancesOf(report), [report]);
  // At (or past) the end nobody speaks any more, whatever the last line's rounding.
  const over = ms >= report.durationMs;
  const line = over ? null : utteranceAt(utterances, ms);
  const review = `/review/${encodeURIComponent(session)}?token=${encodeURIComponent(token)}&t=${Math.round(ms)}${test ? '&test=1' : ''}`;
  const people = view.snapshot?.participants ?? [];
  const simulated = useMemo(() => simulatedIn(data), [data]);

  return (
    <main className="room replay" data-page="replay">
      <Replay3D view={view} replay={replay} player={player} onView={setView} recordings={recordings.recordings.length} token={token} test={test} />
      <header className="replay-head">
        <h1>{report.title ?? data.scene.title}</h1>
        <p className="note">
          Replay of session <code>{session}</code> · <a href={review}>Back to the review</a>
        </p>
        <ul className="replay-people" aria-label="Who was in the room">
          {people.map((p) => (
            <li key={p.id} data-participant={p.id} data-here={here(p)}>
              <span className={`dot${here(p) ? ' here' : ''}`} /> {p.name}
              {p.kind === 'human' && !p.present && <small>{view.standIns.includes(p.id) || simulated.has(p.id) ? ' (simulated)' : ' (not here)'}</small>}
            </li>
          ))}
        </ul>
      </header>
      <footer className="replay-bar">
        <p className="replay-line" aria-live="off" data-speaking={line?.participant ?? ''}>
          {line ? (
            <>
              <b>{nameOf(view, line.participant ?? null)}</b>
              {line.addressee ? ` → ${nameOf(view, line.addressee)}` : ''}: {line.text}
            </>
          ) : (
            <span className="note">{over || view.status === 'ended' ? 'The session has ended.' : 'Nobody is speaking.'}</span>
          )}
        </p>
        <PlayerControls player={player} ms={ms} note={recordings.recordings.length > 0 ? undefined : 'No recorded speech: the replay runs in silence.'} />
      </footer>
    </main>
  );
};
