/**
 * The home page: the scenes this server runs, and (with the admin token) a form that creates a
 * session (its scene and pace, real time by default, as on the sessions page) and lists its join
 * links: one per human seat, one for the instructor.
 */
import { useEffect, useState } from 'react';
import type { Formation } from '../../../server/scene/schema';

interface SceneSummary {
  id: string;
  title: string;
  topic: string;
  formation: Formation;
  humans: string[];
  participants: number;
  /** Minutes at real-time pace, as the scene states it. */
  duration: number | null;
}

export const Home = () => {
  const [scenes, setScenes] = useState<SceneSummary[]>([]);
  const [admin, setAdmin] = useState(() => sessionStorage.getItem('admin-token') ?? '');
  const [scene, setScene] = useState('');
  const [pace, setPace] = useState<'realtime' | 'instant'>('realtime');
  const [created, setCreated] = useState<{ id: string; links: Record<string, string> } | null>(null);
  const [error, setError] = useState('');

  useEffect(() => {
    void fetch('/api/scenes')
      .then((r) => r.json() as Promise<{ scenes: SceneSummary[] }>)
      .then((body) => {
        setScenes(body.scenes);
        setScene((current) => current || body.scenes[0]?.id || '');
      })
      .catch(() => setError('The server did not answer /api/scenes.'));
  }, []);

  const create = async () => {
    setError('');
    sessionStorage.setItem('admin-token', admin);
    const res = await fetch('/api/sessions', { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify({ scene, pace }) });
    const body = (await res.json()) as { id: string; links: Record<string, string>; message?: string };
    if (!res.ok) return setError(body.message ?? `HTTP ${res.status}`);
    setCreated(body);
  };

  return (
    <main className="page">
      <h1>Rehearsal room</h1>
      <p>Rehearse meetings with AI personas and other people, on a desktop or in a headset. Open a join link to enter a room.</p>
      <p>
        Instructors: <a href="/sessions">every session</a>, with join links, live views and a new-session form.
      </p>
      <h2>Start a session</h2>
      <label>
        Scene{' '}
        <select value={scene} onChange={(e) => setScene(e.target.value)}>
          {scenes.map((s) => (
            <option key={s.id} value={s.id}>
              {s.title} ({s.formation}, {s.participants} people{s.duration ? `, about ${s.duration} min` : ''})
            </option>
          ))}
        </select>
      </label>{' '}
      <label>
        Pace{' '}
        <select value={pace} onChange={(e) => setPace(e.target.value as 'realtime' | 'instant')}>
          <option value="realtime">real time (people join)</option>
          <option value="instant">instant (a simulated run)</option>
        </select>
      </label>{' '}
      <label>
        Admin token <input type="password" value={admin} onChange={(e) => setAdmin(e.target.value)} placeholder="printed by npm start" />
      </label>{' '}
      <button onClick={() => void create()} disabled={!admin || !scene}>
        Create
      </button>
      {error && <p className="error">{error}</p>}
      {created && (
        <section>
          <h3>Session {created.id}: join links</h3>
          <ul className="links">
            {Object.entries(created.links).map(([who, link]) => (
              <li key={who}>
                <b>{who === 'observer' ? 'instructor (observer)' : who}</b>: <a href={link}>{link}</a>
              </li>
            ))}
          </ul>
        </section>
      )}
      <h2>Scenes</h2>
      <ul>
        {scenes.map((s) => (
          <li key={s.id}>
            <b>{s.title}</b>: {s.topic} <small>(you play {s.humans.join(' or ')})</small>
          </li>
        ))}
      </ul>
    </main>
  );
};
