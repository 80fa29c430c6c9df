/**
 * Runs the designation detector over JSON lines: one utterance in, one decision out.
 *
 *   npm run -s designation < utterances.jsonl
 *
 * Each input line is {"participants": [...], "speaker": "...", "previousSpeaker"?: "...", "text": "..."};
 * other fields (such as labelled "next" and "pair") are ignored, so a labelled set can be piped in
 * as it is. Each output line is {"next": <name or null>, "pair": "..."}, in input order. A line that
 * cannot be read is reported on stderr with its line number and still gets an output line,
 * {"next":null,"pair":"none","error":"..."}, so output and input stay aligned; the exit code is
 * then 1. Empty lines are skipped.
 */
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { detectDesignation, type Designation } from '../engine/designation';

const usage = `Usage: npm run -s designation < utterances.jsonl

Reads one JSON object per line:
  {"participants": ["Nora", "Omar"], "speaker": "Nora", "previousSpeaker": "Omar", "text": "..."}
and writes one line per utterance, in order:
  {"next": "Omar", "pair": "question"}
pair is question | request | offer | greeting | invitation | none; next is a participant or null.
A bad line gets {"next":null,"pair":"none","error":"..."} and makes the exit code 1.
`;

const Utterance = z.object({
  participants: z.array(z.string()),
  speaker: z.string(),
  previousSpeaker: z.string().nullish(),
  text: z.string(),
});

type Decision = Designation | { next: null; pair: 'none'; error: string };

const decide = (line: string): Decision => {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch (error) {
    return { next: null, pair: 'none', error: `not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  const parsed = Utterance.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'line'}: ${issue.message}`);
    return { next: null, pair: 'none', error: problems.join('; ') };
  }
  return detectDesignation(parsed.data);
};

/** Streams decisions for `lines` to `out`; returns the exit code. */
export const main = async (
  lines: AsyncIterable<string>,
  out: (line: string) => void | Promise<void>,
  err: (line: string) => void,
): Promise<number> => {
  let lineNumber = 0;
  let failed = false;
  for await (const line of lines) {
    lineNumber++;
    if (!line.trim()) continue;
    const decision = decide(line);
    if ('error' in decision) {
      failed = true;
      err(`designation: line ${lineNumber}: ${decision.error}`);
    }
    await out(JSON.stringify(decision));
  }
  return failed ? 1 : 0;
};

/** Writes a line to stdout, waiting when the pipe is full so a large input does not pile up in memory. */
const writeLine = async (line: string): Promise<void> => {
  if (!process.stdout.write(`${line}\n`)) await once(process.stdout, 'drain');
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(usage);
  } else {
    // A reader that stops early (`| head`) closes the pipe: that ends the run, it is not a failure.
    process.stdout.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      process.exit(process.exitCode ?? 0);
    });
    const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
    process.exitCode = await main(lines, writeLine, (line) => console.error(line));
  }
}
