/**
 * GENERATOR=local across rooms, end to end: one model for the process (a tiny one with the real
 * architecture, tests/fixtures/models/gguf.ts), its turns queued across rooms, and a room whose
 * turn the queue makes late. Two rooms talk at once on the real HTTP app and sockets; the first
 * room's first line holds the model (written to 800 tokens) when the second room's first line asks
 * for it, so that turn is late: the participant's socket gets the `generator-busy` notice, the
 * scripted generator writes the line and it is spoken, the server's log says why, and both rooms
 * go on.
 *
 * The wiring is createGenerator's for GENERATOR=local (the local model behind the resilient wrapper,
 * the scripted generator as its fallback, never retried), with the model's wait for its turn set to
 * 0 ms (GENERATOR_TIMEOUT_MS/2 in the server) so that a turn behind another one is late at once.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { GenerateRequest } from '../../server/engine/requests';
import { createLocalGenerator } from '../../server/providers/generator/local';
import { complete, type Generator } from '../../server/providers/generator/port';
import { createScriptedGenerator } from '../../server/providers/generator/scripted';
import { resilientGenerator } from '../../server/providers/resilience';
import type { SessionEvent } from '../../shared/events';
import { tinyModel } from '../fixtures/models/gguf';
import { until } from '../until';
import { Client, createSession, logOf, serverPerFile } from './helpers';

/** A promise and its resolve, for the test to order the two rooms' first lines. */
const signal = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

const serverLog: string[] = [];
const local = createLocalGenerator({ model: () => tinyModel(), maxWaitMs: 0, log: (line) => serverLog.push(line) });
const shared = resilientGenerator(local, createScriptedGenerator(), { retries: 0, breaker: null, log: (line) => serverLog.push(line) });

/** Both rooms may start (the participant is in the second); the first room's first line has the model. */
const go = signal();
const holding = signal();
/** The second room's first line: what it was asked, and what it was given. */
const late: { request: GenerateRequest | null; text: string } = { request: null, text: '' };

/** The first room: its first line waits for the test, then runs to 800 tokens, keeping the model busy. */
let firstLineToCome = true;
const first: Generator = {
  name: 'local',
  async *stream(request, abort, onNotice) {
    if (request.purpose !== 'utterance' || !firstLineToCome) return yield* shared.stream(request, abort, onNotice);
    firstLineToCome = false;
    await go.promise;
    for await (const delta of shared.stream({ ...request, maxTokens: 800 }, abort, onNotice)) {
      holding.resolve();
      yield delta;
    }
  },
};

/** The second room: its first line asks for the model once the first room's is being written. */
const second: Generator = {
  name: 'local',
  async *stream(request, abort, onNotice) {
    if (request.purpose !== 'utterance' || late.request) return yield* shared.stream(request, abort, onNotice);
    late.request = request;
    await holding.promise;
    for await (const delta of shared.stream(request, abort, onNotice)) {
      late.text += delta;
      yield delta;
    }
  },
};

const rooms = [first, second];
const server = serverPerFile({ generator: () => rooms.shift() ?? shared });
afterAll(() => local.close());

describe('GENERATOR=local, two rooms at once', () => {
  it("tells the room whose turn the queue made late, speaks the scripted line, logs why, and both rooms go on", async () => {
    await local.load();
    const [a, b] = [await createSession(server, 'team-standup'), await createSession(server, 'team-standup')];
    const jordan = await Client.connect(server, b.id, b.tokens.jordan!);
    go.resolve();

    const busy = await jordan.waitForEvent((e) => e.type === 'system' && e.code === 'generator-busy', 'the generator-busy notice', 0, 60_000);
    expect(busy).toMatchObject({ type: 'system', code: 'generator-busy', message: 'The local model is busy with another turn; this turn would be late.' });
    expect(serverLog).toContainEqual(expect.stringMatching(/^vendor local \(generator\) failed: the local model was busy with another turn for 0 ms/));

    // The line that was late is the scripted generator's, and it is spoken in the room.
    const request = late.request!;
    const scripted = await complete(createScriptedGenerator(), request);
    expect(late.text).toBe(scripted);
    const speaker = request.cue.speaker.id;
    const spoken = await jordan.waitForEvent((e) => e.type === 'utterance' && e.speaker === speaker && e.text === scripted.trim(), `${speaker}'s scripted line`, 0, 60_000);
    const at = jordan.events().indexOf(spoken);
    expect(jordan.events().slice(0, at).some((e) => e.type === 'system' && e.code === 'generator-fallback')).toBe(true);

    // Both rooms go on: two more lines here, and the first room's long line and two more there.
    const utterances = (events: readonly SessionEvent[]) => events.filter((e) => e.type === 'utterance').length;
    await until(() => utterances(jordan.events().slice(at + 1)) >= 2, 'two lines after the late one', 60_000);
    await until(async () => utterances(await logOf(server, a.id)) >= 3, 'three lines in the first room', 60_000);
  }, 180_000);
});
