/**
 * A second server process asking for the same model (tests/models/store.test.ts): it ensures the
 * language model in MODELS_DIR=argv[2] and prints each status as a JSON line, then the path.
 *
 *   node --import tsx tests/models/ensure-child.ts <dir>   (LOCAL_LLM_MODEL and MODEL_HUB_URL from the environment)
 */
import { createModelStore } from '../../server/models/store';

const store = createModelStore({ dir: process.argv[2]!, env: process.env, lockPollMs: 50 });
store.onStatus((kind, status) => process.stdout.write(`${JSON.stringify({ kind, ...status })}\n`));
store
  .ensure('llm', { checkMemory: false })
  .then((path) => process.stdout.write(`${JSON.stringify({ path })}\n`))
  .catch((error: Error) => {
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 1;
  });
