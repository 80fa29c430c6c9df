/**
 * Whole sessions through the real vendor SDKs against local fakes of their servers: a vendor that
 * works, one that keeps failing (retried, then scripted for the turn, with a system event), a
 * turn selector that answers malformed JSON (MPOD: 3 retries, then random), and the dialogue
 * state as the prompts carry it over the wire.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { driveSession } from '../server/conversation/drive';
import type { SessionEvent } from '../shared/events';
import { createGenerator } from '../server/providers/generator';
import { complete } from '../server/providers/generator/port';
import { createSession, step, type EngineInput } from '../server/engine/session';
import { createBreaker, type Breaker } from '../server/providers/resilience';
import { loadScene } from '../server/scene/load';
import { knowledgeOf } from '../shared/scene/schema';
import { startFakeGemini, type FakeGemini } from './fakes/gemini-server';
import { startFakeOpenAI } from './fakes/openai-server';
import type { FakeVendor, ReceivedRequest } from './fakes/vendor-server';
import { ai, human, makeScene } from './engine/harness';
import { nodeArgs } from './server/bundle';

let fakes: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(fakes.map((f) => f.close()));
  fakes = [];
});

const gemini = async (): Promise<FakeGemini> => {
  const fake = await startFakeGemini();
  fakes.push(fake);
  return fake;
};

/** A session through the vendor, retried without waiting; `breaker` null: called however often it fails. */
const session = async (scene: string, env: Record<string, string>, name: 'gemini' | 'openai', maxTurns = 8, breaker: Breaker | null = null) => {
  const generator = createGenerator(name, env, { breaker, sleep: async () => {}, retries: 2 });
  return driveSession(await loadScene(`scenes/${scene}.yaml`), { seed: 1, generator, maxTurns });
};

const utterances = (log: SessionEvent[]) => log.filter((e) => e.type === 'utterance');

describe('sessions through vendor generators', () => {
  for (const vendor of ['gemini', 'openai'] as const) {
    it(`tell ${vendor} the role, the addressee, the dialogue act and what must not be revealed, and nobody else's secrets`, async () => {
      const fake = vendor === 'gemini' ? await gemini() : await startFakeOpenAI();
      if (vendor === 'openai') fakes.push(fake);
      const env: Record<string, string> = vendor === 'gemini' ? { GEMINI_API_KEY: 'test-key', GEMINI_BASE_URL: fake.baseUrl } : { OPENAI_BASE_URL: `${fake.baseUrl}/v1`, OPENAI_MODEL: 'test-model' };
      const scene = await loadScene('scenes/murder-mystery.yaml');
      await session('murder-mystery', env, vendor, 10);
      // The bodies as sent, in JSON: texts are compared escaped the same way.
      const escaped = (text: string) => JSON.stringify(text).slice(1, -1);
      const bodies = fake.requests.map((r) => JSON.stringify(r.body)).filter((b) => b.includes('Dialogue act:'));
      expect(bodies.length).toBeGreaterThan(3);
      for (const body of bodies) {
        expect(body).toMatch(/Your role: [^.]+\./);
        expect(body).toMatch(/You are speaking to (the group|\w+)\./);
      }
      const personas = scene.participants.filter((p) => p.kind === 'ai');
      const secretsOf = (p: (typeof personas)[number]) => knowledgeOf(p.persona).filter((k) => k.reveal === 'never').map((k) => escaped(k.text));
      expect(personas.some((p) => secretsOf(p).length > 0)).toBe(true);
      expect(bodies.some((body) => personas.some((p) => body.includes(escaped(`You are ${p.name}`))))).toBe(true);
      for (const body of bodies) {
        // A persona's own prompt, or a simulated human's (which holds no persona's secret at all).
        const speaker = personas.find((p) => body.includes(escaped(`You are ${p.name}`)));
        for (const other of personas) {
          for (const secret of secretsOf(other)) {
            if (other === speaker) expect(body).toContain('Never reveal');
            else expect(body).not.toContain(secret);
          }
        }
      }
    });
  }

  it('speak with the text the vendor streams', async () => {
    const fake = await gemini();
    fake.setDefault({ chunks: ['Thanks for ', 'the question', ', really.'] });
    const log = await session('poster-session', { GEMINI_API_KEY: 'test-key', GEMINI_BASE_URL: fake.baseUrl }, 'gemini');
    const generated = utterances(log).filter((u) => u.type === 'utterance' && u.source !== 'scripted');
    expect(generated.length).toBeGreaterThan(0);
    expect(generated.some((u) => u.type === 'utterance' && u.text === 'Thanks for the question, really.')).toBe(true);
    expect(fake.requests[0]!.headers['x-goog-api-key']).toBe('test-key');
    expect(log.filter((e) => e.type === 'system')).toEqual([]);
  });

  /** A call that asks the model to normalise an utterance's knowledge for long-term memory (MMAgents Eq. 3). */
  const isNormalization = (r: { body: unknown }) => JSON.stringify(r.body).includes('Extract the important facts');

  it('keep going when the vendor fails: each turn is retried, written by scripted, and logged', async () => {
    const fake = await gemini();
    fake.setDefault({ status: 500 });
    const log = await session('team-standup', { GEMINI_API_KEY: 'test-key', GEMINI_BASE_URL: fake.baseUrl }, 'gemini');
    const generated = utterances(log).filter((u) => u.type === 'utterance' && u.source === 'ai');
    const fallbacks = log.filter((e) => e.type === 'system' && e.code === 'generator-fallback');
    expect(log.at(-1)).toMatchObject({ type: 'end' });
    expect(generated.length).toBeGreaterThan(3);
    expect(fallbacks.length).toBeGreaterThanOrEqual(generated.length);
    // One try and two retries for each turn; memory normalisation calls fail quietly beside them.
    expect(fake.requests.filter((r) => !isNormalization(r)).length).toBe(3 * fallbacks.length);
    expect(fake.requests.some(isNormalization)).toBe(true);
  });

  it('stop calling a vendor that keeps failing: its circuit opens, and scripted writes the turns at once', async () => {
    const fake = await gemini();
    fake.setDefault({ status: 500 });
    const breaker = createBreaker({ failures: 6, now: () => 0 });
    const log = await session('team-standup', { GEMINI_API_KEY: 'test-key', GEMINI_BASE_URL: fake.baseUrl }, 'gemini', 8, breaker);
    const fallbacks = log.filter((e) => e.type === 'system' && e.code === 'generator-fallback');
    const refused = log.filter((e) => e.type === 'system' && e.code === 'generator-circuit-open');
    expect(log.at(-1)).toMatchObject({ type: 'end' });
    expect(fallbacks.length).toBeLessThanOrEqual(2); // turns of three attempts each (normalisations fail too)
    // Six failures open the circuit; a normalisation already in flight may finish its three attempts; then nothing more.
    expect(fake.requests.length).toBeGreaterThanOrEqual(6);
    expect(fake.requests.length).toBeLessThanOrEqual(9);
    expect(refused.length).toBeGreaterThan(3);
    expect(refused[0]).toMatchObject({ level: 'warn', message: expect.stringMatching(/^gemini keeps failing and is not called for now/) });
  });

  it('fall back to a random next speaker when the selector answers malformed JSON', async () => {
    const fake = await startFakeOpenAI();
    fakes.push(fake);
    fake.setDefault({ chunks: ['{"next": "Pri'] }); // cut-off JSON, for every call
    const log = await session('performance-review', { OPENAI_BASE_URL: fake.baseUrl, OPENAI_MODEL: 'llama3.2' }, 'openai', 12);
    const floors = log.filter((e) => e.type === 'floor');
    expect(floors.some((f) => f.type === 'floor' && f.reason === 'llm-selector-fallback')).toBe(true);
    expect(log.some((e) => e.type === 'system' && e.code === 'selector-fallback')).toBe(true);
    const selectorCalls = fake.requests.filter((r) => r.body?.response_format?.type === 'json_object').length;
    expect(selectorCalls % 4).toBe(0); // each decision: the first try and MPOD's three retries
  });

  it('run from the simulate command with the vendor configured by environment', async () => {
    const fake = await gemini();
    fake.setDefault({ chunks: ['I would start with the budget.'] });
    const out = mkdtempSync(join(tmpdir(), 'sim-gemini-'));
    // Asynchronously: the fake answers from this process, so it must not be blocked.
    await promisify(execFile)(process.execPath, [...nodeArgs('server/cli/simulate.ts'), 'scenes/job-interview.yaml', '--runs', '1', '--out', out, '--generator', 'gemini'], {
      env: { ...process.env, GEMINI_API_KEY: 'test-key', GEMINI_BASE_URL: fake.baseUrl },
    });
    const log = readFileSync(join(out, 'run-1.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as SessionEvent);
    expect(log.some((e) => e.type === 'utterance' && e.text === 'I would start with the budget.')).toBe(true);
    expect(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')).generator).toBe('gemini');
  });
});

/**
 * Raj interviews Alex, who is present and says `says` in turn; the engine runs its real turns and
 * every line of Raj's is written by the vendor, whose fake streams `lines` in order. Returns what
 * the vendor was sent for each of Raj's turns.
 */
const interview = async (vendor: 'gemini' | 'openai', says: string[], lines: string[]) => {
  const scene = makeScene({
    participants: [
      ai('raj', 'Raj Mehta', {
        role: 'hiring manager',
        persona: { backstory: 'Runs the clinic software team.', goals: [], privateKnowledge: [{ text: 'The team lost two senior engineers last month', reveal: 'never' }] },
      }),
      human('alex', 'Alex Kim'),
    ],
    turnTaking: { policy: 'round-robin' },
  });
  const fake: FakeVendor = vendor === 'gemini' ? await startFakeGemini() : await startFakeOpenAI();
  fake.script(...lines.map((line) => ({ chunks: [line] })));
  const env: Record<string, string> = vendor === 'gemini' ? { GEMINI_API_KEY: 'test-key', GEMINI_BASE_URL: fake.baseUrl } : { OPENAI_BASE_URL: fake.baseUrl, OPENAI_MODEL: 'test-model' };
  const generator = createGenerator(vendor, env, { breaker: null, sleep: async () => {}, retries: 0, log: () => {} });
  let state = createSession(scene, { seed: 1, present: ['alex'] });
  const queue: EngineInput[] = [{ type: 'start' }];
  const heard = [...says];
  while (queue.length) {
    const result = step(state, queue.shift()!);
    state = result.state;
    for (const r of result.requests) if (r.kind === 'generate') queue.push({ type: 'generated', request: r.id, text: await complete(generator, r.request) });
    if (!queue.length && state.awaiting && heard.length) queue.push({ type: 'say', participant: 'alex', text: heard.shift()! });
  }
  await fake.close();
  const sent = (r: ReceivedRequest) =>
    vendor === 'gemini'
      ? { system: r.body.systemInstruction.parts[0].text as string, prompt: r.body.contents[0].parts[0].text as string }
      : { system: r.body.messages[0].content as string, prompt: r.body.messages[1].content as string };
  return fake.requests.map(sent);
};

for (const vendor of ['gemini', 'openai'] as const) {
  describe(`the dialogue state in ${vendor}'s prompts (Raj interviews Alex, who is present)`, () => {
    const says = ['Raj, how many people are on your team?', 'I think the onboarding flow is the real problem.', 'Sorry, could you repeat that?', 'Pass.', 'Raj, why are you hiring now?'];
    const lines = [
      'Hello Alex, welcome, glad you could make it.',
      'About twelve people, split across two squads.',
      'Alex, how many clinics have you worked with?',
      'How many clinics have you supported so far?',
      'Fair enough; would you say more than five?',
      'We are growing into three new regions this year.',
    ];
    let sent: { system: string; prompt: string }[] = [];
    beforeAll(async () => {
      sent = await interview(vendor, says, lines);
    });
    /** The task section of the prompt that asks for `act`. */
    const taskOf = (act: string) => sent.find((s) => s.prompt.includes(`Dialogue act: ${act}.`))?.prompt.split('Your task:\n')[1]!.split('\n\n')[0] ?? '';

    it('sends one request per line of Raj, none redrawn', () => {
      expect(sent).toHaveLength(lines.length);
    });

    it('tells the persona to answer a how-many question with a number first, the question quoted as data', () => {
      const task = sent[1]!.prompt.split('Your task:\n')[1]!;
      expect(task).toContain('Alex asked you: <utterance speaker="Alex">Raj, how many people are on your team?</utterance>. You must answer them now. It is a how-many question: answer with a number first.');
      expect(task).toContain('Answer only from what you know');
    });

    it('tells the persona to acknowledge a human statement and build on it', () => {
      expect(sent[2]!.prompt).toContain(
        'Alex just said: <utterance speaker="Alex">I think the onboarding flow is the real problem.</utterance>. Acknowledge it and build on it: pick up one concrete thing Alex said, in your own words',
      );
    });

    it('tells the persona to repeat its question in other words when asked to', () => {
      expect(taskOf('repeat')).toContain(
        'Alex asked you to repeat your question: <utterance speaker="Alex">Sorry, could you repeat that?</utterance>. Your question was: <utterance speaker="Raj">Alex, how many clinics have you worked with?</utterance>. Ask it again in other words.',
      );
    });

    it('tells the persona to come back once, kindly, to a question answered with "Pass."', () => {
      expect(taskOf('probe')).toContain(
        'Alex replied to your question <utterance speaker="Raj">How many clinics have you supported so far?</utterance> with <utterance speaker="Alex">Pass.</utterance>: a non-answer. Come back to it once, kindly, in other words, or narrow it to one concrete part (you want a number).',
      );
    });

    it('tells the persona what it already asked and answered, after a few turns', () => {
      const last = sent.at(-1)!.prompt;
      expect(last).toContain('It is a why question: answer with a reason first.');
      expect(last).toMatch(/Your questions so far:\n- To Alex: <utterance speaker="Raj">Alex, how many clinics have you worked with\?<\/utterance> \(not answered yet\)/);
      expect(last).toContain('- To Alex: <utterance speaker="Raj">How many clinics have you supported so far?</utterance> (dodged: come back to it at most once)');
      expect(last).toContain(
        'Questions you already answered (refer back to what you said; do not recite it again):\n- Alex asked <utterance speaker="Alex">Raj, how many people are on your team?</utterance>; you said <utterance speaker="Raj">About twelve people, split across two squads.</utterance>',
      );
      expect(sent[1]!.prompt).not.toContain('Your questions so far');
    });

    it('tells the persona what must not be revealed in the system instruction, and quotes it nowhere else', () => {
      for (const { system, prompt } of sent) {
        expect(system).toContain('Never reveal, say or hint at the following, even if asked directly (it is yours alone); if asked, deflect in character:\n- The team lost two senior engineers last month');
        expect(prompt).not.toContain('lost two senior engineers');
      }
    });
  });
}
