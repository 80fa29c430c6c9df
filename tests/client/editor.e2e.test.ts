/**
 * Issue 29, the scene editor (`/editor?token=<admin>`) in headless Chromium against the real server
 * (its scene library: the shipped scenes/ and DATA_DIR/scenes; its uploads): an author duplicates a
 * shipped scene, builds a small scene from a template (two personas, a human seat, a poster with
 * its image, two snippets with a transition), sees the live check's problems on the fields and
 * nodes they concern, undoes and redoes, saves, reloads and finds the same scene, runs it
 * (simulated runs with their figures, a live session's join links); saves a shipped scene and goes
 * on editing the copy the server made of it, meets another author's save (409: the other version
 * shown, theirs or mine), and is warned before leaving unsaved changes. Screenshots at 1280×720:
 * test-artifacts/editor-*.png.
 */
import { readdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { SessionSummary } from '../../shared/protocol/messages';
import { api } from '../server/helpers';
import { decodePng, pixelsNear } from '../png';
import { screenshot, testLink } from './browser';
import { browserSuite } from './pages';

const suite = browserSuite();
const shippedScenes = readdirSync(new URL('../../scenes/', import.meta.url)).filter((f) => f.endsWith('.yaml')).length;

const open = async (path: string): Promise<Page> => {
  const page = await suite.open();
  await page.goto(`http://localhost:${suite.server.port}${path}`);
  return page;
};

/** The scene as the server holds it now (GET /api/scenes/:id as JSON), and its version. */
const stored = async (id: string): Promise<{ scene: Record<string, unknown>; etag: string }> => {
  const res = await fetch(`${suite.server.base}/api/scenes/${id}`, { headers: { authorization: `Bearer ${suite.server.admin}`, accept: 'application/json' } });
  expect(res.status).toBe(200);
  return { scene: (await res.json()) as Record<string, unknown>, etag: res.headers.get('etag')! };
};

/** Another author's save of `id`: the scene as it is now with `change`, made from its current version. */
const theirSave = async (id: string, change: Record<string, unknown>): Promise<void> => {
  const { scene, etag } = await stored(id);
  const res = await fetch(`${suite.server.base}/api/scenes/${id}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${suite.server.admin}`, 'content-type': 'application/json', 'if-match': etag },
    body: JSON.stringify({ ...scene, ...change }),
  });
  expect(res.status).toBe(200);
};

/** The poster's two bars, #3b7dd8 and #d8843b: on a board in the room only when its image is shown. */
const posterColours = [
  [0x3b, 0x7d, 0xd8],
  [0xd8, 0x84, 0x3b],
] as const;

/** A poster's image, drawn in the page: a PNG as an author would export one. */
const posterPng = async (page: Page): Promise<Buffer> => {
  const data = await page.evaluate(() => {
    const canvas = document.createElement('canvas');
    canvas.width = 480;
    canvas.height = 320;
    const ctx = canvas.getContext('2d')!;
    ctx.fillStyle = '#f4efe6';
    ctx.fillRect(0, 0, 480, 320);
    ctx.fillStyle = '#27496d';
    ctx.font = 'bold 34px sans-serif';
    ctx.fillText('Pay bands 2025', 24, 54);
    [['C', 70, 92], ['D', 88, 110]].forEach(([band, low, high], i) => {
      ctx.fillStyle = i === 0 ? '#3b7dd8' : '#d8843b';
      ctx.fillRect(24 + (Number(low) - 60) * 6, 110 + i * 80, (Number(high) - Number(low)) * 6, 50);
      ctx.fillStyle = '#1d2430';
      ctx.font = '24px sans-serif';
      ctx.fillText(`Band ${band}: ${low}-${high}k`, 24, 100 + i * 80);
    });
    return canvas.toDataURL('image/png');
  });
  return Buffer.from(data.replace(/^data:image\/png;base64,/, ''), 'base64');
};

const draftOf = (page: Page) => page.evaluate(() => window.__editor!.draft());
const tab = (page: Page, name: string) => page.getByRole('tab', { name: new RegExp(`^${name}`) }).click();
/** The field labelled `label` inside `scope` (an inspector, a card). */
const field = (page: Page, scope: string, label: string) => page.locator(scope).getByLabel(label, { exact: true });

describe('the scene editor', () => {
  it('duplicates a scene, builds one from a template, checks it live, undoes, saves, reloads it equal and runs it', async () => {
    const admin = suite.server.admin;
    const page = await open(`/editor?token=${admin}&test=1`);
    // The list: every shipped scene, to open or duplicate, and templates per structure.
    await page.locator('tr[data-scene="team-standup"]').waitFor();
    expect(await page.locator('tr[data-scene]').count()).toBe(shippedScenes);
    expect(await page.locator('tr[data-scene="team-standup"] td').nth(3).textContent()).toBe('shipped');

    // A duplicate is an authored scene of its own, opened at once, and listed beside the shipped ones.
    await page.locator('tr[data-scene="team-standup"]').getByRole('button', { name: 'Duplicate' }).click();
    await page.locator('.editor-bar').waitFor();
    expect(new URL(page.url()).searchParams.get('scene')).toBe('team-standup-copy');
    expect(await field(page, '.scene-fields', 'Title').inputValue()).toMatch(/\(copy\)$/);
    await page.getByRole('button', { name: '← Scenes' }).click();
    await page.locator('tr[data-scene="team-standup-copy"]').waitFor();
    expect(await page.locator('tr[data-scene="team-standup-copy"] td').nth(3).textContent()).toBe('authored');
    expect(await page.locator('tr[data-scene]').count()).toBe(shippedScenes + 1);
    await screenshot(page, 'editor-list');

    await page.getByLabel('From the template').selectOption('discussion');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.locator('.editor-bar').waitFor();
    expect(new URL(page.url()).searchParams.get('scene')).toBe('new-discussion');
    await page.locator('.tabs .problems summary', { hasText: 'No problems' }).waitFor();
    // The template's cast: two personas and the trainee's seat; its flow: two snippets, one after the other.
    const template = await draftOf(page);
    expect(template.participants.map((p) => [p.id, p.kind])).toEqual([
      ['hana', 'ai'],
      ['omar', 'ai'],
      ['you', 'human'],
    ]);

    // The scene tab: title and topic.
    await field(page, '.scene-fields', 'Title').fill('Salary talk');
    await field(page, '.scene-fields', 'Topic').fill('Asking for a raise after a strong year');
    await expect.poll(() => page.locator('.editor-bar .state').textContent()).toBe('Unsaved changes');

    // Participants: the template's second persona out, one of our own in. Its empty backstory is shown on the field, in scene:check's words.
    await tab(page, 'Participants');
    await page.locator('.person', { hasText: 'Omar Farah' }).click();
    const inspector = '.inspector';
    await page.locator(inspector).getByRole('button', { name: 'Remove', exact: true }).click();
    await page.getByRole('button', { name: 'Add a persona' }).click();
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
    // Her voice, heard: the server speaks a line in the voice a session gives her (a default none of the others has, at a persona's 150 words a minute).
    const sample = page.locator('.voice-sample');
    await sample.getByRole('button', { name: 'Play a line in this voice' }).click();
    await expect.poll(() => sample.getAttribute('data-state'), { timeout: 30_000 }).toMatch(/^(playing|played)$/);
    expect(await sample.getByRole('status').textContent()).toMatch(/^Play(ing|ed) en-(us|gb)\+[mf]\d at 150 wpm$/);
    // A voice eSpeak does not have: the server's words, naming the variants it has; undone, she has her default again.
    suite.expectFailures(/^422 .*\/api\/scenes\/voice-sample$/);
    await field(page, inspector, 'eSpeak voice').fill('en-us+nobody');
    await sample.getByRole('button', { name: 'Play a line in this voice' }).click();
    await expect.poll(() => sample.getAttribute('data-state')).toBe('failed');
    expect(await sample.getByRole('status').textContent()).toMatch(/^The server's synthesizer has no such voice \(eSpeak: unknown voice variant "nobody" \(known: .*\bf3\b/);
    expect(suite.problems.console.splice(0)).toEqual([expect.stringMatching(/422/)]);
    await screenshot(page, 'editor-voice');
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    expect((await draftOf(page)).participants[2]!.voice).toBeUndefined();
    // A fact with its own reveal rule.
    await page.getByRole('button', { name: 'Add a fact' }).click();
    await field(page, inspector, 'Fact 1').fill('The band tops out at 92k.');
    await page.locator('.knowledge').getByLabel('Reveal', { exact: true }).selectOption('when-asked');
    // The human seat's stand-in.
    await page.locator('.person', { hasText: 'Robin Hart' }).click();
    await page.locator(inspector).getByLabel('Mode', { exact: true }).selectOption('autonomous');
    await page.locator('.avatar-library img').first().waitFor({ timeout: 60_000 });
    await screenshot(page, 'editor-participants');

    // A poster, visible to everyone, with its image uploaded to the server and shown here as its board will show it.
    await tab(page, 'Parties & content');
    await page.getByRole('button', { name: 'Add a poster' }).click();
    const contents = page.locator('[aria-label=Contents]');
    await contents.getByLabel('Title', { exact: true }).fill('Pay bands 2025');
    await contents.getByLabel('Sections', { exact: true }).fill('Band C: 70-92k\nBand D: 88-110k');
    // An SVG is refused, in the server's words, and nothing is attached.
    suite.expectFailures(/^415 .*\/api\/scenes\/new-discussion\/uploads$/);
    await contents.locator('input[type=file]').setInputFiles({ name: 'bands.svg', mimeType: 'image/svg+xml', buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>') });
    await expect.poll(() => contents.locator('.content-file .problem').textContent()).toMatch(/^bands\.svg: SVG images are refused/);
    expect((await draftOf(page)).contents![0]!.file).toBeUndefined();
    expect(suite.problems.console.splice(0)).toEqual([expect.stringMatching(/415/)]);
    const png = await posterPng(page);
    await contents.locator('input[type=file]').setInputFiles({ name: 'bands.png', mimeType: 'image/png', buffer: png });
    const image = contents.locator('.content-file img');
    await image.waitFor();
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(480);
    const file = (await draftOf(page)).contents![0]!.file!;
    expect(file).toMatch(/^new-discussion\/[\w-]{24}\.png$/);
    // The server keeps the bytes as sent, for the author's token only.
    const served = await fetch(`${suite.server.base}/api/uploads/${file}`, { headers: { authorization: `Bearer ${admin}` } });
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await served.arrayBuffer()).equals(png)).toBe(true);
    expect((await fetch(`${suite.server.base}/api/uploads/${file}`)).status).toBe(401);
    await screenshot(page, 'editor-parties');

    // The flow: the template's second snippet out, a new one opened by the new persona; set, cut and undo the transition, redraw it by hand.
    await tab(page, 'Flow');
    const flowInspector = page.locator('.flow-tab .inspector');
    await page.locator('.react-flow__node', { hasText: 'Decision' }).click();
    await flowInspector.getByRole('button', { name: 'Remove', exact: true }).click();
    await page.getByRole('button', { name: 'Add a snippet' }).click();
    await flowInspector.getByLabel('Title', { exact: true }).fill('The offer');
    await flowInspector.getByLabel('Initiator', { exact: true }).selectOption('persona');
    await flowInspector.getByLabel('Goal').fill('Dana makes an offer inside the band.');
    await page.locator('.react-flow__node', { hasText: 'Views' }).click();
    // Removing the snippet it went on to ended the session after it; the list order takes it on again.
    expect(await page.locator('.react-flow__edge').count()).toBe(0);
    await flowInspector.getByLabel('Then').selectOption('(order)');
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(1);
    await flowInspector.getByLabel('Then').selectOption('(end)');
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(0);
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(1);
    await page.keyboard.press('Control+Shift+Z');
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(0);
    const from = (await page.locator('.react-flow__node', { hasText: 'Views' }).locator('.react-flow__handle.source').boundingBox())!;
    const to = (await page.locator('.react-flow__node', { hasText: 'The offer' }).locator('.react-flow__handle.target').boundingBox())!;
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 8 });
    await page.mouse.up();
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(1);
    await screenshot(page, 'editor-flow');
    // Its node dragged down and left: the place is one edit (undone, redone), kept with the snippet.
    const offer = page.locator('.react-flow__node', { hasText: 'The offer' });
    const placed = () => offer.evaluate((n: HTMLElement) => n.style.transform);
    const laidOut = await placed();
    const box = (await offer.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 - 120, box.y + box.height / 2 + 140, { steps: 8 });
    await page.mouse.up();
    const dropped = (await draftOf(page)).snippets[1]!.editor!.position;
    expect(dropped.y).toBeGreaterThan(Number(/, ([\d.]+)px\)$/.exec(laidOut)![1]));
    const droppedAt = `translate(${dropped.x}px, ${dropped.y}px)`;
    expect(await placed()).toBe(droppedAt);
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    expect((await draftOf(page)).snippets[1]!.editor).toBeUndefined();
    await expect.poll(placed).toBe(laidOut);
    await page.keyboard.press('Control+Shift+Z');
    await expect.poll(placed).toBe(droppedAt);

    // The room: three people at the table, the poster on its board; the human moved to the new persona's seat.
    await tab(page, 'Room');
    expect(await page.locator('.top-down .seat').count()).toBe(3);
    expect(await page.locator('.top-down .board').count()).toBe(1);
    const you = (await page.locator('[data-seat=you] circle').boundingBox())!;
    const dana = (await page.locator('[data-seat=persona] circle').boundingBox())!;
    await page.mouse.move(you.x + you.width / 2, you.y + you.height / 2);
    await page.mouse.down();
    await page.mouse.move(dana.x + dana.width / 2, dana.y + dana.height / 2, { steps: 6 });
    await page.mouse.up();
    await expect.poll(async () => (await draftOf(page)).participants.map((p) => p.id)).toEqual(['hana', 'persona', 'you']);
    await page.getByRole('button', { name: '3D preview' }).click();
    await page.locator('.preview-3d canvas').waitFor();
    await page.waitForTimeout(4000);
    await screenshot(page, 'editor-room');

    // What was built: two personas, a human, a poster with its image, two snippets with a transition.
    const built = await draftOf(page);
    expect(built.participants.map((p) => [p.id, p.kind])).toEqual([
      ['hana', 'ai'],
      ['persona', 'ai'],
      ['you', 'human'],
    ]);
    expect(built.contents).toEqual([{ id: 'poster', kind: 'poster', title: 'Pay bands 2025', sections: ['Band C: 70-92k', 'Band D: 88-110k'], file }]);
    expect(built.snippets.map((s) => [s.id, s.next])).toEqual([
      ['views', undefined],
      ['snippet', undefined],
    ]);
    expect(built.participants[1]!.persona!.privateKnowledge).toEqual([{ text: 'The band tops out at 92k.', reveal: 'when-asked' }]);

    // Saved: the server holds what the editor holds; reloaded, the editor holds it again.
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => page.locator('.editor-bar .state').textContent()).toBe('Saved');
    expect((await stored('new-discussion')).scene).toEqual(built);
    await page.reload();
    await page.locator('.editor-bar').waitFor();
    expect(await draftOf(page)).toEqual(built);
    expect(await page.evaluate(() => window.__editor!.dirty())).toBe(false);
    // The flow as it was drawn: the dragged node where it was dropped.
    await tab(page, 'Flow');
    await offer.waitFor();
    expect(await placed()).toBe(droppedAt);

    // Run it: simulated runs with their figures, then a live session with its join links.
    await tab(page, 'Try it');
    await page.getByRole('spinbutton', { name: 'Runs' }).fill('2');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const turns = page.locator('tr[data-figure=turns] td').nth(1);
    await turns.waitFor({ timeout: 120_000 });
    expect(Number(await turns.textContent())).toBeGreaterThan(0);
    expect(await page.locator('.figures-table caption').textContent()).toMatch(/^2 runs from seed 1/);
    expect(await page.locator('tr[data-figure=answeredByContent] td').nth(1).textContent()).toMatch(/^\d+%$/);
    await page.getByRole('button', { name: 'Start a live session' }).click();
    await page.locator('.links li').first().waitFor();
    const { sessions } = (await (await api(suite.server, '/api/sessions')).json()) as { sessions: SessionSummary[] };
    expect(sessions.map((s) => s.scene.id)).toEqual(['new-discussion']);
    const session = sessions[0]!.id;
    expect(await page.locator('.links li').allTextContents()).toEqual([expect.stringMatching(new RegExp(`^Robin Hart: .*/room/${session}\\?token=`)), expect.stringMatching(/^instructor: /)]);
    await screenshot(page, 'editor-try');

    // The live room shows the poster's image on its board, read with the room link's own token (an observer's here).
    const link = (await page.locator('.links li').nth(1).locator('a').getAttribute('href'))!;
    const room = await suite.open();
    const read = room.waitForResponse((res) => res.url().endsWith(`/api/uploads/${file}`));
    await room.goto(testLink(link, suite.server.port));
    const answered = await read;
    expect(answered.status()).toBe(200);
    expect(answered.request().headers()['authorization']).toBe(`Bearer ${new URL(link).searchParams.get('token')}`);
    // Its two bands' colours, drawn on the board by the room's renderer.
    const shown = async () => {
      const shot = decodePng(await room.screenshot());
      return Math.min(...posterColours.map((rgb) => pixelsNear(shot, rgb)));
    };
    await expect.poll(shown, { timeout: 30_000 }).toBeGreaterThan(40);
    await screenshot(room, 'editor-room-poster');
  }, 300_000);

  it('saves a shipped scene as a copy and goes on with it; shows the other version when someone saved first, and keeps mine or takes theirs', async () => {
    const page = await open(`/editor?token=${suite.server.admin}&test=1&scene=job-interview`);
    await page.locator('.editor-bar').waitFor();
    const shipped = (await stored('job-interview')).scene;
    // A shipped scene is the repository's: the save becomes a new authored scene, and the editor goes on with it.
    await field(page, '.scene-fields', 'Title').fill('My interview');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => page.locator('.editor-bar .state').textContent()).toBe('Saved as job-interview-copy');
    expect(new URL(page.url()).searchParams.get('scene')).toBe('job-interview-copy');
    expect(await page.getByRole('status').textContent()).toMatch(/"job-interview" ships with the server.*"job-interview-copy"/);
    expect((await stored('job-interview')).scene).toEqual(shipped);
    expect((await stored('job-interview-copy')).scene).toEqual({ ...shipped, title: 'My interview' });
    expect(await page.evaluate(() => window.__editor!.dirty())).toBe(false);

    // Another author saves the copy while it is open here.
    await theirSave('job-interview-copy', { title: 'Their interview' });
    await field(page, '.scene-fields', 'Topic').fill('My topic');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await dialog.locator('.yaml').textContent()).toContain('title: Their interview');
    await screenshot(page, 'editor-conflict');
    await dialog.getByRole('button', { name: /Keep mine/ }).click();
    await expect.poll(() => page.locator('.editor-bar .state').textContent()).toBe('Saved');
    expect((await stored('job-interview-copy')).scene).toMatchObject({ title: 'My interview', topic: 'My topic' });

    // Again, and this time theirs is taken: the editor shows their version, with nothing unsaved.
    await theirSave('job-interview-copy', { title: 'Their interview, again' });
    await field(page, '.scene-fields', 'Topic').fill('Mine');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await dialog.getByRole('button', { name: /Take their version/ }).click();
    await expect.poll(() => field(page, '.scene-fields', 'Title').inputValue()).toBe('Their interview, again');
    expect(await page.evaluate(() => window.__editor!.dirty())).toBe(false);
    // The two refused saves were meant: the 409s, and the browser's line for each, are no problem.
    expect(suite.problems.failed.splice(0)).toEqual([expect.stringMatching(/^409 .*\/api\/scenes\/job-interview-copy$/), expect.stringMatching(/^409 /)]);
    expect(suite.problems.console.splice(0)).toEqual([expect.stringMatching(/409 \(Conflict\)/), expect.stringMatching(/409 \(Conflict\)/)]);
  }, 120_000);

  it('deletes an authored scene once confirmed, never one changed since it was listed, and offers no delete for a shipped one', async () => {
    const made = await fetch(`${suite.server.base}/api/scenes`, { method: 'POST', headers: { authorization: `Bearer ${suite.server.admin}`, 'content-type': 'application/json' }, body: JSON.stringify({ template: 'retro', id: 'old-retro' }) });
    expect(made.status).toBe(201);
    const page = await open(`/editor?token=${suite.server.admin}&test=1`);
    const row = page.locator('tr[data-scene="old-retro"]');
    await row.waitFor();
    expect(await page.locator('tr[data-scene="team-standup"]').getByRole('button', { name: 'Delete' }).count()).toBe(0);
    const asked: string[] = [];
    const answer = (yes: boolean) =>
      page.once('dialog', (d) => {
        asked.push(d.message());
        void (yes ? d.accept() : d.dismiss());
      });

    // Not confirmed: nothing happens.
    answer(false);
    await row.getByRole('button', { name: 'Delete' }).click();
    expect(asked).toEqual([expect.stringMatching(/^Delete ".*" \(old-retro\)\? .*cannot be undone\.$/)]);
    expect((await stored('old-retro')).etag).toMatch(/^".+"$/);

    // Saved by someone else since the list was shown: kept, in the server's words, and listed at its new version.
    await theirSave('old-retro', { title: 'Their retro' });
    suite.expectFailures(/^409 .*\/api\/scenes\/old-retro$/);
    answer(true);
    await row.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/^Scene "old-retro" has changed since you opened it; nothing was deleted/);
    expect(suite.problems.console.splice(0)).toEqual([expect.stringMatching(/409/)]);
    await expect.poll(() => row.locator('b').textContent()).toBe('Their retro');
    await screenshot(page, 'editor-delete-conflict');

    // Confirmed at the version shown: gone from the list and the server.
    answer(true);
    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('status').filter({ hasText: 'Deleted "Their retro".' }).waitFor();
    // The list is read again after the word that it is deleted.
    await expect.poll(() => row.count()).toBe(0);
    expect((await fetch(`${suite.server.base}/api/scenes/old-retro`, { headers: { authorization: `Bearer ${suite.server.admin}` } })).status).toBe(404);
  }, 60_000);

  it('warns before leaving unsaved changes, in the page and when the tab closes', async () => {
    const page = await open(`/editor?token=${suite.server.admin}&test=1&scene=team-standup`);
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
