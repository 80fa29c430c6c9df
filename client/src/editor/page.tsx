/**
 * The scene editor at `/editor?token=<admin>`: the scene list, and a scene opened from it
 * (`&scene=<id>`, so a reload reopens it). The open scene's editor keeps the draft's history
 * (model.ts), checks every change at once (shared/scene/check.ts, as scene:check does) and shows each problem on its field and
 * its node, saves with the version it was opened at (a 409 shows the other version and lets the
 * author choose), and warns before a page with unsaved changes is left.
 *
 * With `test`, `window.__editor` exposes the draft for end-to-end tests (see EditorHandle).
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { checkScene, type FieldProblem } from '../../../shared/scene/check';
import { formations } from '../../../shared/scene/schema';
import { sceneApi, type SceneProblem } from '../net/api';
import { loadAvatars, type AvatarEntry } from './avatars';
import { Editor, under, useEditor, type EditorContext } from './context';
import { CheckField, ChoiceField, NumberField, TextField } from './fields';
import { Flow } from './flow';
import { commit, isDirty, open, redo, saved, undo, type Draft, type Edit, type History } from './model';
import { Participants } from './participants';
import { PartiesAndContents } from './parties';
import { RoomView } from './room';
import { SceneList } from './scene-list';
import { TryIt } from './try-it';
import './editor.css';
import { Alert } from '../ui/alert';

/** What browser tests read of the editor (`window.__editor` with ?test=1). */
export interface EditorHandle {
  draft(): Draft;
  dirty(): boolean;
  problems(): FieldProblem[];
}

declare global {
  interface Window {
    __editor?: EditorHandle;
  }
}

export const EditorPage = ({ token, test }: { token: string; test: boolean }) => {
  const [admin, setAdmin] = useState(token);
  const [typed, setTyped] = useState('');
  const [id, setId] = useState(() => new URLSearchParams(location.search).get('scene'));
  const show = (scene: string | null) => {
    const url = new URL(location.href);
    if (scene) url.searchParams.set('scene', scene);
    else url.searchParams.delete('scene');
    history.replaceState(null, '', url);
    setId(scene);
  };
  if (!admin) {
    return (
      <main className="page">
        <h1>Scene editor</h1>
        <p>Authoring scenes takes the admin token (printed by npm start).</p>
        <form onSubmit={(e) => (e.preventDefault(), setAdmin(typed))}>
          <label>
            Admin token <input type="password" value={typed} onChange={(e) => setTyped(e.target.value)} />
          </label>{' '}
          <button type="submit" disabled={!typed}>
            Open the editor
          </button>
        </form>
      </main>
    );
  }
  // A shipped scene saved as an authored copy goes on being edited as the copy: the address follows it, the history stays.
  const follow = (copy: string) => {
    const url = new URL(location.href);
    url.searchParams.set('scene', copy);
    history.replaceState(null, '', url);
  };
  return id ? <SceneEditor key={id} admin={admin} opened={id} test={test} onClose={() => show(null)} onCopied={follow} /> : <SceneList admin={admin} onOpen={show} />;
};

type Tab = 'scene' | 'room' | 'participants' | 'parties' | 'flow' | 'try';
const tabs: { id: Tab; label: string; prefixes: string[] }[] = [
  { id: 'scene', label: 'Scene', prefixes: ['title', 'topic', 'context', 'formation', 'duration', 'recording', 'closing', '(scene)'] },
  { id: 'room', label: 'Room', prefixes: [] },
  { id: 'participants', label: 'Participants', prefixes: ['participants'] },
  { id: 'parties', label: 'Parties & content', prefixes: ['parties', 'contents', 'structure', 'turnTaking'] },
  { id: 'flow', label: 'Flow', prefixes: ['snippets'] },
  { id: 'try', label: 'Try it', prefixes: [] },
];
const tabOf = (path: string): Tab => tabs.find((t) => t.prefixes.some((p) => path === p || path.startsWith(`${p}.`) || path.startsWith(`${p}[`)))?.id ?? 'scene';

const SceneEditor = ({ admin, opened, test, onClose, onCopied }: { admin: string; opened: string; test: boolean; onClose: () => void; onCopied: (id: string) => void }) => {
  // The scene's id: the one opened, until a save of a shipped scene makes an authored copy to go on with.
  const [id, setId] = useState(opened);
  const [history, setHistory] = useState<History | null>(null);
  const [etag, setEtag] = useState<string | null>(null);
  const [avatars, setAvatars] = useState<AvatarEntry[]>([]);
  const [error, setError] = useState('');
  const [status, setStatus] = useState('');
  const [notice, setNotice] = useState('');
  const [serverProblems, setServerProblems] = useState<SceneProblem[]>([]);
  const [conflict, setConflict] = useState<{ message: string; etag: string; yaml: string } | null>(null);
  const [tab, setTab] = useState<Tab>('scene');
  const [participant, setParticipant] = useState<string | null>(null);
  const [snippet, setSnippet] = useState<string | null>(null);

  const reload = useCallback(() => {
    sceneApi.get(admin, id).then(
      ({ scene, etag }) => {
        setHistory(open(scene));
        setEtag(etag);
        setConflict(null);
      },
      (e: Error) => setError(`Could not open the scene "${id}": ${e.message}`),
    );
  }, [admin, id]);
  // Opened once: when a save makes a copy, `id` moves to it, and the draft is already the copy's.
  const opening = useRef(reload);
  useEffect(() => opening.current(), []);
  useEffect(() => {
    loadAvatars().then(setAvatars, (e: Error) => setError(e.message));
  }, []);

  const draft = history?.present;
  const avatarIds = useMemo(() => (avatars.length > 0 ? avatars.map((a) => a.id) : null), [avatars]);
  const problems = useMemo(() => (draft ? checkScene(draft, avatarIds) : []), [draft, avatarIds]);
  const dirty = history !== null && isDirty(history);

  const edit = useCallback((change: Edit, merge?: string) => {
    setStatus('');
    setServerProblems([]);
    setHistory((h) => (h ? commit(h, change, merge ?? null) : h));
  }, []);

  // Undo and redo from the keyboard too, wherever the focus is: the fields are the draft's, not the browser's.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey)) return;
      const key = e.key.toLowerCase();
      if (key === 'z' || key === 'y') {
        e.preventDefault();
        setHistory((h) => (h ? (key === 'y' || e.shiftKey ? redo(h) : undo(h)) : h));
      } else if (key === 's') {
        e.preventDefault();
        saveRef.current();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  // The browser asks before a page with unsaved changes is closed or reloaded.
  useEffect(() => {
    if (!dirty) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  const save = async (over?: string) => {
    if (!history) return;
    setStatus('Saving…');
    try {
      const outcome = await sceneApi.save(admin, id, history.present, over ?? etag);
      if (outcome.kind === 'saved') {
        setHistory((h) => (h ? saved(h, history.present) : h));
        setEtag(outcome.etag);
        setConflict(null);
        if (outcome.id !== id) {
          setId(outcome.id);
          onCopied(outcome.id);
          setStatus(`Saved as ${outcome.id}`);
          setNotice(`"${id}" ships with the server, so your changes were saved as a new scene, "${outcome.id}"; the shipped one is unchanged. You are now editing the copy.`);
        } else {
          setStatus('Saved');
        }
      } else if (outcome.kind === 'invalid') {
        setServerProblems(outcome.errors);
        setStatus(outcome.message);
      } else {
        setConflict({ message: outcome.message, ...outcome.current });
        setStatus('');
      }
    } catch (e) {
      setStatus('');
      setError((e as Error).message);
    }
  };
  const saveRef = useRef(() => {});
  saveRef.current = () => void (problems.length === 0 && dirty && save());

  useEffect(() => {
    if (!test || !history) return;
    const handle: EditorHandle = { draft: () => history.present, dirty: () => isDirty(history), problems: () => problems };
    window.__editor = handle;
    return () => void (window.__editor === handle && delete window.__editor);
  }, [test, history, problems]);

  const context = useMemo<EditorContext | null>(
    () =>
      draft
        ? {
            draft,
            problems,
            problemsAt: (path) => problems.filter((p) => p.path === path),
            problemsUnder: (prefix) => under(problems, prefix),
            edit,
            avatars,
            admin,
            scene: id,
          }
        : null,
    [draft, problems, edit, avatars, admin, id],
  );

  if (error && !history) {
    return (
      <main className="page">
        <p className="error" role="alert">
          {error}
        </p>
        <button onClick={onClose}>Back to the scenes</button>
      </main>
    );
  }
  if (!history || !context || !draft) return <main className="page">Opening the scene…</main>;

  const goTo = (path: string) => {
    const target = tabOf(path);
    setTab(target);
    const index = Number(/^\w+\[(\d+)\]/.exec(path)?.[1]);
    if (target === 'participants') setParticipant(draft.participants[index]?.id ?? null);
    if (target === 'flow') setSnippet(draft.snippets[index]?.id ?? null);
  };
  const shown = [...problems, ...serverProblems.filter((s) => !problems.some((p) => p.path === s.path && p.message === s.message))];
  const why = dirty ? 'Save your changes first: this runs the scene as the server has it.' : problems.length > 0 ? 'Fix the problems first.' : '';

  return (
    <Editor.Provider value={context}>
      <div className="editor">
        <header className="editor-bar">
          <button
            onClick={() => {
              if (!dirty || confirm('Leave this scene? Your unsaved changes will be lost.')) onClose();
            }}
          >
            ← Scenes
          </button>
          <h1 title={id}>{draft.title || id}</h1>
          <span className={`state${dirty ? ' dirty' : ''}`} data-state={dirty ? 'dirty' : 'saved'}>
            {status || (dirty ? 'Unsaved changes' : 'All changes saved')}
          </span>
          <button onClick={() => setHistory(undo(history))} disabled={history.past.length === 0} title={history.names.at(-1) ? `Undo: ${history.names.at(-1)}` : undefined} aria-keyshortcuts="Control+Z">
            Undo
          </button>
          <button onClick={() => setHistory(redo(history))} disabled={history.future.length === 0} title={history.undone[0] ? `Redo: ${history.undone[0]}` : undefined} aria-keyshortcuts="Control+Shift+Z">
            Redo
          </button>
          <button className="primary" onClick={() => void save()} disabled={!dirty || problems.length > 0} title={problems.length > 0 ? 'Fix the problems first' : undefined} aria-keyshortcuts="Control+S">
            Save
          </button>
        </header>
        <nav className="tabs" role="tablist">
          {tabs.map((t) => {
            const count = shown.filter((p) => tabOf(p.path) === t.id).length;
            return (
              <button key={t.id} role="tab" aria-selected={tab === t.id} className={tab === t.id ? 'on' : ''} onClick={() => setTab(t.id)}>
                {t.label}
                {count > 0 && <span className="count" aria-label={`${count} problems`}>{count}</span>}
              </button>
            );
          })}
          <details className="problems">
            <summary className={shown.length > 0 ? 'error' : 'ok'}>{shown.length === 0 ? 'No problems' : shown.length === 1 ? '1 problem' : `${shown.length} problems`}</summary>
            <ul>
              {shown.map((p, i) => (
                <li key={i}>
                  <button className="link" onClick={() => goTo(p.path)}>
                    <code>{p.path}</code>: {p.message}
                  </button>
                </li>
              ))}
            </ul>
          </details>
        </nav>
        <Alert message={error} />
        {notice && (
          <p className="notice" role="status">
            {notice}{' '}
            <button className="link" onClick={() => setNotice('')}>
              OK
            </button>
          </p>
        )}
        <div className="editor-body">
          {tab === 'scene' && <SceneFields />}
          {tab === 'room' && (
            <RoomView
              onOpen={(who) => {
                setParticipant(who);
                setTab('participants');
              }}
            />
          )}
          {tab === 'participants' && <Participants selected={participant} onSelect={setParticipant} />}
          {tab === 'parties' && <PartiesAndContents />}
          {tab === 'flow' && <Flow selected={snippet} onSelect={setSnippet} />}
          {tab === 'try' && <TryIt admin={admin} id={id} ready={why === ''} why={why} />}
        </div>
        {conflict && (
          <div className="dialog-backdrop">
            <div className="dialog" role="dialog" aria-modal="true" aria-labelledby="conflict-title">
              <h2 id="conflict-title">Someone else saved this scene</h2>
              <p>{conflict.message} Their version is below; yours is still in the editor.</p>
              <pre className="yaml">{conflict.yaml}</pre>
              <div className="row">
                <button onClick={reload}>Take their version (lose my changes)</button>
                <button className="danger" onClick={() => void save(conflict.etag)}>
                  Keep mine (overwrite theirs)
                </button>
                <button onClick={() => setConflict(null)}>Decide later</button>
              </div>
            </div>
          </div>
        )}
      </div>
    </Editor.Provider>
  );
};

/** The scene tab: what the session is about, how it looks, and how it closes. */
const SceneFields = () => (
  <div className="scene-fields card">
    <TextField label="Title" path={['title']} />
    <TextField label="Topic" path={['topic']} />
    <TextField label="Context" path={['context']} optional long hint="the situation, as told to every persona" />
    <div className="grid">
      <ChoiceField label="Formation" path={['formation']} options={formations} />
      <NumberField label="Duration (minutes)" path={['duration']} optional min={1} hint="at real-time pace" />
      <CheckField label="Record participants' microphones" path={['recording']} />
    </div>
    <h3>Closing line</h3>
    <ClosingFields />
  </div>
);

const ClosingFields = () => {
  const { draft } = useEditor();
  const personas = draft.participants.filter((p) => p.kind === 'ai');
  return (
    <div className="grid">
      <ChoiceField label="Who says it" path={['closing', 'speaker']} options={personas.map((p) => p.id)} labels={Object.fromEntries(personas.map((p) => [p.id, p.name || p.id]))} optional />
      <TextField label="Line" path={['closing', 'text']} optional hint="without it the host says a goodbye of their own" />
    </div>
  );
};
