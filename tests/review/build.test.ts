/**
 * Reports built off the main thread (server/review/build.ts) are `reportOf`'s own, and building a
 * long session's leaves the event loop free: a timer keeps firing meanwhile. The report cache
 * holds builds in flight, shares them, and forgets those that fail.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { twoHourLog } from '../../bench/report.bench';
import { driveSession } from '../../server/conversation/drive';
import type { SessionEvent } from '../../shared/events';
import { createScriptedGenerator } from '../../server/providers/generator/scripted';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildReport, buildReportApart, buildStoredReport, INLINE_EVENTS } from '../../server/review/build';
import { openStore } from '../../server/store/store';
import { createReportCache } from '../../server/review/cache';
import { readLog, reportOf } from '../../server/review/report';
import { type Report } from '../../shared/review/report';
import { loadScenes } from '../../server/scene/load';
import type { LoadedScene } from '../../shared/scene/schema';

const scenes = await loadScenes(fileURLToPath(new URL('../../scenes/', import.meta.url)));
const sceneOf = (id: string): LoadedScene => scenes.find((s) => s.id === id)!;

/** The same report, down to the order of its keys (the JSON a route sends). */
const expectSameReport = (built: Report, expected: Report) => {
  expect(built).toStrictEqual(expected);
  expect(JSON.stringify(built)).toBe(JSON.stringify(expected));
};

describe('a report built off the main thread', () => {
  it("is reportOf's for simulated runs of several scenes", async () => {
    for (const id of ['team-standup', 'murder-mystery', 'job-interview']) {
      const scene = sceneOf(id);
      // Two runs one after another: a log long enough to travel in parts.
      const runs = await Promise.all([1, 2].map((seed) => driveSession(scene, { seed, generator: createScriptedGenerator() })));
      const events = runs.flat();
      const expected = reportOf(events, scene);
      expectSameReport(await buildReportApart(events, scene), expected);
      expectSameReport(await buildReport(events, scene), expected);
      expectSameReport(await buildReportApart(runs[0]!, undefined), reportOf(runs[0]!));
    }
  }, 60_000);

  it("is reportOf's for a long log, whose events, timeline and breakdowns travel in several parts", async () => {
    const scene = sceneOf('team-standup');
    const events = JSON.parse(JSON.stringify(twoHourLog(scene, 3, 1500))) as SessionEvent[];
    const expected = reportOf(events, scene);
    expect(events.length).toBeGreaterThan(3000);
    expect(expected.breakdowns.list.length).toBeGreaterThan(0);
    expectSameReport(await buildReport(events, scene), expected);
  });

  it("is reportOf's for a log short enough to be built at once", async () => {
    const events = (await driveSession(sceneOf('team-standup'), { seed: 1, generator: createScriptedGenerator() })).slice(0, INLINE_EVENTS);
    expectSameReport(await buildReport(events, sceneOf('team-standup')), reportOf(events, sceneOf('team-standup')));
  });

  it('leaves the event loop free while a 10,000-utterance report is built', async () => {
    const scene = sceneOf('team-standup');
    const events = JSON.parse(JSON.stringify(twoHourLog(scene, 1, 10_000))) as SessionEvent[];
    // A build that held the loop would let the timer fire only once it was done: no tick meanwhile.
    let ticks = 0;
    const probe = setInterval(() => ticks++, 1);
    const report = await buildReport(events, scene);
    const ticksWhileBuilding = ticks;
    clearInterval(probe);
    expect(report.turns).toBe(10_000);
    expect(report.timeline.filter((item) => item.kind === 'utterance')).toHaveLength(10_000);
    expect(ticksWhileBuilding).toBeGreaterThan(0);
  }, 60_000);

  it("reads a stored 10,000-utterance log a page at a time and builds reportOf's report off the loop, up to the seq asked", async () => {
    const scene = sceneOf('team-standup');
    const dir = mkdtempSync(join(tmpdir(), 'rehearsal-build-'));
    const store = openStore(dir);
    try {
      const events = twoHourLog(scene, 1, 10_000);
      store.createSession({ id: 's1', scene: scene.id, seed: 1, pace: 'instant', createdAt: 0 });
      for (let i = 0; i < events.length; i += 5000) store.appendEvents('s1', events.slice(i, i + 5000));
      const upTo = store.lastSeq('s1');
      let ticks = 0;
      const probe = setInterval(() => ticks++, 1);
      const report = await buildStoredReport(store, 's1', upTo, scene);
      const ticksWhileBuilding = ticks;
      clearInterval(probe);
      expectSameReport(report, reportOf(readLog(store.events('s1')), scene));
      expect(report.turns).toBe(10_000);
      expect(ticksWhileBuilding).toBeGreaterThan(0);
      // Up to a seq: the report of the log as it was then, events after it left out.
      const earlier = await buildStoredReport(store, 's1', 2500, scene);
      expectSameReport(earlier, reportOf(readLog(store.events('s1')).slice(0, 2500), scene));
      // A short log at once.
      expectSameReport(await buildStoredReport(store, 's1', INLINE_EVENTS, scene), reportOf(readLog(store.events('s1')).slice(0, INLINE_EVENTS), scene));
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('fails a build the log cannot give, and builds the next', async () => {
    const scene = sceneOf('team-standup');
    const events = JSON.parse(JSON.stringify(twoHourLog(scene, 2, 300))) as SessionEvent[];
    const broken = events.map((e, i) => (i === 5 && e.type === 'utterance' ? ({ ...e, text: 42 } as unknown as SessionEvent) : e));
    expect(broken[5]!.type).toBe('utterance');
    await expect(buildReportApart(broken, scene)).rejects.toThrow(/building a report failed/);
    // A scene that cannot be copied to the thread (not plain data).
    await expect(buildReportApart(events, { ...scene, title: () => 'x' } as unknown as LoadedScene)).rejects.toThrow();
    expectSameReport(await buildReportApart(events, scene), reportOf(events, scene));
  });
});

describe('the report cache, with builds in flight', () => {
  it('gives everyone asking meanwhile the one build, and forgets a failed one', async () => {
    const cache = createReportCache<Promise<Report>>();
    let builds = 0;
    const failing = () => {
      builds++;
      return Promise.reject(new Error('vendor down'));
    };
    const first = cache.get('s1', 4, failing);
    const second = cache.get('s1', 4, failing);
    expect(second).toBe(first);
    expect(builds).toBe(1);
    await expect(first).rejects.toThrow('vendor down');
    const again = cache.get('s1', 4, () => {
      builds++;
      return Promise.resolve(reportOf([]));
    });
    expect(builds).toBe(2);
    expect((await again).turns).toBe(0);
    expect(cache.get('s1', 4, failing)).toBe(again);
  });

  it('keeps a newer build when an older one of the session fails', async () => {
    const cache = createReportCache<Promise<Report>>();
    let fail!: (error: Error) => void;
    const older = cache.get('s1', 4, () => new Promise<Report>((_, reject) => (fail = reject)));
    const newer = cache.get('s1', 5, () => Promise.resolve(reportOf([])));
    fail(new Error('gone'));
    await expect(older).rejects.toThrow('gone');
    expect(cache.get('s1', 5, () => Promise.reject(new Error('built again')))).toBe(newer);
  });
});
