/**
 * Issue 17, the instructors' sessions page (`/sessions`) in headless Chromium against the real
 * server: sign in with the admin token, create a session, see it listed with its status and seats,
 * see that it records, copy a seat's join link and open it (the room's brief, which says the session records the
 * candidate's microphone), open the live view, end the session, delete it.
 * No page may throw or log an error, and nothing may load from outside the origin. Screenshot:
 * test-artifacts/sessions.png (1280×720).
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { screenshot } from './browser';
import { browserSuite } from './pages';

const suite = browserSuite();

const newPage = (): Promise<Page> => suite.open(['clipboard-read', 'clipboard-write']);

describe('the sessions page', () => {
  it('creates a session that records, lists it, gives out its join links, ends it and deletes it', async () => {
    const page = await newPage();
    await page.goto(`http://localhost:${suite.server.port}/sessions`);
    await page.getByLabel('Admin token').fill(suite.server.admin);
    await page.getByRole('button', { name: 'Show sessions', exact: true }).click();
    await page.getByText('No sessions yet').waitFor();

    // A job interview, in real time, waiting in its lobby for the candidate.
    await page.getByLabel('Scene').selectOption('job-interview');
    // Each option of the form is its box beside its label, on one line of its own.
    for (const name of ['Start with stand-ins', "Record participants' microphones"]) {
      const box = (await page.getByLabel(name).boundingBox())!;
      const label = (await page.locator('label.option', { hasText: name }).boundingBox())!;
      expect(label.height).toBeLessThan(box.height * 2);
      expect(box.y + box.height / 2).toBeGreaterThan(label.y);
      expect(box.y + box.height / 2).toBeLessThan(label.y + label.height);
    }
    await page.getByLabel("Record participants' microphones").check();
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    const row = page.locator('tr[data-session]');
    await row.first().waitFor();
    expect(await row.count()).toBe(1);
    await expect.poll(() => row.locator('.badge').textContent()).toBe('in the lobby');
    const id = await row.getAttribute('data-session');
    expect(await row.textContent()).toContain('AI personas');
    // It says, once created, that it records participants' microphones.
    const rec = row.locator('[data-recording]');
    await expect.poll(() => rec.textContent()).toContain('REC');
    expect(await rec.getAttribute('title')).toMatch(/records participants' microphones/);

    // The candidate's link: copied to the clipboard and shown; it opens that seat's brief.
    const copy = row.getByRole('button', { name: /^Copy .*join link$/ });
    await copy.first().click();
    const shown = row.getByRole('textbox', { name: /join link$/ });
    await shown.first().waitFor();
    const link = await shown.first().inputValue();
    expect(link).toMatch(new RegExp(`/room/${id}\\?token=`));
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
    await screenshot(page, 'sessions');
    const candidate = await newPage();
    // As the candidate opens it (no test handle, which joins at once): the brief, before entering.
    await candidate.goto(link.replace('127.0.0.1', 'localhost'));
    await candidate.getByRole('button', { name: 'Enter the room', exact: true }).waitFor({ timeout: 120_000 });
    expect(await candidate.locator('.brief-card').textContent()).toMatch(/You join as Alex Moreno, candidate/);
    expect(await candidate.locator('.brief-card .recording-notice').textContent()).toMatch(/This session records your microphone/);

    // The live view opens the instructor's page of that session.
    const [live] = await Promise.all([page.context().waitForEvent('page'), row.getByRole('button', { name: 'Live view', exact: true }).click()]);
    suite.adopt(live);
    await live.waitForURL(new RegExp(`/room/${id}\\?token=`));

    // Ending asks first, then the row says so.
    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'End', exact: true }).click();
    await expect.poll(() => row.locator('.badge').textContent(), { timeout: 30_000 }).toBe('ended');
    expect(await row.getByRole('button', { name: 'Live view', exact: true }).count()).toBe(0);

    // Deleting an ended one asks first; then it is gone, with its recordings.
    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByText('No sessions yet').waitFor({ timeout: 30_000 });
  }, 300_000);

  it('says so when the admin token is wrong, and lets it be entered again', async () => {
    const page = await newPage();
    await page.goto(`http://localhost:${suite.server.port}/sessions`);
    await page.getByLabel('Admin token').fill('not-the-token');
    // The list answers 401: expected here.
    suite.problems.failed.length = 0;
    await page.getByRole('button', { name: 'Show sessions', exact: true }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toMatch(/Could not list the sessions/);
    expect(await page.getByLabel('Admin token').isVisible()).toBe(true);
    suite.problems.failed.splice(0);
    suite.problems.console.splice(0);
  }, 120_000);
});
