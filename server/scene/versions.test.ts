import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../store/store';
import { etagOf, openSceneLibrary } from './library';
import { loadScenes, parseScene } from './load';
import { sessionScenes, versionOf } from './versions';

const scenesDir = new URL('../../scenes', import.meta.url).pathname;
const stores: Store[] = [];
const storeAt = () => {
  const store = openStore(mkdtempSync(join(tmpdir(), 'versions-')));
  stores.push(store);
  return store;
};
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});

describe('the version a session stores', () => {
  it("is the scene file's own text, comments and all, at the library's ETag", async () => {
    const library = await openSceneLibrary({ dir: scenesDir, dataDir: mkdtempSync(join(tmpdir(), 'versions-')), warn: () => {} });
    const [entry] = (await library.entries()).filter((e) => e.id === 'team-standup');
    const version = versionOf(library.scenes.get('team-standup')!);
    expect(version.text).toBe(readFileSync(join(scenesDir, 'team-standup.yaml'), 'utf8'));
    expect(version.etag).toBe(entry!.etag);
  });

  it('is the scene rendered when it was made in memory, and reads back as that very scene', async () => {
    for (const shipped of await loadScenes(scenesDir)) {
      const changed = { ...shipped, title: `${shipped.title}, changed in memory` };
      const version = versionOf(changed);
      expect(version.etag).toBe(etagOf(version.text));
      expect(parseScene(version.text, `${shipped.id}.yaml`).scene, shipped.id).toEqual(changed);
    }
  });
});

describe("a session's scene", () => {
  it('is parsed from its stored version once, whatever the scene is now', async () => {
    const [standup] = (await loadScenes(scenesDir)).filter((s) => s.id === 'team-standup');
    const store = storeAt();
    const ran = versionOf(standup!);
    store.createSession({ id: 's1', scene: 'team-standup', seed: 1, pace: 'instant', createdAt: 0, sceneVersion: ran });
    let reads = 0;
    const counted = { ...store, sceneText: (scene: string, etag: string) => (reads++, store.sceneText(scene, etag)) };
    const now = { ...standup!, title: 'Edited since' };
    const scenes = sessionScenes({ store: counted, current: () => now });
    const row = store.session('s1')!;
    expect(scenes.of(row)).toMatchObject({ id: 'team-standup', title: standup!.title });
    expect(scenes.of(row)).toBe(scenes.of(row));
    expect(reads).toBe(1);
    // A session from before versions were kept: the scene as it is now.
    expect(scenes.of({ scene: 'team-standup', sceneEtag: null })).toBe(now);
  });

  it('is the scene as it is now when its stored version no longer validates, said once', () => {
    const store = storeAt();
    store.createSession({ id: 's1', scene: 'odd', seed: 1, pace: 'instant', createdAt: 0, sceneVersion: { etag: '"x"', text: 'title: [unclosed\n' } });
    const warnings: string[] = [];
    const now = { id: 'odd' } as never;
    const scenes = sessionScenes({ store, current: () => now, warn: (line) => warnings.push(line) });
    expect(scenes.of(store.session('s1')!)).toBe(now);
    expect(scenes.of(store.session('s1')!)).toBe(now);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^scene "odd" at version "x", as a session stored it, no longer validates \(1 problem\(s\), the first: odd\.yaml:2:1 \(yaml\): .*\); that session is read with the scene as it is now$/);
  });
});
