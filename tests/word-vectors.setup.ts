/**
 * Every test file compares texts as the server does: by meaning, with the installation's word
 * vectors (the engine is given them, it does not read them; providers/word-vectors.ts).
 *
 *   // vitest.config.ts
 *   test: { setupFiles: ['tests/word-vectors.setup.ts'] }
 */
import { provideWordVectors } from '../server/engine/embeddings';
import { installedWordVectors } from '../server/providers/word-vectors';

provideWordVectors(installedWordVectors);
