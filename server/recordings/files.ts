/**
 * The shapes the recordings share: a recording's sidecar, where recordings are kept
 * (RECORDINGS_URL), and the port every place that holds them implements (directory.ts, bucket.ts);
 * store.ts puts the rules of writing, reading and removing on top of it.
 *
 * ```ts
 * const files: RecordingFiles = directoryFiles('/srv/recordings'); // or bucketFiles(location)
 * await files.put('s1', 'u1', { sampleRate: 24_000, durationMs: 100, cues: [], words: [] }, wav);
 * ```
 */
import type { VisemeCue } from '../../shared/visemes';
import type { WordTiming } from '../providers/synthesis/port';

export interface Sidecar {
  sampleRate: number;
  durationMs: number;
  cues: VisemeCue[];
  words: WordTiming[];
}

export interface BucketLocation {
  bucket: string;
  /** '' or ending in '/'. */
  prefix: string;
  /** S3_ENDPOINT, for a server other than AWS; null: AWS's own. */
  endpoint: string | null;
  region: string;
  /** AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; null: the SDK's default chain. */
  credentials: { accessKeyId: string; secretAccessKey: string } | null;
}

/** What holds the files: a directory or a bucket. Ids are checked before they reach it. */
export interface RecordingFiles {
  /** For log lines: the directory, or s3://bucket/prefix. */
  readonly where: string;
  put(session: string, utterance: string, sidecar: Sidecar, wav: Buffer): Promise<void>;
  list(session: string): Promise<Map<string, { sidecar: Sidecar; audio: boolean }>>;
  wav(session: string, utterance: string): Promise<Buffer | null>;
  remove(session: string): Promise<void>;
}

/** RECORDINGS_URL, read by config.ts. */
export type RecordingsLocation = { kind: 'directory'; root: string } | ({ kind: 's3' } & BucketLocation);
