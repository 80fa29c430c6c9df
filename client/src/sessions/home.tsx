/**
 * The home page: the scenes this server runs, and (with the admin token) a form that creates a
 * session (its scene and pace, real time by default, as on the sessions page) and lists its join
 * links: one per human seat, one for the instructor.
 */
import { useEffect, useState } from 'react';
import { api, type Links, type Pace, type SceneSummary } from '../net/api';

export const Home = () => {
  const [scenes, setScenes] = useState<SceneSummary[]>([]);
  const [admin, setAdmin] = useState(() => sessionStorage.getItem('admin-token') ?? '');
  const [scene, setScene] = useState('');
  const [pace, setPace] = useState<Pace>('realtime');
  const [created, setCreated] = useState<{ id: string; links: Links } | null>(null);
  const [error, setError] = useState('');

  useEffect(() => {
    void api
      .scenes()
      .then((body) => {
        setScenes(body.scenes);
        setScene((current) => current || body.scenes[0]?.id || '');
      })
      .catch(() => setError('The server did not answer /api/scenes.'));
  }, []);

  const create = async () => {
    setError('');
    sessionStorage.setItem('admin-token', admin);
    try {
      setCreated(await api.createSession(admin, { scene, pace }));
    } catch (e) {
      setError((e as Error).message);
    }
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
