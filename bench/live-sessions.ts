/**
 * What the benchmarks of many live sessions share (load.bench.ts, capacity.bench.ts): a process's
 * memory and CPU from /proc, and a synthesizer that notes how late each clause's audio is.
 *
 * ```ts
 * const lags: number[] = [];
 * const synthesizer = timedSynthesizer(espeak, lags, () => measuring);
 * rssOf(process.pid); // MB
 * cpuMsOf(espeak.workerPids[0]); // user + system ms since the process started
 * ```
 */
import { readFileSync } from 'node:fs';
import type { SpeechChunk, SynthesisRequest, Synthesizer } from '../server/providers/synthesis/port';

/** Resident memory of a process, from /proc (Linux), in MB; 0 where it cannot be read. */
export const rssOf = (pid: number | undefined): number => {
  if (pid === undefined) return 0;
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : 0;
  } catch {
    return 0;
  }
};

/** CPU time a process has used (user + system), from /proc (Linux), in ms; 0 where it cannot be read. */
export const cpuMsOf = (pid: number | undefined): number => {
  if (pid === undefined) return 0;
  try {
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th, in clock ticks (100 a second on Linux).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
};

/** The synthesizer, with each clause's lateness noted while `recording` says so. */
export const timedSynthesizer = (inner: Synthesizer, lags: number[], recording: () => boolean): Synthesizer => ({
  name: inner.name,
  async *synthesize(request: SynthesisRequest, signal?: AbortSignal, onNotice?) {
    const neededAt = request.neededAt ?? performance.now();
    let first = true;
    for await (const chunk of inner.synthesize(request, signal, onNotice) as AsyncIterable<SpeechChunk>) {
      if (first && recording()) lags.push(Math.max(0, performance.now() - neededAt));
      first = false;
      yield chunk;
    }
  },
});
