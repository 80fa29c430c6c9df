import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { driveSession } from '../conversation/drive';
import { createScriptedGenerator } from '../providers/generator/scripted';
import { loadScene, loadScenes, parseScene } from '../scene/load';
import { debriefOf } from './debrief';
import { expectedShares } from './expectation';
import { reportOf } from './report';

const scenes = new URL('../../scenes/', import.meta.url).pathname;

describe("the share of the talk a scene expects of each seat", () => {
  it('adds up to the whole talk in every shipped scene, and gives every human seat a share', async () => {
    for (const scene of await loadScenes(scenes)) {
      const shares = expectedShares(scene);
      const total = [...shares.values()].reduce((sum, e) => sum + e.share, 0);
      expect(total, scene.id).toBeCloseTo(1, 6);
      for (const human of scene.participants.filter((p) => p.kind === 'human')) expect(shares.get(human.id)!.share, `${scene.id}: ${human.id}`).toBeGreaterThan(0.1);
    }
  });

  it('expects half the talk of the one who answers: the interview candidate, the Q&A presenter', async () => {
    const interview = expectedShares(await loadScene(`${scenes}job-interview.yaml`));
    expect(interview.get('alex')!.share).toBeCloseTo(0.5, 2);
    expect(interview.get('alex')!.basis).toMatch(/answering the questions put to Alex/);
    // The panel asks; Sofia's party speaks through its representatives, so nothing is expected of her.
    expect(interview.get('hannah')!.share).toBeCloseTo(0.25, 2);
    expect(interview.get('sofia')!.share).toBe(0);
    const qa = expectedShares(await loadScene(`${scenes}conference-qa.yaml`));
    expect(qa.get('nadia')!.share).toBeCloseTo(0.5, 2);
    expect(qa.get('felix')!.share).toBe(0);
  });

  it('splits the talk evenly where everyone asks and answers', async () => {
    const retro = expectedShares(await loadScene(`${scenes}sprint-retro.yaml`));
    for (const id of ['riley', 'casey', 'morgan', 'dev', 'ana']) {
      expect(retro.get(id)!.share).toBeCloseTo(0.2, 9);
      expect(retro.get(id)!.basis).toBe('an even split among the 5 participants (1 / 5)');
    }
  });

  it("takes a seat's expectedShare from the scene file, and names the line of one out of range", () => {
    const text = readFileSync(`${scenes}job-interview.yaml`, 'utf8');
    const declared = text.replace(/(\n {2}- id: alex\n)/, '$1    expectedShare: 0.6\n');
    const { scene, problems } = parseScene(declared, 'job-interview.yaml');
    expect(problems).toEqual([]);
    expect(expectedShares(scene!).get('alex')).toEqual({ share: 0.6, basis: 'what the scene expects of Alex' });

    const bad = text.replace(/(\n {2}- id: alex\n)/, '$1    expectedShare: 1.5\n');
    const line = bad.split('\n').findIndex((l) => l.includes('expectedShare')) + 1;
    const found = parseScene(bad, 'job-interview.yaml').problems;
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ file: 'job-interview.yaml', line, path: expect.stringMatching(/expectedShare$/) });
  });

  it("reaches the debrief through the report: the candidate's share is held against half the talk, not a quarter", async () => {
    const scene = await loadScene(`${scenes}job-interview.yaml`);
    const events = await driveSession(scene, { seed: 3, generator: createScriptedGenerator() });
    const report = reportOf(events, scene);
    const alex = report.participants.find((p) => p.id === 'alex')!;
    expect(alex.expectedShare).toBeCloseTo(0.5, 2);
    const debrief = debriefOf(report, 'alex')!;
    expect(debrief.expectedShare).toBeCloseTo(0.5, 2);
    expect(debrief.expectedBasis).toMatch(/answering the questions put to Alex/);
    // Without its scene, a report falls back to an even split.
    const bare = debriefOf(reportOf(events), 'alex')!;
    expect(bare.expectedShare).toBeCloseTo(1 / report.participants.length, 6);
  });
});
