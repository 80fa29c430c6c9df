/**
 * The local models' state as the server reports it (GET /api/health `models`) and the one line
 * that says it, in the server log, the `models` command and the sessions page alike.
 *
 * ```ts
 * modelLine('llm', { state: 'downloading', file: 'qwen.gguf', bytes: 460e6, totalBytes: 1117e6, percent: 41 });
 * // "language model qwen.gguf: downloading, 41% of 1.1 GB"
 * ```
 *
 * A status names a file by its name only: where MODELS_DIR is on the server stays on the server.
 *
 * ```ts
 * buildLine({ state: 'building', step: 'compiled 3 of 8', elapsedMs: 41_000, using: 'typing' });
 * // "speech recogniser: compiling whisper.cpp for this CPU (compiled 3 of 8, 41 s so far)"
 * ```
 */

/** The two models the room can run in-process: the personas' language model and the speech recogniser. */
export const modelKinds = ['llm', 'asr'] as const;
export type ModelKind = (typeof modelKinds)[number];

export type ModelStatus =
  | { state: 'idle' }
  /** Another server process holds this model's download; this one waits for its file. */
  | { state: 'waiting'; file: string }
  | { state: 'downloading'; file: string; bytes: number; totalBytes: number; percent: number }
  | { state: 'verifying'; file: string }
  | { state: 'ready'; file: string; bytes: number }
  | { state: 'failed'; file: string | null; reason: string };

/**
 * whisper.cpp built for this machine's CPU (TRANSCRIBER=local on Linux; once per machine, about a
 * CPU-minute): /api/health's `models.asr.build`. `using` is what transcribes meanwhile or instead:
 * nothing while it builds (a turn waits, then its speaker is asked to type), the package's prebuilt
 * binary after a failure (several times slower), the build once it is ready.
 */
export type RuntimeBuild =
  | { state: 'building'; step: string; elapsedMs: number; using: 'typing' }
  | { state: 'ready'; elapsedMs: number; using: 'built' }
  | { state: 'failed'; reason: string; elapsedMs: number; using: 'prebuilt' };

/** /api/health's `models`: each model asked for; the recogniser with its build when one is made here. */
export interface ModelsHealth {
  llm?: ModelStatus;
  asr?: ModelStatus & { build?: RuntimeBuild };
}

export const modelNames: Record<ModelKind, string> = { llm: 'language model', asr: 'speech recogniser' };

/** 1117320736 -> "1.1 GB"; 59721011 -> "60 MB" (decimal units, as disks and hubs count). */
export const formatBytes = (bytes: number): string => {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(1)} GB`;
  if (bytes >= 1e6) return `${Math.round(bytes / 1e6)} MB`;
  if (bytes >= 1e3) return `${Math.round(bytes / 1e3)} kB`;
  return `${bytes} B`;
};

/** Whether the model is on its way (the page polls faster while it is). */
export const modelBusy = (status: ModelStatus): boolean => status.state === 'downloading' || status.state === 'verifying' || status.state === 'waiting';

export const modelLine = (kind: ModelKind, status: ModelStatus): string => {
  const name = modelNames[kind];
  switch (status.state) {
    case 'idle':
      return `${name}: not asked for yet`;
    case 'waiting':
      return `${name} ${status.file}: another server process is fetching it; waiting for its file`;
    case 'downloading':
      return `${name} ${status.file}: downloading, ${status.percent}% of ${formatBytes(status.totalBytes)}`;
    case 'verifying':
      return `${name} ${status.file}: checking its size and checksum`;
    case 'ready':
      return `${name} ${status.file}: ready (${formatBytes(status.bytes)})`;
    case 'failed':
      return `${name}${status.file ? ` ${status.file}` : ''}: failed: ${status.reason}`;
  }
};

/** 41_000 -> "41 s"; 95_000 -> "1 min 35 s". */
const duration = (ms: number): string => {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min${seconds % 60 ? ` ${seconds % 60} s` : ''}`;
};

export const buildLine = (build: RuntimeBuild): string => {
  const name = modelNames.asr;
  switch (build.state) {
    case 'building':
      return `${name}: compiling whisper.cpp for this CPU (${build.step}, ${duration(build.elapsedMs)} so far)`;
    case 'ready':
      return `${name}: whisper.cpp built for this CPU${build.elapsedMs >= 1000 ? ` in ${duration(build.elapsedMs)}` : ''}`;
    case 'failed':
      return `${name}: whisper.cpp could not be built for this CPU${build.elapsedMs >= 1000 ? ` (after ${duration(build.elapsedMs)})` : ''}: ${build.reason}; the prebuilt one is used, several times slower`;
  }
};
