/**
 * Fetches the local models once, before a start that needs them, and says what is on disk.
 *
 *   npm run models -- fetch [asr|llm|all]   download (or resume) and verify; a progress bar on a terminal
 *   npm run models -- list [--verify]       the model files in MODELS_DIR, their sizes, whether verified
 *
 * Reads MODELS_DIR (default DATA_DIR/models), LOCAL_LLM_MODEL, LOCAL_ASR_MODEL and MODEL_HUB_URL from
 * the environment, as the server does. Fetching does not check this machine's memory (the files may
 * be meant for another one); loading does.
 */
import { modelsDirFrom } from '../models/registry';
import { createModelStore, ModelError } from '../models/store';
import { formatBytes, modelKinds, modelLine, modelNames, type ModelKind, type ModelStatus } from '../../shared/models';

const usage = `Usage: npm run models -- <command>

  fetch [asr|llm|all]   download the speech recogniser, the language model, or both (default all),
                        resuming an interrupted download, and verify them
  list [--verify]       the model files in MODELS_DIR, their sizes and whether they were verified;
                        --verify re-reads each one against its checksums

Environment: MODELS_DIR (default DATA_DIR/models), LOCAL_LLM_MODEL, LOCAL_ASR_MODEL, MODEL_HUB_URL.
`;

const tty = process.stdout.isTTY === true;

/** `[##########----------]  41%  460 MB of 1.1 GB`, redrawn in place. */
const bar = (kind: ModelKind, status: Extract<ModelStatus, { state: 'downloading' }>): string => {
  const width = 24;
  const filled = Math.round((status.percent / 100) * width);
  return `${modelNames[kind]} ${status.file} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(status.percent).padStart(3)}%  ${formatBytes(status.bytes)} of ${formatBytes(status.totalBytes)}`;
};

const fetchModels = async (which: string): Promise<number> => {
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
  if (command === 'fetch' && rest.length <= 1) return fetchModels(rest[0] ?? 'all');
  if (command === 'list' && (rest.length === 0 || (rest.length === 1 && rest[0] === '--verify'))) return listModels(rest[0] === '--verify');
  if (command === undefined || command === '-h' || command === '--help') {
    process.stdout.write(usage);
    return command === undefined ? 2 : 0;
  }
  process.stderr.write(`Unknown command: ${argv.join(' ')}\n\n${usage}`);
  return 2;
};

process.exitCode = await main(process.argv.slice(2));
