/**
 * Fetches the local models once, before a start that needs them, and says what is on disk.
 *
 *   npm run models -- fetch [asr|llm|all] [--no-build]   download (or resume) and verify; a progress bar on a terminal
 *   npm run models -- list [--verify]                    the model files in MODELS_DIR, their sizes, whether verified
 *
 * Reads MODELS_DIR (default DATA_DIR/models), LOCAL_LLM_MODEL, LOCAL_ASR_MODEL, LOCAL_ASR_RUNTIME and
 * MODEL_HUB_URL from the environment, as the server does. Fetching does not check this machine's
 * memory (the files may be meant for another one); loading does. Fetching the speech recogniser also
 * builds whisper.cpp for this CPU where the server would (Linux), with the server's code and lock, so
 * the first session does not wait about a CPU-minute for it; `--no-build` leaves that to the server.
 */
import { modelsDirFrom } from '../models/registry';
import { createModelStore, ModelError } from '../models/store';
import { runtimeDirFor } from '../providers/transcription/local';
import { buildWhisperAddon } from '../providers/transcription/whisper-build';
import { formatBytes, modelKinds, modelLine, modelNames, type ModelKind, type ModelStatus } from '../../shared/models';

const usage = `Usage: npm run models -- <command>

  fetch [asr|llm|all] [--no-build]
                        download the speech recogniser, the language model, or both (default all),
                        resuming an interrupted download, and verify them; with the recogniser, also
                        build whisper.cpp for this CPU (Linux, about a CPU-minute, once per machine;
                        the server would otherwise build it at its start); --no-build skips that
  list [--verify]       the model files in MODELS_DIR, their sizes and whether they were verified;
                        --verify re-reads each one against its checksums

Environment: MODELS_DIR (default DATA_DIR/models), LOCAL_LLM_MODEL, LOCAL_ASR_MODEL, MODEL_HUB_URL,
LOCAL_ASR_RUNTIME (where the build is kept, default MODELS_DIR/.runtime; prebuilt: no build).
`;

const tty = process.stdout.isTTY === true;

/** `[##########----------]  41%  460 MB of 1.1 GB`, redrawn in place. */
const bar = (kind: ModelKind, status: Extract<ModelStatus, { state: 'downloading' }>): string => {
  const width = 24;
  const filled = Math.round((status.percent / 100) * width);
  return `${modelNames[kind]} ${status.file} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(status.percent).padStart(3)}%  ${formatBytes(status.bytes)} of ${formatBytes(status.totalBytes)}`;
};

/** whisper.cpp built for this CPU beside the recogniser at `modelPath`, where the server looks for it. */
const buildRuntime = async (modelPath: string): Promise<number> => {
  const dir = runtimeDirFor(modelPath, process.env.LOCAL_ASR_RUNTIME);
  if (dir === false) {
    process.stdout.write('whisper build: none (LOCAL_ASR_RUNTIME=prebuilt): the server uses the prebuilt whisper.cpp\n');
    return 0;
  }
  if (process.platform !== 'linux') {
    process.stdout.write(`whisper build: none on ${process.platform}: the server uses the prebuilt whisper.cpp\n`);
    return 0;
  }
  let said = false;
  const say = (line: string) => {
    said = true;
    process.stdout.write(`${line}\n`);
  };
  try {
    // The log's lines start and end it; the steps between are the progress (waiting is said once, by the log).
    const path = await buildWhisperAddon({ dir, log: say, onStep: (step) => step.startsWith('waiting') || say(`whisper build: ${step}`) });
    if (!said) say(`whisper build: already built for this CPU: ${path}`);
    return 0;
  } catch (error) {
    process.stderr.write(`whisper build: failed: ${(error as Error).message}; the server would use the prebuilt whisper.cpp, several times slower\n`);
    return 1;
  }
};

const fetchModels = async (which: string, build: boolean): Promise<number> => {
  if (!['asr', 'llm', 'all'].includes(which)) {
    process.stderr.write(`fetch expects asr, llm or all, got "${which}"\n\n${usage}`);
    return 2;
  }
  const kinds: ModelKind[] = which === 'all' ? [...modelKinds] : [which as ModelKind];
  // On a terminal the bar says it all; elsewhere (CI, a log file) the store's lines every 10%.
  const store = createModelStore({ dir: modelsDirFrom(process.env), env: process.env, log: tty ? () => {} : (line) => process.stdout.write(`${line}\n`) });
  let drawn = false;
  store.onStatus((kind, status) => {
    if (!tty) return;
    if (status.state === 'downloading') {
      process.stdout.write(`\r\x1b[2K${bar(kind, status)}`);
      drawn = true;
    } else if (status.state !== 'ready' && status.state !== 'failed') {
      process.stdout.write(`${drawn ? '\n' : ''}${modelLine(kind, status)}\n`);
      drawn = false;
    }
  });
  let failed = 0;
  for (const kind of kinds) {
    try {
      const path = await store.ensure(kind, { checkMemory: false });
      process.stdout.write(`${drawn ? '\n' : ''}${modelLine(kind, store.status(kind))}: ${path}\n`);
      drawn = false;
      if (kind === 'asr' && build) failed += await buildRuntime(path);
    } catch (error) {
      if (!(error instanceof ModelError)) throw error;
      process.stderr.write(`${drawn ? '\n' : ''}${modelLine(kind, store.status(kind))}\n`);
      failed++;
    }
    drawn = false;
  }
  return failed > 0 ? 1 : 0;
};

const listModels = async (verify: boolean): Promise<number> => {
  const dir = modelsDirFrom(process.env);
  const store = createModelStore({ dir, env: process.env });
  const files = await store.list({ verify });
  process.stdout.write(`MODELS_DIR ${dir}\n`);
  for (const kind of modelKinds) {
    try {
      const source = store.source(kind);
      const present = files.some((f) => f.kind === kind) || source.path !== undefined;
      process.stdout.write(`  ${modelNames[kind]}: ${source.path ?? source.file}${source.bytes ? ` (${formatBytes(source.bytes)})` : ''}${present ? '' : ' — not fetched yet: npm run models -- fetch ' + kind}\n`);
    } catch (error) {
      process.stdout.write(`  ${modelNames[kind]}: ${(error as Error).message}\n`);
    }
  }
  if (files.length === 0) process.stdout.write('No model files yet.\n');
  for (const f of files) process.stdout.write(`${f.file.padEnd(44)} ${formatBytes(f.bytes).padStart(8)}  ${f.verified}${f.kind ? `  (the ${modelNames[f.kind]})` : ''}\n`);
  return verify && files.some((f) => f.verified !== 'verified') ? 1 : 0;
};

const main = async (argv: string[]): Promise<number> => {
  const [command, ...rest] = argv;
  if (command === 'fetch') {
    const which = rest.filter((arg) => arg !== '--no-build');
    if (which.length <= 1) return fetchModels(which[0] ?? 'all', which.length === rest.length);
  }
  if (command === 'list' && (rest.length === 0 || (rest.length === 1 && rest[0] === '--verify'))) return listModels(rest[0] === '--verify');
  if (command === undefined || command === '-h' || command === '--help') {
    process.stdout.write(usage);
    return command === undefined ? 2 : 0;
  }
  process.stderr.write(`Unknown command: ${argv.join(' ')}\n\n${usage}`);
  return 2;
};

process.exitCode = await main(process.argv.slice(2));
