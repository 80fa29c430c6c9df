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
