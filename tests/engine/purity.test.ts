import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The engine is a functional core (STYLE.md): no clocks, I/O or Math.random, so rules are testable
// in microseconds, runs are reproducible, and the browser can import it.
describe('the engine stays pure', () => {
  // One exception: embeddings.ts reads (and once builds) the word-vector cache, a constant of the
  // installation, on first use; every comparison stays a pure function of its texts.
  const files = readdirSync('server/engine').filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== 'embeddings.ts');

  it.each(files)('%s uses no clock, randomness, timers or Node I/O', (file) => {
    const code = readFileSync(`server/engine/${file}`, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    expect(code).not.toMatch(/Math\.random\s*\(|Date\.now\s*\(|new Date\s*\(|performance\.now|setTimeout|setInterval|process\./);
    expect(code).not.toMatch(/from ['"]node:|require\(/);
  });
});
