/**
 * The server's log (stdout, one line each, like its start-up lines): a session created, started,
 * ended and why, deleted; and the server stopping on a signal. No token reaches a line.
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { api, createSession, startChild, tempDir, until, type ChildServer } from './helpers';

let server: ChildServer | undefined;
const dataDir = tempDir();
afterAll(async () => {
  await server?.kill9();
  rmSync(dataDir, { recursive: true, force: true });
});

const logged = (pattern: RegExp) => server!.stdout.some((line) => pattern.test(line));

describe("the server's log", () => {
  it('says when a session is created, started, ended (and why) and deleted, and when the server stops', async () => {
    server = await startChild(dataDir, { env: { SYNTHESIZER: 'none' } });
    const session = await createSession(server, 'job-interview', 'realtime', 'lobby');
    await until(() => logged(new RegExp(`^session ${session.id}: created \\(job-interview, realtime\\)$`)), 'the created line');

    expect((await api(server, `/api/sessions/${session.id}`, { method: 'DELETE' })).status).toBe(200);
    await until(() => logged(new RegExp(`^session ${session.id}: ended after \\d+ turn\\(s\\) \\(ended by the admin\\)$`)), 'the ended line', 10_000, () => server!.stdout.join('\n'));

    expect((await api(server, `/api/sessions/${session.id}?purge=true`, { method: 'DELETE' })).status).toBe(200);
    await until(() => logged(new RegExp(`^session ${session.id}: deleted by the admin, with its log and recordings$`)), 'the deleted line');

    const simulated = await createSession(server, 'team-standup', 'instant');
    await until(() => logged(new RegExp(`^session ${simulated.id}: started \\(stand-ins for [\\w-]+`)), 'the started line');
    await until(() => logged(new RegExp(`^session ${simulated.id}: ended after \\d+ turn\\(s\\) \\((every snippet done|turn limit reached)\\)$`)), 'the run to end', 60_000);

    await server.close();
    expect(server.stdout.some((line) => /^stopping on SIGTERM/.test(line))).toBe(true);
    const lines = [...server.stdout, ...server.stderr].filter((line) => line.startsWith('session ') || line.startsWith('stopping'));
    for (const token of Object.values(session.tokens)) expect(lines.join('\n')).not.toContain(token);
    expect(lines.join('\n')).not.toContain(server.admin);
  }, 120_000);
});
