/**
 * The editor's first page: every scene this server has, shipped (scenes/) or authored, to open or
 * duplicate (and an authored one to delete, once confirmed), and a new scene from a template per
 * structure (interview, Q&A, stand-up…).
 *
 * ```tsx
 * <SceneList admin={token} onOpen={(id) => open(id)} />
 * ```
 */
import { useEffect, useState } from 'react';
import { structureForms, type StructureForm } from '../../../shared/scene/schema';
import { sceneApi, type SceneListing } from '../net/api';
import { Alert } from '../ui/alert';

const templateNames: Record<StructureForm, string> = {
  interview: 'Interview',
  qa: 'Q&A',
  standup: 'Stand-up',
  critique: 'Critique',
  review: 'Review',
  retro: 'Retrospective',
  poster: 'Poster session',
  investigation: 'Investigation',
  social: 'Social',
  discussion: 'Discussion',
};

export const SceneList = ({ admin, onOpen }: { admin: string; onOpen: (id: string) => void }) => {
  const [scenes, setScenes] = useState<SceneListing[] | null>(null);
  const [error, setError] = useState('');
  const [template, setTemplate] = useState<StructureForm>('interview');
  const [notice, setNotice] = useState('');
  // Why a scene was kept, shown under its row where the Delete was pressed.
  const [kept, setKept] = useState<{ scene: string; message: string } | null>(null);
  const load = () =>
    sceneApi.list(admin).then(
      (body) => setScenes(body.scenes),
      (e: Error) => setError(`Could not list the scenes: ${e.message}`),
    );
  useEffect(() => void load(), [admin]); // eslint-disable-line react-hooks/exhaustive-deps
  const remove = async (scene: SceneListing) => {
    if (!confirm(`Delete "${scene.title}" (${scene.id})? Its file is removed from the server (the sessions that ran it keep their copy, for their reviews); this cannot be undone.`)) return;
    setKept(null);
    try {
      // The version listed: a scene someone saved since is not deleted unseen.
      await sceneApi.remove(admin, scene.id, scene.etag);
      setNotice(`Deleted "${scene.title}".`);
    } catch (e) {
      setKept({ scene: scene.id, message: (e as Error).message });
    }
    await load();
  };
  const run = (made: Promise<{ id: string }>) =>
    made.then(
      ({ id }) => onOpen(id),
      (e: Error) => setError(e.message),
    );
  return (
    <main className="page editor-list">
      <h1>Scene editor</h1>
      <section className="card">
        <h2>New scene</h2>
        <div className="row">
          <label>
            From the template{' '}
            <select value={template} onChange={(e) => setTemplate(e.target.value as StructureForm)}>
              {structureForms.map((form) => (
                <option key={form} value={form}>
                  {templateNames[form]}
                </option>
              ))}
            </select>
          </label>
          <button className="primary" onClick={() => void run(sceneApi.create(admin, template))}>
            Create
          </button>
        </div>
      </section>
      {notice && (
        <p className="note" role="status">
          {notice}
        </p>
      )}
      <Alert message={error} />
      {scenes === null ? (
        !error && <p className="note">Loading the scenes…</p>
      ) : (
        <table className="scene-list">
          <thead>
            <tr>
              <th>Scene</th>
              <th>Structure</th>
              <th>Formation</th>
              <th>From</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {scenes.map((s) => [
              <tr key={s.id} data-scene={s.id}>
                <td>
                  <b>{s.title}</b>
                  <br />
                  <small className="note">{s.id}</small>
                </td>
                <td>{s.structure ? templateNames[s.structure] : '–'}</td>
                <td>{s.formation}</td>
                <td>{s.source === 'shipped' ? 'shipped' : 'authored'}</td>
                <td className="actions">
                  <button onClick={() => onOpen(s.id)}>Open</button>
                  <button onClick={() => void run(sceneApi.duplicate(admin, s.id))}>Duplicate</button>
                  {s.source === 'authored' && (
                    <button className="danger" onClick={() => void remove(s)}>
                      Delete
                    </button>
                  )}
                </td>
              </tr>,
              kept?.scene === s.id && (
                <tr key={`${s.id}-kept`} className="kept">
                  <td colSpan={5} role="alert" className="error">
                    {kept.message}
                  </td>
                </tr>
              ),
            ])}
          </tbody>
        </table>
      )}
    </main>
  );
};
