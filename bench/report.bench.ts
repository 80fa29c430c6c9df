/**
 * A session's report (issue 17): how long building it takes for a 2-hour session, from the stored
 * log to the report (readLog + reportOf, as GET /api/sessions/:id/report does on a cache miss).
 * The target: under 500 ms.
 *
 * The log is synthetic and seeded: the team stand-up's five participants (one human) talk for two
 * hours, 1,400 utterances of 6-30 words drawn from the scene's own vocabulary, a fifth of them
 * questions put to someone, with a floor event before each, about one backchannel per two
 * utterances, an interruption every twenty, an impromptu phase every hundred turns and a few
 * system notices: about 4,000 events, like a long live session's.
 *
 * - `report.build_2h_ms`: the median of 5 builds after a first one (a server that has made reports
 *   before), each of another seed's log, so none reuses the words another memoised.
 * - `report.build_2h_cold_ms`: that first build, in a fresh process (the first report a server makes).
 * - `report.events_2h`: the log's size.
 *
 * And a denser log, 10,000 utterances (26,000 events; issue 26 measured 4.2 s of blocked server on
 * one), built through build.ts as the routes build it: off the main thread. The target: no
 * stall of the event loop over 50 ms.
 * - `report.build_10k_inline_ms`: `reportOf` on it, in the calling thread (what a request used to block for).
 * - `report.build_10k_ms`: `buildReport` on it, the builder thread already started (a server that has made reports before).
 * - `report.stall_10k_ms`: the longest the event loop went without running a 1 ms timer during that build.
 * - `report.main_thread_10k_ms`: how long the event loop was busy meanwhile (its utilisation's
 *   active time: copying the parts, and the timer itself).
 * - `report.stall_idle_ms`: the same over as long an idle loop: what the machine's own load
 *   (other processes, the OS) adds to any stall, so the figure above is read against it.
 */
import { performance as loop } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { SessionEvent } from '../shared/events';
import { rngFrom } from '../shared/rng';
import { buildReport } from '../server/review/build';
import { readLog, reportOf } from '../server/review/report';
import { loadScene } from '../server/scene/load';
import type { LoadedScene } from '../shared/scene/schema';
import { percentile, round, type BenchResult } from './timing';

const sceneFile = fileURLToPath(new URL('../scenes/team-standup.yaml', import.meta.url));
const TWO_HOURS_MS = 2 * 60 * 60 * 1000;
const UTTERANCES = 1400;
const DENSE = 10_000;

/** Every word the scene's text uses: what its people would talk about. */
const vocabularyOf = (scene: LoadedScene): string[] => {
  const words = JSON.stringify(scene).match(/[A-Za-z][a-z']{2,}/g) ?? [];
  return [...new Set(words.map((w) => w.toLowerCase()))];
};

/** An event before the log numbers it. */
type Unnumbered = SessionEvent extends infer E ? (E extends SessionEvent ? Omit<E, 'seq'> : never) : never;

/** Two hours of `utterances` lines (1,400 by default, a long live session's; more, a denser one). */
export const twoHourLog = (scene: LoadedScene, seed = 1, utterances = UTTERANCES): SessionEvent[] => {
  const rng = rngFrom(seed);
  const words = vocabularyOf(scene);
  const people = scene.participants.map((p) => p.id);
  const events: SessionEvent[] = [];
  let seq = 0;
  const add = (event: Unnumbered) => events.push({ ...event, seq: ++seq } as SessionEvent);
  add({
    t: 0,
    type: 'session-start',
    scene: scene.id,
    title: scene.title,
    seed,
    policy: 'round-robin',
    participants: scene.participants.map((p) => ({ id: p.id, name: p.name, kind: p.kind, present: p.kind === 'human', speakingRate: 150 })),
  });
  add({ t: 0, type: 'snippet-start', snippet: scene.snippets[0]!.id, title: scene.snippets[0]!.title ?? 'main', turns: utterances, initiator: people[0]! });
  // Two hours over the utterances: their speaking time plus the gaps between them.
  const step = TWO_HOURS_MS / utterances;
  let speaker = people[0]!;
  for (let i = 0; i < utterances; i++) {
    const t = Math.round(i * step);
    const count = rng.int(6, 30);
    const sentence = Array.from({ length: count }, () => rng.pick(words));
    if (rng.chance(0.1)) sentence.splice(rng.int(0, count - 1), 0, rng.pick(['um,', 'uh,', 'like,', 'you know,']));
    const question = rng.chance(0.2);
    const addressee = question ? rng.pick(people.filter((p) => p !== speaker)) : null;
    const text = `${sentence.join(' ')}${question ? '?' : '.'}`.replace(/^./, (c) => c.toUpperCase());
    const durationMs = Math.round(Math.min(step - 300, (count / 150) * 60_000));
    const id = `u${i + 1}`;
    add({ t, type: 'floor', speaker, reason: addressee ? 'designated' : 'round-robin' });
    const interrupted = i % 20 === 19;
    const human = scene.participants.find((p) => p.id === speaker)?.kind === 'human';
    add({
      t,
      type: 'utterance',
      id,
      speaker,
      text,
      addressee,
      pair: question ? 'question' : 'none',
      act: question ? 'question' : 'statement',
      snippet: scene.snippets[0]!.id,
      source: human ? 'human' : 'ai',
      durationMs,
      ...(interrupted ? { interrupted: true } : {}),
      ...(human ? { spoken: { start: t, end: t + durationMs } } : {}),
    });
    if (rng.chance(0.5)) {
      const listener = rng.pick(people.filter((p) => p !== speaker));
      add({ t: t + Math.round(durationMs / 2), type: 'backchannel', participant: listener, to: speaker, utterance: id, kind: rng.chance(0.5) ? 'verbal' : 'nod', cue: 'mm-hm' });
    }
    const next = addressee ?? rng.pick(people.filter((p) => p !== speaker));
    if (interrupted) add({ t: t + durationMs, type: 'interruption', by: next, of: speaker, utterance: id, vibe: 'eager', atWord: Math.floor(count / 2) });
    if (i % 100 === 50) add({ t: t + durationMs, type: 'impromptu-start', participant: people[0]!, intent: 'question', turns: 3 });
    if (i % 100 === 53) add({ t: t + durationMs, type: 'impromptu-end', participant: people[0]! });
    if (i % 150 === 75) add({ t: t + durationMs, type: 'system', level: 'warn', code: 'generator-fallback', message: 'The generator did not answer; the scripted one spoke instead.' });
    speaker = next;
  }
  add({ t: TWO_HOURS_MS, type: 'end', reason: 'snippets-done', turns: utterances });
  return events;
};

export default async function reportBench(): Promise<BenchResult[]> {
  const scene = await loadScene(sceneFile);
  // The scene file's handle closes on a later turn of the event loop, which the builds below would hold up.
  await new Promise((resolve) => setImmediate(resolve));
  // As the store gives them: parsed JSON. A log per build, so no build reuses another's memoised words.
  const logs = Array.from({ length: 6 }, (_, i) => JSON.parse(JSON.stringify(twoHourLog(scene, i + 1))) as unknown[]);
  const build = (stored: unknown[]) => {
    const start = performance.now();
    const report = reportOf(readLog(stored), scene);
    const ms = performance.now() - start;
    if (report.turns !== UTTERANCES) throw new Error(`report: expected ${UTTERANCES} turns, got ${report.turns}`);
    return ms;
  };
  const [cold, ...warm] = logs.map(build);

  const dense = readLog(JSON.parse(JSON.stringify(twoHourLog(scene, 7, DENSE))) as unknown[]);
  const inlineStart = performance.now();
  reportOf(dense, scene);
  const inlineMs = performance.now() - inlineStart;
  // The builder thread starts on its first long log: that build is not the one measured.
  await buildReport(dense.slice(0, 2000), scene);
  const apart = await whileProbing(() => buildReport(dense, scene));
  if (apart.value.turns !== DENSE) throw new Error(`report: expected ${DENSE} turns, got ${apart.value.turns}`);
  const idle = await whileProbing(() => new Promise((resolve) => setTimeout(resolve, apart.ms)));
  return [
    { name: 'report.build_2h_ms', value: round(percentile(warm, 50), 1), unit: 'ms' },
    { name: 'report.build_2h_cold_ms', value: round(cold!, 1), unit: 'ms' },
    { name: 'report.events_2h', value: logs[0]!.length, unit: 'events' },
    { name: 'report.build_10k_inline_ms', value: round(inlineMs, 1), unit: 'ms' },
    { name: 'report.build_10k_ms', value: round(apart.ms, 1), unit: 'ms' },
    { name: 'report.stall_10k_ms', value: round(apart.stallMs, 1), unit: 'ms' },
    { name: 'report.main_thread_10k_ms', value: round(apart.activeMs, 1), unit: 'ms' },
    { name: 'report.stall_idle_ms', value: round(idle.stallMs, 1), unit: 'ms' },
  ];
}

/** How long `work` took, the longest gap between runs of a 1 ms timer meanwhile, and the loop's busy time. */
const whileProbing = async <T>(work: () => Promise<T>): Promise<{ value: T; ms: number; stallMs: number; activeMs: number }> => {
  const utilisation = loop.eventLoopUtilization();
  const start = performance.now();
  let last = start;
  let stallMs = 0;
  const probe = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 1);
  const value = await work();
  clearInterval(probe);
  const end = performance.now();
  return { value, ms: end - start, stallMs: Math.max(stallMs, end - last), activeMs: loop.eventLoopUtilization(utilisation).active };
};
