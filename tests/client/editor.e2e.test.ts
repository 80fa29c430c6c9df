/**
 * Issue 29, the scene editor (`/editor?token=<admin>`) in headless Chromium: an author builds a
 * small scene from a template (two personas, a human seat, a poster, two snippets with a transition),
 * sees the live check's problems on the fields and nodes they concern, undoes and redoes, saves,
 * reloads and finds the same scene, runs it (simulated runs with their figures, a live session's
 * join links), meets another author's save (409: the other version shown, theirs or mine), and is
 * warned before leaving unsaved changes. Screenshots at 1280×720: test-artifacts/editor-*.png.
 *
 * The scenes API is served here by a small stand-in of the server's contract (a Hono app with the
 * same paths, statuses and headers), checking scenes with the server's own parseScene and running
 * them with the simulator's driveSession and metrics; the real server replaces it once it serves
 * `/editor` and the authoring endpoints.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { driveSession } from '../../server/conversation/drive';
import { aggregateMetrics, runMetrics } from '../../server/metrics/metrics';
import { createScriptedGenerator } from '../../server/providers/generator/scripted';
import { parseScene } from '../../server/scene/load';
import { buildClient, launchBrowser, pageProblems, screenshot, watchPage } from './browser';
import { expectNoPageProblems } from './pages';

const ADMIN = 'editor-admin-token-0123456789';
const repo = new URL('../../', import.meta.url).pathname;

interface Stored {
  yaml: string;
  etag: string;
  source: 'shipped' | 'authored';
}

const etagOf = (yaml: string) => `"${createHash('sha256').update(yaml).digest('hex').slice(0, 16)}"`;

/** A template per structure, as small as a valid scene is: a host persona and the trainee's seat. */
const template = (form: string) => ({
  title: `New ${form}`,
  topic: 'What this rehearsal is about',
  formation: 'table',
  participants: [
    { id: 'you', kind: 'human', name: 'You', avatar: 'avatar-01' },
    { id: 'host', kind: 'ai', name: 'Harper Quinn', avatar: 'avatar-06', persona: { backstory: 'Runs the meeting.' } },
  ],
  structure: { form, askers: ['host'], answerers: ['you'] },
  snippets: [{ id: 'opening', initiator: 'host', turns: 4 }],
});

/** The authoring API's contract, kept in memory: what the editor is built against. */
const fakeServer = () => {
  const scenes = new Map<string, Stored>();
  for (const file of readdirSync(`${repo}scenes`).filter((f) => f.endsWith('.yaml'))) {
    const yaml = readFileSync(`${repo}scenes/${file}`, 'utf8');
    scenes.set(file.replace(/\.yaml$/, ''), { yaml, etag: etagOf(yaml), source: 'shipped' });
  }
  const put = (id: string, data: unknown, source: Stored['source'] = 'authored') => {
    const yaml = stringify(data);
    const stored = { yaml, etag: etagOf(yaml), source };
    scenes.set(id, stored);
    return stored;
  };
  const freshId = (base: string) => {
    let id = base;
    for (let n = 2; scenes.has(id); n++) id = `${base}-${n}`;
    return id;
  };
  const problemsOf = (data: unknown, id: string) => parseScene(JSON.stringify(data), `${id}.yaml`).problems.map(({ path, message, line }) => ({ path, message, line }));
  const sessions: string[] = [];

  const app = new Hono();
  app.use('/api/*', async (c, next) => {
    if (c.req.header('authorization') !== `Bearer ${ADMIN}`) return c.json({ message: 'The admin token is wrong.' }, 401);
    await next();
  });
  app.get('/api/scenes', (c) =>
    c.json({
      scenes: [...scenes].map(([id, s]) => {
        const data = parse(s.yaml) as { title: string; formation: string; structure?: { form: string } };
        return { id, title: data.title, structure: data.structure?.form ?? null, formation: data.formation, source: s.source, etag: s.etag };
      }),
    }),
  );
  app.post('/api/scenes', async (c) => {
    const { template: form } = await c.req.json<{ template: string }>();
    const id = freshId(`new-${form}`);
    return c.json({ id, etag: put(id, template(form)).etag }, 201);
  });
  app.post('/api/scenes/validate', async (c) => {
    const errors = problemsOf(await c.req.json(), 'scene');
    return c.json({ ok: errors.length === 0, errors });
  });
  app.get('/api/scenes/:id', (c) => {
    const stored = scenes.get(c.req.param('id'));
    if (!stored) return c.json({ message: 'No such scene.' }, 404);
    c.header('ETag', stored.etag);
    return c.json(parse(stored.yaml));
  });
  app.put('/api/scenes/:id', async (c) => {
    const id = c.req.param('id');
    const stored = scenes.get(id);
    const match = c.req.header('if-match');
    if (stored && match !== stored.etag) {
      return c.json({ error: 'conflict', message: 'Someone saved this scene after you opened it.', current: { etag: stored.etag, yaml: stored.yaml } }, 409);
    }
    const data: unknown = await c.req.json();
    const errors = problemsOf(data, id);
    if (errors.length > 0) return c.json({ errors }, 422);
    return c.json({ id, etag: put(id, data).etag });
  });
  app.post('/api/scenes/:id/duplicate', (c) => {
    const stored = scenes.get(c.req.param('id'))!;
    const id = freshId(`${c.req.param('id')}-copy`);
    return c.json({ id, etag: put(id, parse(stored.yaml)).etag }, 201);
  });
  app.post('/api/scenes/:id/simulate', async (c) => {
    const { runs } = await c.req.json<{ runs: number }>();
    const id = c.req.param('id');
    const { scene, problems } = parseScene(scenes.get(id)!.yaml, `${id}.yaml`);
    if (!scene) return c.json({ message: problems.map((p) => p.message).join('; ') }, 422);
    const logs = await Promise.all(Array.from({ length: runs }, (_, k) => driveSession(scene, { seed: 1 + k, generator: createScriptedGenerator() })));
    return c.json(aggregateMetrics(logs.map((log) => runMetrics(log, scene))));
  });
  app.post('/api/sessions', async (c) => {
    const { scene } = await c.req.json<{ scene: string }>();
    const id = `s${sessions.push(scene)}`;
    const { participants } = parse(scenes.get(scene)!.yaml) as { participants: { id: string; kind: string }[] };
    const links = Object.fromEntries([...participants.filter((p) => p.kind === 'human').map((p) => p.id), 'observer'].map((seat) => [seat, `http://localhost/room/${id}?token=${seat}-token`]));
    return c.json({ id, links }, 201);
  });
  app.get('/avatars/:file{[\\w.-]+\\.(?:glb|json)}', serveStatic({ root: repo }));
  app.use('/*', serveStatic({ root: `${repo}dist/client` }));
  app.get('/editor', serveStatic({ path: `${repo}dist/client/index.html` }));
  return { app, scenes, sessions };
};

let server: ServerType;
let port = 0;
let browser: Browser;
const fake = fakeServer();
const problems = pageProblems();
const pages: Page[] = [];

beforeAll(async () => {
  await buildClient();
  await new Promise<void>((resolve) => {
    server = serve({ fetch: fake.app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
      port = info.port;
      resolve();
    });
  });
  browser = await launchBrowser();
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});
afterEach(async () => {
  for (const page of pages.splice(0)) await page.context().close().catch(() => {});
  expectNoPageProblems(problems);
});

const open = async (path: string): Promise<Page> => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  const page = await context.newPage();
  pages.push(page);
  watchPage(page, port, problems);
  await page.goto(`http://localhost:${port}${path}`);
  return page;
};

const draftOf = (page: Page) => page.evaluate(() => window.__editor!.draft());
const tab = (page: Page, name: string) => page.getByRole('tab', { name: new RegExp(`^${name}`) }).click();
/** The field labelled `label` inside `scope` (an inspector, a card). */
const field = (page: Page, scope: string, label: string) => page.locator(scope).getByLabel(label, { exact: true });

describe('the scene editor', () => {
  it('builds a scene from a template, checks it live, undoes, saves, reloads it equal and runs it', async () => {
    const page = await open(`/editor?token=${ADMIN}&test=1`);
    // The list: every shipped scene, to open or duplicate, and templates per structure.
    await page.locator('tr[data-scene="team-standup"]').waitFor();
    expect(await page.locator('tr[data-scene]').count()).toBe(readdirSync(`${repo}scenes`).filter((f) => f.endsWith('.yaml')).length);
    await screenshot(page, 'editor-list');
    await page.getByLabel('From the template').selectOption('discussion');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.locator('.editor-bar').waitFor();
    expect(new URL(page.url()).searchParams.get('scene')).toBe('new-discussion');
    await page.locator('.tabs .problems summary', { hasText: 'No problems' }).waitFor();

    // The scene tab: title and topic.
    await field(page, '.scene-fields', 'Title').fill('Salary talk');
    await field(page, '.scene-fields', 'Topic').fill('Asking for a raise after a strong year');
    await expect.poll(() => page.locator('.editor-bar .state').textContent()).toBe('Unsaved changes');

    // Participants: a second persona. Its empty backstory is shown on the field, in scene:check's words.
    await tab(page, 'Participants');
    await page.getByRole('button', { name: 'Add a persona' }).click();
    const inspector = '.inspector';
    await field(page, inspector, 'Name').fill('Dana Ortiz');
    await field(page, inspector, 'Role').fill('finance partner');
    const backstory = page.locator('.field[data-path="participants[2].persona.backstory"]');
    expect(await backstory.locator('.problem').textContent()).toBe('a persona needs a backstory');
    expect(await page.locator('.tabs [role=tab]', { hasText: 'Participants' }).locator('.count').textContent()).toBe('1');
    await screenshot(page, 'editor-problem');
    await backstory.locator('textarea').fill('Knows the pay bands and guards the budget.');
    await expect.poll(() => backstory.locator('.problem').count()).toBe(0);
    await field(page, inspector, 'Goals').fill('keep the raise inside the band\nhear the case first');
    await page.locator('.avatar-library button[title^="avatar-05"]').click();
    // A fact with its own reveal rule.
    await page.getByRole('button', { name: 'Add a fact' }).click();
    await field(page, inspector, 'Fact 1').fill('The band tops out at 92k.');
    await page.locator('.knowledge').getByLabel('Reveal', { exact: true }).selectOption('when-asked');
    // The human seat's stand-in.
    await page.locator('.person', { hasText: 'You' }).click();
    await page.locator(inspector).getByLabel('Mode', { exact: true }).selectOption('autonomous');
    await page.locator('.avatar-library img').first().waitFor({ timeout: 60_000 });
    await screenshot(page, 'editor-participants');

    // A poster, visible to everyone.
    await tab(page, 'Parties & content');
    await page.getByRole('button', { name: 'Add a poster' }).click();
    await page.locator('[aria-label=Contents]').getByLabel('Title', { exact: true }).fill('Pay bands 2025');
    await page.locator('[aria-label=Contents]').getByLabel('Sections', { exact: true }).fill('Band C: 70-92k\nBand D: 88-110k');
    await screenshot(page, 'editor-parties');

    // The flow: a second snippet, opened by the new persona; cut the transition, undo, redraw it by hand.
    await tab(page, 'Flow');
    await page.getByRole('button', { name: 'Add a snippet' }).click();
    await page.locator('.flow-tab .inspector').getByLabel('Title', { exact: true }).fill('The offer');
    await page.locator('.flow-tab .inspector').getByLabel('Initiator', { exact: true }).selectOption('persona');
    await page.locator('.flow-tab .inspector').getByLabel('Goal').fill('Dana makes an offer inside the band.');
    await page.locator('.react-flow__node', { hasText: 'opening' }).click();
    await page.locator('.flow-tab .inspector').getByLabel('Then').selectOption('(end)');
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(0);
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(1);
    await page.keyboard.press('Control+Shift+Z');
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(0);
    const from = (await page.locator('.react-flow__node', { hasText: 'opening' }).locator('.react-flow__handle.source').boundingBox())!;
    const to = (await page.locator('.react-flow__node', { hasText: 'The offer' }).locator('.react-flow__handle.target').boundingBox())!;
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 8 });
    await page.mouse.up();
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(1);
    await screenshot(page, 'editor-flow');

    // The room: three people at the table, the poster on its board; the human moved to the persona's seat.
    await tab(page, 'Room');
    expect(await page.locator('.top-down .seat').count()).toBe(3);
    expect(await page.locator('.top-down .board').count()).toBe(1);
    const you = (await page.locator('[data-seat=you] circle').boundingBox())!;
    const dana = (await page.locator('[data-seat=persona] circle').boundingBox())!;
    await page.mouse.move(you.x + you.width / 2, you.y + you.height / 2);
    await page.mouse.down();
    await page.mouse.move(dana.x + dana.width / 2, dana.y + dana.height / 2, { steps: 6 });
    await page.mouse.up();
    await expect.poll(async () => (await draftOf(page)).participants.map((p) => p.id)).toEqual(['persona', 'host', 'you']);
    await page.getByRole('button', { name: '3D preview' }).click();
    await page.locator('.preview-3d canvas').waitFor();
    await page.waitForTimeout(4000);
    await screenshot(page, 'editor-room');

    // What was built: two personas, a human, a poster, two snippets with a transition.
    const built = await draftOf(page);
    expect(built.participants.map((p) => [p.id, p.kind])).toEqual([
      ['persona', 'ai'],
      ['host', 'ai'],
      ['you', 'human'],
    ]);
    expect(built.contents).toEqual([{ id: 'poster', kind: 'poster', title: 'Pay bands 2025', sections: ['Band C: 70-92k', 'Band D: 88-110k'] }]);
    expect(built.snippets.map((s) => [s.id, s.next])).toEqual([
      ['opening', undefined],
      ['snippet', undefined],
    ]);
    expect(built.participants[0]!.persona!.privateKnowledge).toEqual([{ text: 'The band tops out at 92k.', reveal: 'when-asked' }]);

    // Saved: the server holds what the editor holds; reloaded, the editor holds it again.
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => page.locator('.editor-bar .state').textContent()).toBe('Saved');
    expect(parse(fake.scenes.get('new-discussion')!.yaml)).toEqual(built);
    await page.reload();
    await page.locator('.editor-bar').waitFor();
    expect(await draftOf(page)).toEqual(built);
    expect(await page.evaluate(() => window.__editor!.dirty())).toBe(false);

    // Run it: simulated runs with their figures, then a live session with its join links.
    await tab(page, 'Try it');
    await page.getByRole('spinbutton', { name: 'Runs' }).fill('2');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const turns = page.locator('tr[data-figure=turns] td').nth(1);
    await turns.waitFor({ timeout: 120_000 });
    expect(Number(await turns.textContent())).toBeGreaterThan(0);
    expect(await page.locator('.figures-table caption').textContent()).toMatch(/^2 runs/);
    await page.getByRole('button', { name: 'Start a live session' }).click();
    await page.locator('.links li').first().waitFor();
    expect(await page.locator('.links li').allTextContents()).toEqual([expect.stringMatching(/^you: .*\/room\/s1\?token=/), expect.stringMatching(/^instructor: /)]);
    expect(fake.sessions).toEqual(['new-discussion']);
    await screenshot(page, 'editor-try');
  }, 300_000);

  it('shows the other version when someone saved first, and keeps mine or takes theirs', async () => {
    const page = await open(`/editor?token=${ADMIN}&test=1&scene=job-interview`);
    await page.locator('.editor-bar').waitFor();
    // Another author saves the scene while it is open here.
    const theirs = { ...(parse(fake.scenes.get('job-interview')!.yaml) as object), title: 'Their interview' };
    fake.scenes.set('job-interview', { ...fake.scenes.get('job-interview')!, yaml: stringify(theirs), etag: etagOf(stringify(theirs)) });
    await field(page, '.scene-fields', 'Title').fill('My interview');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await dialog.locator('.yaml').textContent()).toContain('title: Their interview');
    await screenshot(page, 'editor-conflict');
    await dialog.getByRole('button', { name: /Keep mine/ }).click();
    await expect.poll(() => page.locator('.editor-bar .state').textContent()).toBe('Saved');
    expect((parse(fake.scenes.get('job-interview')!.yaml) as { title: string }).title).toBe('My interview');

    // Again, and this time theirs is taken: the editor shows their version, with nothing unsaved.
    const again = { ...theirs, title: 'Their interview, again' };
    fake.scenes.set('job-interview', { ...fake.scenes.get('job-interview')!, yaml: stringify(again), etag: etagOf(stringify(again)) });
    await field(page, '.scene-fields', 'Topic').fill('Mine');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await dialog.getByRole('button', { name: /Take their version/ }).click();
    await expect.poll(() => field(page, '.scene-fields', 'Title').inputValue()).toBe('Their interview, again');
    expect(await page.evaluate(() => window.__editor!.dirty())).toBe(false);
    // The two refused saves were meant: the 409s, and the browser's line for each, are no problem.
    expect(problems.failed.splice(0)).toEqual([expect.stringMatching(/^409 .*\/api\/scenes\/job-interview$/), expect.stringMatching(/^409 /)]);
    expect(problems.console.splice(0)).toEqual([expect.stringMatching(/409 \(Conflict\)/), expect.stringMatching(/409 \(Conflict\)/)]);
  }, 120_000);

  it('warns before leaving unsaved changes, in the page and when the tab closes', async () => {
    const page = await open(`/editor?token=${ADMIN}&test=1&scene=team-standup`);
    await page.locator('.editor-bar').waitFor();
    await field(page, '.scene-fields', 'Topic').fill('Changed');
    const asked: string[] = [];
    page.on('dialog', (d) => {
      asked.push(d.type());
      void d.dismiss();
    });
    await page.getByRole('button', { name: '← Scenes' }).click();
    expect(asked).toEqual(['confirm']);
    expect(await page.locator('.editor-bar').count()).toBe(1);
    await page.close({ runBeforeUnload: true });
    await expect.poll(() => asked).toEqual(['confirm', 'beforeunload']);
    expect(page.isClosed()).toBe(false);
  }, 60_000);
});
