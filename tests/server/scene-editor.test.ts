/**
 * The scene editor's API over a real server: open, check, save (with versions), copy, templates,
 * uploads, simulate, and a live session of an authored scene; every bad input refused with a clear
 * message and nothing lost.
 */
import { cpSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { structureForms } from '../../shared/scene/schema';
import { startServer, tempDir, type InProcessServer } from './helpers';

const repo = new URL('../../', import.meta.url).pathname;
const shippedIds = readdirSync(join(repo, 'scenes'))
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => f.slice(0, -5));

let server: InProcessServer;
let base: string;
const auth = (extra: Record<string, string> = {}) => ({ Authorization: `Bearer ${server.admin}`, ...extra });
const getJson = (id: string) => fetch(`${base}/api/scenes/${id}`, { headers: auth({ Accept: 'application/json' }) });
const put = (id: string, body: string, type: string, ifMatch?: string) =>
  fetch(`${base}/api/scenes/${id}`, { method: 'PUT', headers: auth({ 'Content-Type': type, ...(ifMatch ? { 'If-Match': ifMatch } : {}) }), body });
const postJson = (path: string, body: unknown) => fetch(`${base}${path}`, { method: 'POST', headers: auth({ 'Content-Type': 'application/json' }), body: JSON.stringify(body) });

beforeAll(async () => {
  server = await startServer();
  base = server.base;
});
afterAll(() => server.close());

describe('listing and opening scenes', () => {
  it('lists shipped scenes with their structure, source and version, to anyone', async () => {
    const res = await fetch(`${base}/api/scenes`);
    const { scenes } = (await res.json()) as { scenes: { id: string; structure: string | null; source: string; etag: string; formation: string; title: string }[] };
    expect(scenes.map((s) => s.id).sort()).toEqual([...shippedIds].sort());
    const standup = scenes.find((s) => s.id === 'team-standup')!;
    expect(standup).toMatchObject({ source: 'shipped', structure: 'standup', formation: 'circle' });
    expect(standup.etag).toMatch(/^".+"$/);
  });

  it('opens a scene as its YAML file or as JSON, with the same ETag, for the author only', async () => {
    const yaml = await fetch(`${base}/api/scenes/team-standup`, { headers: auth() });
    expect(yaml.status).toBe(200);
    expect(yaml.headers.get('content-type')).toContain('text/yaml');
    expect(await yaml.text()).toBe(readFileSync(join(repo, 'scenes/team-standup.yaml'), 'utf8'));
    const json = await getJson('team-standup');
    expect(json.headers.get('etag')).toBe(yaml.headers.get('etag'));
    expect(await json.json()).toEqual(parse(readFileSync(join(repo, 'scenes/team-standup.yaml'), 'utf8')));
    expect((await fetch(`${base}/api/scenes/team-standup`)).status).toBe(401);
    expect((await fetch(`${base}/api/scenes/no-such-scene`, { headers: auth() })).status).toBe(404);
  });
});

describe('validating', () => {
  it('returns the errors scene:check prints, with their lines for YAML', async () => {
    const text = readFileSync(join(repo, 'scenes/team-standup.yaml'), 'utf8').replace(/turns: \d+/, 'turns: six');
    const res = await fetch(`${base}/api/scenes/validate`, { method: 'POST', headers: auth({ 'Content-Type': 'text/yaml' }), body: text });
    const body = (await res.json()) as { ok: boolean; errors: { path: string; message: string; line?: number }[] };
    expect(body.ok).toBe(false);
    expect(body.errors).toEqual([{ path: 'snippets[0].turns', message: 'expected a positive integer, got "six"', line: expect.any(Number), col: expect.any(Number) }]);
    expect(text.split('\n')[body.errors[0]!.line! - 1]).toContain('turns: six');
  });

  it('checks a JSON body the same way (without lines) and says ok for a valid scene', async () => {
    const scene = (await (await getJson('job-interview')).json()) as Record<string, unknown>;
    const valid = await postJson('/api/scenes/validate', scene);
    expect(await valid.json()).toEqual({ ok: true, errors: [] });
    const broken = await postJson('/api/scenes/validate', { ...scene, formation: 'ring', participants: [] });
    const { errors } = (await broken.json()) as { errors: { path: string; message: string; line?: number }[] };
    expect(errors.map((e) => e.path)).toEqual(expect.arrayContaining(['formation', 'participants']));
    expect(errors.every((e) => e.line === undefined)).toBe(true);
  });
});

describe('saving', () => {
  it('creates an authored scene, lists it, and refuses to create it twice', async () => {
    const text = readFileSync(join(repo, 'scenes/templates/interview.yaml'), 'utf8');
    const created = await put('my-interview', text, 'text/yaml');
    expect(created.status).toBe(200);
    const { id, etag, source } = (await created.json()) as { id: string; etag: string; source: string };
    expect({ id, source }).toEqual({ id: 'my-interview', source: 'authored' });
    expect(readFileSync(join(server.dataDir, 'scenes/my-interview.yaml'), 'utf8')).toBe(text);
    const { scenes } = (await (await fetch(`${base}/api/scenes`)).json()) as { scenes: { id: string; source: string; etag: string }[] };
    expect(scenes.find((s) => s.id === 'my-interview')).toMatchObject({ source: 'authored', etag });
    const again = await put('my-interview', text, 'text/yaml');
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: 'exists', current: { etag, yaml: text } });
  });

  it('updates with the right version, keeping the comments, and refuses the second of two saves from one version', async () => {
    const opened = await getJson('my-interview');
    const etag = opened.headers.get('etag')!;
    const scene = (await opened.json()) as { title: string; participants: { persona?: { mood: string } }[] };
    scene.participants[0]!.persona!.mood = 'tense';
    const first = await put('my-interview', JSON.stringify(scene), 'application/json', etag);
    expect(first.status).toBe(200);
    const file = readFileSync(join(server.dataDir, 'scenes/my-interview.yaml'), 'utf8');
    expect(file).toContain('# Facts only this persona knows');
    expect(file).toContain('mood: tense');
    scene.title = 'Someone else';
    const second = await put('my-interview', JSON.stringify(scene), 'application/json', etag);
    expect(second.status).toBe(409);
    const conflict = (await second.json()) as { error: string; message: string; current: { etag: string; yaml: string } };
    expect(conflict).toMatchObject({ error: 'conflict', current: { etag: first.headers.get('etag'), yaml: file } });
    expect(readFileSync(join(server.dataDir, 'scenes/my-interview.yaml'), 'utf8')).toBe(file);
  });

  it('lets exactly one of two simultaneous saves from one version through', async () => {
    const opened = await getJson('my-interview');
    const etag = opened.headers.get('etag')!;
    const scene = (await opened.json()) as { title: string };
    const [a, b] = await Promise.all(['First', 'Second'].map((title) => put('my-interview', JSON.stringify({ ...scene, title }), 'application/json', etag)));
    expect([a!.status, b!.status].sort()).toEqual([200, 409]);
    const winner = a!.status === 200 ? 'First' : 'Second';
    expect(parse(readFileSync(join(server.dataDir, 'scenes/my-interview.yaml'), 'utf8')).title).toBe(winner);
  });

  it('detects a file changed on disk while it was open', async () => {
    const opened = await getJson('my-interview');
    const etag = opened.headers.get('etag')!;
    const path = join(server.dataDir, 'scenes/my-interview.yaml');
    const edited = readFileSync(path, 'utf8').replace(/^title: .*$/m, 'title: Edited by hand');
    writeFileSync(path, edited);
    const res = await put('my-interview', JSON.stringify(await opened.json()), 'application/json', etag);
    expect(res.status).toBe(409);
    expect(((await res.json()) as { current: { yaml: string } }).current.yaml).toBe(edited);
    expect(readFileSync(path, 'utf8')).toBe(edited);
    const { scenes } = (await (await fetch(`${base}/api/scenes`)).json()) as { scenes: { id: string; title: string }[] };
    expect(scenes.find((s) => s.id === 'my-interview')?.title).toBe('Edited by hand');
  });

  it('answers 422 with the error list for an invalid scene and keeps the file', async () => {
    const path = join(server.dataDir, 'scenes/my-interview.yaml');
    const before = readFileSync(path, 'utf8');
    const etag = (await getJson('my-interview')).headers.get('etag')!;
    const res = await put('my-interview', before.replace('formation: panel', 'formation: ring'), 'text/yaml', etag);
    expect(res.status).toBe(422);
    const body = (await res.json()) as { error: string; errors: { path: string; message: string; line: number }[] };
    expect(body.errors[0]).toMatchObject({ path: 'formation', message: expect.stringContaining('expected one of circle'), line: expect.any(Number) });
    expect(readFileSync(path, 'utf8')).toBe(before);
  });

  it('saves a shipped scene as an authored copy, leaving scenes/ untouched', async () => {
    const original = readFileSync(join(repo, 'scenes/sprint-retro.yaml'), 'utf8');
    const opened = await getJson('sprint-retro');
    const scene = (await opened.json()) as { title: string };
    scene.title = 'Our retro';
    const res = await put('sprint-retro', JSON.stringify(scene), 'application/json', opened.headers.get('etag')!);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: 'sprint-retro-copy', source: 'authored', created: true, copiedFrom: 'sprint-retro' });
    expect(readFileSync(join(repo, 'scenes/sprint-retro.yaml'), 'utf8')).toBe(original);
    const copy = readFileSync(join(server.dataDir, 'scenes/sprint-retro-copy.yaml'), 'utf8');
    expect(copy).toBe(original.replace('title: Sprint retrospective after a missed deadline', 'title: Our retro'));
  });
});

describe('bad input', () => {
  const text = () => readFileSync(join(repo, 'scenes/templates/social.yaml'), 'utf8');

  it.each([['a..b'], ['..'], ['a%2Fb'], ['a%5Cb'], ['Upper'], ['x'.repeat(65)]])('refuses the id %s', async (id) => {
    const res = await put(id, text(), 'text/yaml');
    expect([400, 404]).toContain(res.status);
    if (res.status === 400) expect(((await res.json()) as { error: string }).error).toBe('bad-id');
    expect(readdirSync(join(server.dataDir, 'scenes')).some((f) => f.includes('..') || f.includes('\\'))).toBe(false);
  });

  it('refuses a path in the id with a clear message', async () => {
    const res = await put('a%2F..%2Fb', text(), 'text/yaml');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'bad-id', message: expect.stringContaining('no dots, slashes or backslashes') });
  });

  it('refuses malformed YAML and JSON with their problems', async () => {
    const yaml = await put('broken-yaml', 'title: [unclosed\n', 'text/yaml');
    expect(yaml.status).toBe(422);
    expect(((await yaml.json()) as { errors: { path: string }[] }).errors[0]!.path).toBe('(yaml)');
    const json = await put('broken-json', '{"title": ', 'application/json');
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: 'bad-json' });
    const neither = await put('broken-type', 'x', 'application/octet-stream');
    expect(neither.status).toBe(415);
    expect(readdirSync(join(server.dataDir, 'scenes'))).not.toContain('broken-yaml.yaml');
  });

  it('refuses a YAML bomb (aliases) without expanding it', async () => {
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]', ...Array.from({ length: 8 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(9).fill(`*${String.fromCharCode(97 + i)}`).join(',')}]`)].join('\n');
    const res = await fetch(`${base}/api/scenes/validate`, { method: 'POST', headers: auth({ 'Content-Type': 'text/yaml' }), body: bomb });
    const body = (await res.json()) as { ok: boolean; errors: { path: string; message: string }[] };
    expect(body.ok).toBe(false);
    expect(body.errors[0]).toMatchObject({ path: '(yaml)', message: expect.stringMatching(/alias/i) });
    expect((await put('bomb', bomb, 'text/yaml')).status).toBe(422);
  });

  it('refuses a 5 MB scene, saying the limit', async () => {
    const huge = `${text()}\n# ${'x'.repeat(5 * 1024 * 1024)}\n`;
    const res = await put('huge', huge, 'text/yaml');
    expect(res.status).toBe(413);
    expect(((await res.json()) as { message: string }).message).toBe('Request bodies are limited to 262144 bytes.');
    expect(readdirSync(join(server.dataDir, 'scenes'))).not.toContain('huge.yaml');
  });

  it('lets only the author in', async () => {
    const res = await fetch(`${base}/api/scenes/validate`, { method: 'POST', headers: { 'Content-Type': 'text/yaml' }, body: text() });
    expect(res.status).toBe(401);
  });
});

describe('copies and templates', () => {
  it('duplicates a scene with its comments and a new title', async () => {
    const res = await fetch(`${base}/api/scenes/job-interview/duplicate`, { method: 'POST', headers: auth() });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    expect(id).toBe('job-interview-copy');
    const copy = readFileSync(join(server.dataDir, `scenes/${id}.yaml`), 'utf8');
    const original = readFileSync(join(repo, 'scenes/job-interview.yaml'), 'utf8');
    expect(copy.split('\n').filter((l) => l.trimStart().startsWith('#'))).toEqual(original.split('\n').filter((l) => l.trimStart().startsWith('#')));
    expect(parse(copy).title).toBe(`${parse(original).title} (copy)`);
    const named = await postJson('/api/scenes/job-interview/duplicate', { id: 'job-interview-copy' });
    expect(named.status).toBe(409);
  });

  it.each(structureForms.map((form) => [form]))('starts a runnable scene from the %s template', async (form) => {
    const res = await postJson('/api/scenes', { template: form, title: `My ${form}` });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    expect(id).toBe(`new-${form}`);
    const scene = (await (await getJson(id)).json()) as { title: string; structure: { form: string } };
    expect(scene).toMatchObject({ title: `My ${form}`, structure: { form } });
    const run = await postJson(`/api/scenes/${id}/simulate`, { runs: 1 });
    const summary = (await run.json()) as { metrics: { runs: { turns: number; endReason: string }[] } };
    expect(summary.metrics.runs[0]!.turns).toBeGreaterThan(3);
  });

  it('refuses an unknown template', async () => {
    const res = await postJson('/api/scenes', { template: 'karaoke' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'bad-template', message: expect.stringContaining('interview') });
  });
});

describe('trying a scene', () => {
  it('simulates N seeded runs and returns the summary figures, the same for the same seed', async () => {
    const once = async () => (await postJson('/api/scenes/team-standup/simulate', { runs: 2, seed: 7 })).json();
    const first = (await once()) as { runs: number; seed: number; metrics: { runs: unknown[]; aggregate: { runs: number; metrics: Record<string, { mean: number } | null> } } };
    expect(first).toMatchObject({ runs: 2, seed: 7, generator: 'scripted' });
    expect(first.metrics.runs).toHaveLength(2);
    expect(first.metrics.aggregate.runs).toBe(2);
    expect(first.metrics.aggregate.metrics.turns!.mean).toBeGreaterThan(0);
    expect(first.metrics.aggregate.metrics).toHaveProperty('answeredByContent');
    expect(await once()).toEqual(first);
  });

  it('refuses more than ten runs', async () => {
    const res = await postJson('/api/scenes/team-standup/simulate', { runs: 11 });
    expect(res.status).toBe(400);
  });

  it('starts a live session of an authored scene through POST /api/sessions', async () => {
    const created = await postJson('/api/scenes', { template: 'review', id: 'live-review' });
    expect(created.status).toBe(201);
    const session = await postJson('/api/sessions', { scene: 'live-review' });
    expect(session.status).toBe(201);
    const body = (await session.json()) as { id: string; scene: string; links: Record<string, string> };
    expect(body.scene).toBe('live-review');
    expect(Object.keys(body.links)).toContain('you');
    const listed = (await (await fetch(`${base}/api/sessions`, { headers: auth() })).json()) as { sessions: { id: string; scene: { id: string; title: string } }[] };
    expect(listed.sessions.find((s) => s.id === body.id)?.scene).toEqual({ id: 'live-review', title: 'Performance review' });
  });
});

describe('uploads', () => {
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 1)]);
  const pdf = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\n%%EOF\n');
  const upload = (scene: string, body: BodyInit, type: string) => fetch(`${base}/api/scenes/${scene}/uploads`, { method: 'POST', headers: auth({ 'Content-Type': type }), body });

  it('stores an image sent raw and serves it from its own path only, nosniff', async () => {
    const res = await upload('my-interview', png, 'image/png');
    expect(res.status).toBe(201);
    const stored = (await res.json()) as { file: string; url: string; type: string; bytes: number };
    expect(stored).toMatchObject({ type: 'image/png', bytes: png.length, url: `/api/${stored.file.replace(/^/, 'uploads/')}` });
    expect(stored.file).toMatch(/^my-interview\/[A-Za-z0-9_-]{24}\.png$/);
    const served = await fetch(`${base}${stored.url}`, { headers: auth() });
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await served.arrayBuffer())).toEqual(png);
    for (const path of [`/api/uploads/my-interview/..%2F..%2Fscenes%2Fmy-interview.yaml`, `/api/uploads/..%2Fscenes/my-interview.yaml`, `/api/uploads/my-interview/${stored.file.split('/')[1]!.replace('.png', '.pdf')}`]) {
      expect((await fetch(`${base}${path}`, { headers: auth() })).status).toBe(404);
    }
    expect((await fetch(`${base}${stored.url}`)).status).toBe(401);
  });

  it('stores a PDF from a multipart form and serves it as an attachment; a text document comes back as text', async () => {
    const form = new FormData();
    form.set('file', new Blob([pdf], { type: 'application/pdf' }), 'handout.pdf');
    const res = await fetch(`${base}/api/scenes/my-interview/uploads`, { method: 'POST', headers: auth(), body: form });
    expect(res.status).toBe(201);
    const stored = (await res.json()) as { url: string; name: string };
    expect(stored.name).toBe('handout.pdf');
    const served = await fetch(`${base}${stored.url}`, { headers: auth() });
    expect(served.headers.get('content-disposition')).toMatch(/^attachment/);
    const text = await upload('my-interview', 'Agenda\n\n1. Welcome', 'text/markdown');
    expect(await text.json()).toMatchObject({ type: 'text/plain; charset=utf-8', text: 'Agenda\n\n1. Welcome' });
  });

  it('lets a session read only the files its scene shows', async () => {
    const stored = (await (await upload('my-interview', png, 'image/png')).json()) as { file: string; url: string };
    const opened = await getJson('my-interview');
    const scene = (await opened.json()) as { contents?: unknown[] };
    scene.contents = [{ id: 'poster', kind: 'poster', title: 'Our poster', file: stored.file }];
    const saved = await put('my-interview', JSON.stringify(scene), 'application/json', opened.headers.get('etag')!);
    expect(saved.status).toBe(200);
    const session = (await (await postJson('/api/sessions', { scene: 'my-interview' })).json()) as { tokens: Record<string, string> };
    const token = session.tokens.you!;
    expect((await fetch(`${base}${stored.url}?token=${token}`)).status).toBe(200);
    const other = (await (await upload('my-interview', png, 'image/png')).json()) as { url: string };
    expect((await fetch(`${base}${other.url}?token=${token}`)).status).toBe(403);
  });

  it('refuses an SVG, a malformed file, an unknown type and a too-big image, saying why', async () => {
    const svg = await upload('my-interview', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', 'image/svg+xml');
    expect(svg.status).toBe(415);
    expect(await svg.json()).toMatchObject({ error: 'svg-refused' });
    const disguised = await upload('my-interview', '<?xml version="1.0"?><svg onload="alert(1)"></svg>', 'text/plain');
    expect(await disguised.json()).toMatchObject({ error: 'svg-refused' });
    const fake = await upload('my-interview', 'not a png at all', 'image/png');
    expect(fake.status).toBe(400);
    expect(await fake.json()).toMatchObject({ error: 'malformed-upload', message: expect.stringContaining('PNG') });
    expect((await upload('my-interview', png, 'application/zip')).status).toBe(415);
    const big = await upload('my-interview', Buffer.concat([png, Buffer.alloc(5 * 1024 * 1024)]), 'image/png');
    expect(big.status).toBe(413);
    expect(((await big.json()) as { message: string }).message).toContain('5 MB');
    const broken = await fetch(`${base}/api/scenes/my-interview/uploads`, { method: 'POST', headers: auth({ 'Content-Type': 'multipart/form-data; boundary=xyz' }), body: '--xyz\r\nnonsense' });
    expect(broken.status).toBe(400);
    expect((await upload('no-such-scene', png, 'image/png')).status).toBe(404);
  });
});

describe('round trip of every shipped scene (SCENES_WRITABLE=1, on a copy of scenes/)', () => {
  let writable: InProcessServer;
  let dir: string;
  beforeAll(async () => {
    dir = join(tempDir(), 'scenes');
    cpSync(join(repo, 'scenes'), dir, { recursive: true });
    writable = await startServer({ scenesDir: dir, env: { SCENES_WRITABLE: '1' } });
  });
  afterAll(() => writable.close());

  it.each(shippedIds.map((id) => [id]))('%s: load, save unchanged as JSON and as YAML, the same file', async (id) => {
    const headers = { Authorization: `Bearer ${writable.admin}` };
    const original = readFileSync(join(dir, `${id}.yaml`), 'utf8');
    const opened = await fetch(`${writable.base}/api/scenes/${id}`, { headers: { ...headers, Accept: 'application/json' } });
    const data = await opened.json();
    const saved = await fetch(`${writable.base}/api/scenes/${id}`, { method: 'PUT', headers: { ...headers, 'Content-Type': 'application/json', 'If-Match': opened.headers.get('etag')! }, body: JSON.stringify(data) });
    expect(saved.status).toBe(200);
    expect(await saved.json()).toMatchObject({ id, source: 'shipped', created: false });
    expect(readFileSync(join(dir, `${id}.yaml`), 'utf8')).toBe(original);
    const asYaml = await fetch(`${writable.base}/api/scenes/${id}`, { method: 'PUT', headers: { ...headers, 'Content-Type': 'text/yaml', 'If-Match': saved.headers.get('etag')! }, body: original });
    expect(asYaml.status).toBe(200);
    const reopened = await fetch(`${writable.base}/api/scenes/${id}`, { headers: { ...headers, Accept: 'application/json' } });
    expect(await reopened.json()).toEqual(data);
  });

  it.each(shippedIds.map((id) => [id]))('%s: an edit rewrites only what changed', async (id) => {
    const headers = { Authorization: `Bearer ${writable.admin}` };
    const original = readFileSync(join(dir, `${id}.yaml`), 'utf8');
    const opened = await fetch(`${writable.base}/api/scenes/${id}`, { headers: { ...headers, Accept: 'application/json' } });
    const data = (await opened.json()) as { topic: string; snippets: { id: string; turns: number }[] };
    data.topic = 'A topic changed in the editor';
    data.snippets[data.snippets.length - 1]!.turns += 1;
    const saved = await fetch(`${writable.base}/api/scenes/${id}`, { method: 'PUT', headers: { ...headers, 'Content-Type': 'application/json', 'If-Match': opened.headers.get('etag')! }, body: JSON.stringify(data) });
    expect(saved.status).toBe(200);
    const after = readFileSync(join(dir, `${id}.yaml`), 'utf8');
    const before = original.split('\n');
    const changed = after.split('\n').filter((line, i) => line !== before[i]);
    expect(after.split('\n')).toHaveLength(before.length);
    expect(changed).toHaveLength(2);
    expect(parse(after)).toEqual(data);
  });
});

describe('deleting', () => {
  const remove = (id: string, ifMatch?: string, token = server.admin) =>
    fetch(`${base}/api/scenes/${id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${token}`, ...(ifMatch ? { 'If-Match': ifMatch } : {}) } });
  const listed = async () => ((await (await fetch(`${base}/api/scenes`)).json()) as { scenes: { id: string }[] }).scenes.map((s) => s.id);

  it('deletes an authored scene at the version the author saw, and only then', async () => {
    const created = await postJson('/api/scenes', { template: 'retro', id: 'to-delete' });
    const { etag } = (await created.json()) as { etag: string };
    expect((await remove('to-delete')).status).toBe(428);
    const stale = await remove('to-delete', '"not-this-one"');
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { current: { etag: string } }).current.etag).toBe(etag);
    expect(await listed()).toContain('to-delete');
    expect((await remove('to-delete', etag, 'not-a-token')).status).toBe(401);

    expect((await remove('to-delete', etag)).status).toBe(204);
    expect(await listed()).not.toContain('to-delete');
    expect((await getJson('to-delete')).status).toBe(404);
    expect(readdirSync(join(server.dataDir, 'scenes'))).not.toContain('to-delete.yaml');
    expect((await remove('to-delete', etag)).status).toBe(404);
  });

  it('refuses a shipped scene with 403 and says why', async () => {
    const { headers } = await getJson('team-standup');
    const res = await remove('team-standup', headers.get('etag')!);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { message: string }).message).toBe('"team-standup" ships with the server (scenes/team-standup.yaml) and cannot be deleted here; only scenes made in the editor can.');
    expect(await listed()).toContain('team-standup');
  });

  it('deletes a scene that sessions ran: their reviews keep the version they ran', async () => {
    const created = await postJson('/api/scenes', { template: 'social', id: 'has-sessions' });
    const { etag } = (await created.json()) as { etag: string };
    const session = await postJson('/api/sessions', { scene: 'has-sessions', pace: 'instant' });
    expect(session.status).toBe(201);
    const { id } = (await session.json()) as { id: string };
    const res = await remove('has-sessions', etag);
    expect(res.status).toBe(204);
    expect(await listed()).not.toContain('has-sessions');
    const report = await fetch(`${base}/api/sessions/${id}/report`, { headers: auth() });
    expect(report.status).toBe(200);
    expect(((await report.json()) as { scene: string }).scene).toBe('has-sessions');
    expect((await fetch(`${base}/api/sessions/${id}/replay`, { headers: auth() })).status).toBe(200);
  });
});
