/**
 * A stand-in for the server, for espeak.test.ts: starts an eSpeak pool, keeps every worker busy
 * synthesizing a long text, prints the workers' pids as one JSON line, and waits to be killed.
 *
 *   node --import tsx tests/providers/espeak-parent.ts 2   ->   {"pids":[1234,1235]}
 */
import { createEspeakSynthesizer } from '../../server/providers/synthesis/espeak';

const workers = Number(process.argv[2] ?? 2);
const espeak = createEspeakSynthesizer({ workers });
const say = async (text: string) => {
  for await (const chunk of espeak.synthesize({ text, voice: {} })) void chunk;
};
// Every worker loaded first, so the kill finds them synthesizing, not loading.
await Promise.all(Array.from({ length: workers }, () => say('Ready.')));
// Seconds of synthesis each: a worker is still inside eSpeak when its server is killed.
const text = 'The quarterly numbers are in, and they are better than we feared. '.repeat(80);
for (let i = 0; i < workers; i++) void say(text);
setTimeout(() => process.stdout.write(`${JSON.stringify({ pids: espeak.workerPids })}\n`), 200);
setInterval(() => undefined, 60_000);
