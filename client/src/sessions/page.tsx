/**
 * The instructors' sessions page, `/sessions`: every session this server holds (scene, status,
 * who is in it, when it started, how long it ran), a join link to copy for each seat, the live view
 * of a running one, the review of any (with the observer's token), a form to create one (scene, pace, stand-ins,
 * whether participants' microphones are recorded), deleting an ended one with its recordings, and
 * a tick per session to compare 2 to 8 of one scene side by side (/compare). It needs the admin token,
 * kept for this tab only (sessionStorage), as the home page keeps it.
 */
import { useCallback, useEffect, useState } from 'react';
import type { SessionSummary } from '../../../shared/protocol/messages';
import { api, type Links, type SceneSummary } from '../net/api';
import { formatDuration } from '../ui/format';
import { ModelsNotice } from './models';
import './sessions.css';
import { Alert } from '../ui/alert';


const REFRESH_MS = 5000;

/** Up to this many sessions compare at once (GET /api/compare). */
const MAX_COMPARED = 8;

/** Why the ticked sessions cannot be compared, or null when they can. */
export const compareBlocker = (picked: readonly SessionSummary[]): string | null => {
  if (picked.length < 2) return picked.length === 1 ? 'Tick one more session of the same scene to compare.' : 'Tick two or more sessions of the same scene to compare them.';
  if (picked.length > MAX_COMPARED) return `Compare at most ${MAX_COMPARED} sessions at once (${picked.length} ticked).`;
  const scenes = [...new Set(picked.map((s) => s.scene.title))];
  if (scenes.length > 1) return `Only sessions of one scene compare; the ticked ones are of ${scenes.join(' and ')}.`;
  return null;
};

const statusLabel: Record<SessionSummary['status'], string> = { lobby: 'in the lobby', live: 'live', paused: 'paused', ended: 'ended' };

export const SessionsPage = () => {
  const [admin, setAdmin] = useState(() => sessionStorage.getItem('admin-token') ?? '');
  const [draft, setDraft] = useState(admin);
  const [sessions, setSessions] = useState<SessionSummary[] | null>(null);
  const [scenes, setScenes] = useState<SceneSummary[]>([]);
  const [error, setError] = useState('');
  const [links, setLinks] = useState<Record<string, Links>>({});
  const [copied, setCopied] = useState<string | null>(null);
  const [picked, setPicked] = useState<string[]>([]);
  const [form, setForm] = useState({ scene: '', pace: 'realtime' as 'realtime' | 'instant', standIns: false, recording: false });

  const refresh = useCallback(async () => {
    if (!admin) return;
    try {
      const body = await api.listSessions(admin);
      setSessions(body.sessions);
      setError('');
    } catch (e) {
      setError(`Could not list the sessions: ${(e as Error).message}`);
    }
  }, [admin]);

  useEffect(() => {
    void api
      .scenes()
      .then((body) => {
        setScenes(body.scenes);
        setForm((f) => (f.scene ? f : { ...f, scene: body.scenes[0]?.id ?? '', recording: body.scenes[0]?.recording ?? false }));
      })
      .catch(() => setError('The server did not answer /api/scenes.'));
  }, []);

  useEffect(() => {
    void refresh();
    const timer = setInterval(() => void refresh(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [refresh]);

  const signIn = () => {
    sessionStorage.setItem('admin-token', draft);
    setAdmin(draft);
  };

  const linksOf = async (id: string): Promise<Links> => {
    const known = links[id];
    if (known) return known;
    const body = await api.links(admin, id);
    setLinks((all) => ({ ...all, [id]: body.links }));
    return body.links;
  };

  const create = async () => {
    try {
      const body = await api.createSession(admin, form);
      setLinks((all) => ({ ...all, [body.id]: body.links }));
      await refresh();
    } catch (e) {
      setError(`Could not create the session: ${(e as Error).message}`);
    }
  };

  const copy = async (id: string, who: string) => {
    try {
      const link = (await linksOf(id))[who];
      if (!link) return;
      await navigator.clipboard.writeText(link).catch(() => undefined);
      setCopied(`${id}/${who}`);
    } catch (e) {
      setError(`Could not get the join links: ${(e as Error).message}`);
    }
  };

  const open = async (id: string) => {
    try {
      const link = (await linksOf(id)).observer;
      if (link) window.open(link, '_blank', 'noopener');
    } catch (e) {
      setError(`Could not open the live view: ${(e as Error).message}`);
    }
  };

  const review = async (id: string) => {
    try {
      const link = (await linksOf(id)).observer;
      const token = link ? new URL(link).searchParams.get('token') : null;
      if (token) window.open(`/review/${encodeURIComponent(id)}?token=${encodeURIComponent(token)}`, '_blank', 'noopener');
    } catch (e) {
      setError(`Could not open the review: ${(e as Error).message}`);
    }
  };

  const end = async (session: SessionSummary) => {
    if (!window.confirm(`End "${session.scene.title}" for everyone in it?`)) return;
    try {
      await api.endSession(admin, session.id);
      await refresh();
    } catch (e) {
      setError(`Could not end the session: ${(e as Error).message}`);
    }
  };

  const purge = async (session: SessionSummary) => {
    if (!window.confirm(`Delete "${session.scene.title}" (${session.id}) for good: its log, its report and its recordings?`)) return;
    try {
      await api.purgeSession(admin, session.id);
      setPicked((all) => all.filter((x) => x !== session.id));
      await refresh();
    } catch (e) {
      setError(`Could not delete the session: ${(e as Error).message}`);
    }
  };

  const tick = (id: string, on: boolean) => setPicked((all) => (on ? [...all, id] : all.filter((x) => x !== id)));
  // Ticked sessions this list still holds, oldest first: run 1 on the compare page is the earliest.
  const ticked = (sessions ?? []).filter((s) => picked.includes(s.id)).sort((a, b) => a.createdAt - b.createdAt);
  const blocker = compareBlocker(ticked);
  const compare = () => location.assign(`/compare?sessions=${ticked.map((s) => encodeURIComponent(s.id)).join(',')}`);

  return (
    <main className="page sessions" data-page="sessions">
      <h1>Sessions</h1>
      <ModelsNotice />
      {!admin || (error && sessions === null) ? (
        <form
          className="sign-in"
          onSubmit={(e) => {
            e.preventDefault();
            signIn();
          }}
        >
          <label>
            Admin token <input type="password" value={draft} onChange={(e) => setDraft(e.target.value)} placeholder="printed by npm start" autoComplete="off" />
          </label>{' '}
          <button type="submit" className="primary" disabled={!draft}>
            Show sessions
          </button>
        </form>
      ) : null}
      <Alert message={error} />
      {admin && (
        <section className="create" aria-label="New session">
          <h2>New session</h2>
          <label>
            Scene{' '}
            <select value={form.scene} onChange={(e) => setForm({ ...form, scene: e.target.value, recording: scenes.find((s) => s.id === e.target.value)?.recording ?? false })}>
              {scenes.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.title} ({s.participants} people; you play {s.humans.join(' or ')})
                </option>
              ))}
            </select>
          </label>{' '}
          <label>
            Pace{' '}
            <select value={form.pace} onChange={(e) => setForm({ ...form, pace: e.target.value as 'realtime' | 'instant' })}>
              <option value="realtime">real time (people join)</option>
              <option value="instant">instant (a simulated run)</option>
            </select>
          </label>{' '}
          <label className="option" title="Start at once, the simulation speaking for every human seat nobody has joined">
            <input type="checkbox" checked={form.standIns} onChange={(e) => setForm({ ...form, standIns: e.target.checked })} /> Start with stand-ins
          </label>
          <label className="option" title="Keep what participants say as audio with the session (they are told before they join); personas' speech is always kept">
            <input type="checkbox" checked={form.recording} onChange={(e) => setForm({ ...form, recording: e.target.checked })} /> Record participants' microphones
          </label>
          <button onClick={() => void create()} disabled={!form.scene}>
            Create
          </button>
        </section>
      )}
      {sessions && (
        <section aria-label="Sessions">
          <h2>All sessions</h2>
          {sessions.length > 0 && (
            <p className="compare-bar">
              <button className="primary" onClick={compare} disabled={blocker !== null}>
                Compare selected{ticked.length ? ` (${ticked.length})` : ''}
              </button>{' '}
              <span className="note" data-compare-note>
                {blocker ?? `Side by side: ${ticked.length} sessions of ${ticked[0]!.scene.title}.`}
              </span>
            </p>
          )}
          {sessions.length === 0 ? (
            <p className="note">No sessions yet: create one above.</p>
          ) : (
            <table className="session-list">
              <thead>
                <tr>
                  <th aria-label="Compare" />
                  <th>Scene</th>
                  <th>Status</th>
                  <th>People</th>
                  <th>Started</th>
                  <th>Length</th>
                  <th>Turns</th>
                  <th>Open</th>
                </tr>
              </thead>
              <tbody>
                {sessions.map((s) => (
                  <tr key={s.id} data-session={s.id}>
                    <td className="pick">
                      <input type="checkbox" checked={picked.includes(s.id)} onChange={(e) => tick(s.id, e.target.checked)} aria-label={`Compare ${s.scene.title} ${s.id}`} />
                    </td>
                    <td>
                      {s.scene.title}
                      <br />
                      <small>
                        {s.id} · {s.pace}
                      </small>
                    </td>
                    <td>
                      <span className={`badge ${s.status}`}>{statusLabel[s.status]}</span>
                      {s.recording && (
                        <span className="rec" data-recording title="This session records participants' microphones (personas' speech is always kept)">
                          ● REC
                        </span>
                      )}
                    </td>
                    <td>
                      <ul className="seats">
                        {s.participants
                          .filter((p) => p.kind === 'human')
                          .map((p) => (
                            <li key={p.id} className={s.status === 'ended' ? 'past' : p.present ? 'present' : ''} title={s.status === 'ended' ? undefined : p.present ? 'here now' : 'not here'}>
                              {p.name}
                              {s.status !== 'ended' && (
                                <button className="small" onClick={() => void copy(s.id, p.id)} aria-label={`Copy ${p.name}'s join link`}>
                                  {copied === `${s.id}/${p.id}` ? 'Copied' : 'Copy link'}
                                </button>
                              )}
                            </li>
                          ))}
                        <li className="past personas">{s.participants.filter((p) => p.kind === 'ai').length} AI personas</li>
                      </ul>
                      {s.status !== 'ended' &&
                        s.participants
                          .filter((p) => p.kind === 'human' && links[s.id]?.[p.id])
                          .map((p) => <input key={p.id} className="link" readOnly value={links[s.id]![p.id]} aria-label={`${p.name}'s join link`} onFocus={(e) => e.currentTarget.select()} />)}
                    </td>
                    <td>{new Date(s.createdAt).toLocaleString()}</td>
                    <td>{formatDuration(s.durationMs)}</td>
                    <td>{s.turns}</td>
                    <td className="actions">
                      {s.status !== 'ended' && <button onClick={() => void open(s.id)}>Live view</button>}
                      <button onClick={() => void review(s.id)}>Review</button>
                      {s.status !== 'ended' ? (
                        <button className="danger" onClick={() => void end(s)}>
                          End
                        </button>
                      ) : (
                        <button className="danger" onClick={() => void purge(s)}>
                          Delete
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      )}
    </main>
  );
};
