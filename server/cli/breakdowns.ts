/**
 * Labels a session log's utterances offline: which lead to a dialogue breakdown, and of which
 * type (MMAgents Table 1), by the rules (metrics/breakdowns.ts) or by a language model with the
 * paper's prompt (metrics/judge.ts, Figure 6; it falls back to the rules where the model fails).
 *
 *   npm run -s breakdowns -- out/team-standup/run-1.jsonl
 *   npm run -s breakdowns -- run.jsonl --scene scenes/team-standup.yaml --judge gemini
 *
 * Prints one JSON line per utterance, in the log's order. A log with no utterances prints nothing
 * and exits 0; an unreadable file, a line that is not a JSON event or a scene that does not load
 * is one line on stderr naming the file (and line), and exit 1.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SessionEvent, type UtteranceEvent } from '../../shared/events';
import { breakdownKinds } from '../../shared/review/report';
import { createModelJudge, rulesJudge, type BreakdownJudge } from '../metrics/judge';
import { createGenerator } from '../providers/generator/index';
import { loadScene, SceneError, type LoadedScene } from '../scene/load';
import { provideWordVectors } from '../engine/embeddings';
import { installedWordVectors } from '../providers/word-vectors';

// Similarity compares by meaning with the installation's word vectors (read on the first comparison).
provideWordVectors(installedWordVectors);

const usage = `Usage: npm run -s breakdowns -- <run.jsonl> [--scene <id or file>] [--judge rules|gemini|openai]

Labels every utterance of a session's event log and prints one JSON line per utterance:
  {"utterance":"u12","breakdown":true,"type":"ignore-question","types":["ignore-question","repetition"]}
type is the first of its types in MMAgents Table 1's order (null when none); types lists them all.

Options:
  --scene <id or file>  the scene the log was recorded in (default: the log's session-start scene,
                        scenes/<id>.yaml); the rules use it to tell a change of topic
  --judge <name>        rules (default) | gemini | openai: a model with MMAgents' Figure 6 prompt,
                        falling back to the rules where it fails. gemini needs GEMINI_API_KEY;
                        openai needs OPENAI_BASE_URL and OPENAI_MODEL.
  -h, --help            show this help

A log with no utterances prints nothing and exits 0.
`;

const judgeNames = ['rules', 'gemini', 'openai'] as const;
type JudgeName = (typeof judgeNames)[number];

/** A mistake the user can fix: printed as one line, exit 1. */
class InputError extends Error {}

/** The log's events; a line that is not a JSON event names its number. */
const readLog = async (file: string): Promise<SessionEvent[]> => {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    throw new InputError(code === 'ENOENT' ? `${file}: no such file` : `${file}: cannot read: ${message}`);
  }
  return text.split('\n').flatMap((line, i) => {
    if (line.trim() === '') return [];
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw new InputError(`${file}:${i + 1}: not JSON: ${line.slice(0, 60)}`);
    }
    const event = SessionEvent.safeParse(json);
    if (!event.success) {
      const issue = event.error.issues[0]!;
      throw new InputError(`${file}:${i + 1}: not a session event: ${issue.path.join('.') || 'event'}: ${issue.message}`);
    }
    return [event.data];
  });
};

/** The scene named on the command line, else the one the log's session-start names. */
const sceneFor = async (events: readonly SessionEvent[], given: string | undefined, file: string): Promise<LoadedScene | undefined> => {
  const id = given ?? events.find((e) => e.type === 'session-start')?.scene;
  if (id === undefined) return undefined;
  // A bare id names a shipped scene: murder-mystery is scenes/murder-mystery.yaml.
  const path = /[\\/]|\.ya?ml$/.test(id) ? id : join('scenes', `${id}.yaml`);
  try {
    return await loadScene(path);
  } catch (error) {
    if (error instanceof SceneError) throw new InputError(error.message);
    const { code, message } = error as NodeJS.ErrnoException;
    const source = given === undefined ? ` (the scene ${file}'s session-start names)` : '';
    throw new InputError(code === 'ENOENT' ? `scene file not found: ${path}${source}` : `cannot read scene file ${path}: ${message}`);
  }
};

const judgeFor = (name: JudgeName): BreakdownJudge => {
  if (name === 'rules') return rulesJudge;
  try {
    return createModelJudge(createGenerator(name, process.env));
  } catch (error) {
    throw new InputError(`the ${name} judge: ${(error as Error).message}`);
  }
};

const main = async (argv: string[]): Promise<number> => {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { scene: { type: 'string' }, judge: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    process.stderr.write(`breakdowns: ${(error as Error).message}\nRun with --help for usage.\n`);
    return 1;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(usage);
    return 0;
  }
  const [file, ...extra] = positionals;
  const judgeName = values.judge ?? 'rules';
  const problem =
    file === undefined
      ? 'missing the event log, e.g. out/team-standup/run-1.jsonl'
      : extra.length > 0
        ? `unexpected arguments: ${extra.join(' ')}`
        : !(judgeNames as readonly string[]).includes(judgeName)
          ? `--judge expects one of ${judgeNames.join(', ')}, got "${judgeName}"`
          : null;
  if (problem !== null) {
    process.stderr.write(`breakdowns: ${problem}\nRun with --help for usage.\n`);
    return 1;
  }

  try {
    const events = await readLog(file!);
    const utterances = events.filter((e): e is UtteranceEvent => e.type === 'utterance');
    if (utterances.length === 0) return 0;
    const scene = await sceneFor(events, values.scene, file!);
    const { breakdowns, notes } = await judgeFor(judgeName as JudgeName).judge(utterances, scene);
    for (const note of notes) process.stderr.write(`breakdowns: ${note}\n`);
    for (const u of utterances) {
      const types = breakdownKinds.filter((kind) => breakdowns.some((b) => b.utterance === u.id && b.kind === kind));
      process.stdout.write(`${JSON.stringify({ utterance: u.id, breakdown: types.length > 0, type: types[0] ?? null, types })}\n`);
    }
    return 0;
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    process.stderr.write(`breakdowns: ${error.message}\n`);
    return 1;
  }
};

process.exitCode = await main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`breakdowns: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return 1;
});
