/**
 * Checks scene files and reports every problem, one `file:line:col path: message` line each.
 *
 *   npm run -s scene:check -- scenes/team-standup.yaml scenes/job-interview.yaml
 *
 * Prints `<file>: ok (<n> participants, <m> snippets)` for a valid file. Exits 1 when any file
 * is invalid or cannot be read.
 */
import { pathToFileURL } from 'node:url';
import { formatProblem, loadScene, SceneError } from '../scene/load';

export const main = async (files: readonly string[], out = console.log, err = console.error): Promise<number> => {
  if (files.length === 0) {
    err('usage: npm run -s scene:check -- <scene.yaml> [more files]');
    return 1;
  }
  let failed = false;
  for (const file of files) {
    try {
      const scene = await loadScene(file);
      out(`${file}: ok (${scene.participants.length} participants, ${scene.snippets.length} snippets)`);
    } catch (error) {
      failed = true;
      if (error instanceof SceneError) error.problems.forEach((p) => out(formatProblem(p)));
      else err(`${file}: cannot read: ${readError(error)}`);
    }
  }
  return failed ? 1 : 0;
};

const readError = (error: unknown): string => {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'is a directory, not a scene file';
  return error instanceof Error ? error.message : String(error);
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = await main(process.argv.slice(2));
