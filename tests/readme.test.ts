import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { driveSession } from '../server/conversation/drive';
import { createScriptedGenerator } from '../server/providers/generator/scripted';
import { formatProblem, parseScene } from '../server/scene/load';

describe('README', () => {
  const readme = readFileSync('README.md', 'utf8');
  const example = /```yaml\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';

  it('shows a complete scene example that is valid and runs', async () => {
    const { scene, problems } = parseScene(example, 'README.md#example.yaml');
    expect(problems.map(formatProblem)).toEqual([]);
    const log = await driveSession(scene!, { seed: 1, generator: createScriptedGenerator() });
    expect(log.at(-1)).toMatchObject({ type: 'end' });
    expect(log.filter((e) => e.type === 'utterance').length).toBeGreaterThanOrEqual(14);
  });

  it('has the two quick-start commands', () => {
    const quick = readme.split('## Quick start')[1]!.split('```')[1]!;
    expect(quick.trim().split('\n').slice(1)).toEqual(['npm install && npm start', 'npm test']);
  });
});
