import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The engine is a functional core (STYLE.md): no clocks, I/O or Math.random, so rules are testable
// in microseconds, runs are reproducible, and the browser can import it.
describe('the engine stays pure', () => {
  // Every file, in the engine's folders too (designation/); the word vectors it compares with are
  // read by the shell and given to it (providers/word-vectors.ts).
  const files = readdirSync('server/engine', { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));

  it('reads every file of the engine, embeddings.ts and the designation stages included', () => {
    expect(files).toEqual(expect.arrayContaining(['embeddings.ts', 'similarity.ts', 'designation/index.ts', 'designation/addressee.ts']));
  });

  it.each(files)('%s uses no clock, randomness, timers or Node I/O', (file) => {
    const code = readFileSync(`server/engine/${file}`, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    expect(code).not.toMatch(/Math\.random\s*\(|Date\.now\s*\(|new Date\s*\(|performance\.now|setTimeout|setInterval|process\./);
    expect(code).not.toMatch(/from ['"]node:|require\(/);
  });
});
