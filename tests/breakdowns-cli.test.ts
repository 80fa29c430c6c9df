import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type Exit } from './cli';
import { utteranceDraft } from './fakes/utterances';

/** Runs the CLI as a user would. */
const breakdowns = (args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Exit> => runCli('server/cli/breakdowns.ts', args, env);

const start = { type: 'session-start', scene: 'team-standup', title: 'Stand-up', seed: 1, pace: 'instant', policy: 'party', participants: [] };
const say = (id: string, speaker: string, text: string, extra: Record<string, unknown> = {}) =>
  utteranceDraft(id, speaker, text, { snippet: 'standup', durationMs: 1000, ...extra });
const jsonl = (events: object[]): string => events.map((e, i) => `${JSON.stringify({ ...e, seq: i + 1, t: i * 1000 })}\n`).join('');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'breakdowns-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

// Each test starts the CLI (tsx) a few times: on a loaded 2-core machine that alone can take 20 s.
describe('npm run breakdowns', { timeout: 60_000 }, () => {
  it("prints one line per utterance in order, with the first type in Table 1's order, reading the scene from the log", async () => {
    const log = join(dir, 'run.jsonl');
    await writeFile(
      log,
      jsonl([
        start,
        say('u1', 'gwen', 'Jordan, when will the migration be rolled back?', { addressee: 'jordan', pair: 'question', act: 'question' }),
        say('u2', 'jordan', 'Could you repeat the question?', { addressee: 'gwen', act: 'answer', source: 'human' }),
        say('u3', 'gwen', 'Staging has been down since last night, and nothing else moves.'),
        say('u4', 'marco', 'I own the tokenisation integration.'),
      ]),
    );
    const { code, stdout, stderr } = await breakdowns([log]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as { utterance: string; breakdown: boolean; type: string | null });
    expect(lines.map((l) => l.utterance)).toEqual(['u1', 'u2', 'u3', 'u4']);
    expect(lines[1]).toMatchObject({ breakdown: false, type: null });
    expect(lines[2]).toMatchObject({ utterance: 'u3', breakdown: true, type: 'ignore-request' });
  });

  it('says which file is missing, and exits 1', async () => {
    const { code, stdout, stderr } = await breakdowns([join(dir, 'nowhere.jsonl')]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(`breakdowns: ${join(dir, 'nowhere.jsonl')}: no such file\n`);
  });

  it('names the file and line of a line that is not JSON, or not an event', async () => {
    const log = join(dir, 'bad.jsonl');
    await writeFile(log, `${jsonl([start])}{"type":"utterance",\n`);
    const bad = await breakdowns([log]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(new RegExp(`^breakdowns: ${log.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: not JSON`));
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    await writeFile(log, `${jsonl([start])}{"type":"utterance"}\n`);
    const notEvent = await breakdowns([log]);
    expect(notEvent.code).toBe(1);
    expect(notEvent.stderr).toMatch(/:2: not a session event/);
  });

  it('prints nothing for a log without utterances, and exits 0', async () => {
    const log = join(dir, 'quiet.jsonl');
    await writeFile(log, jsonl([start]));
    expect(await breakdowns([log])).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('says so when the scene does not load, or the judge is unknown or has no key', async () => {
    const log = join(dir, 'scene.jsonl');
    await writeFile(log, jsonl([{ ...start, scene: 'no-such-scene' }, say('u1', 'gwen', 'Morning.')]));
    const missing = await breakdowns([log]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/scene file not found: scenes\/no-such-scene\.yaml/);
    expect((await breakdowns([log, '--scene', 'team-standup'])).code).toBe(0);
    const unknown = await breakdowns([log, '--judge', 'oracle']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/--judge expects one of rules, gemini, openai/);
    const env = { ...process.env, GEMINI_API_KEY: '' };
    const keyless = await breakdowns([log, '--scene', 'team-standup', '--judge', 'gemini'], env);
    expect(keyless.code).toBe(1);
    expect(keyless.stderr).toMatch(/^breakdowns: the gemini judge: GEMINI_API_KEY/);
  });
});
