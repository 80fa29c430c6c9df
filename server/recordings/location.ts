/**
 * Where the recordings are kept, from the environment (read by config.ts with the rest):
 *
 * - `RECORDINGS_URL` unset: `<DATA_DIR>/recordings`, one server's own.
 * - a directory path or `file:///srv/recordings`: a directory, which every node may mount.
 * - `s3://bucket/prefix`: an S3-compatible bucket; `S3_ENDPOINT` for a server other than AWS
 *   (MinIO, Ceph…), `AWS_REGION` (default us-east-1), `AWS_ACCESS_KEY_ID` and
 *   `AWS_SECRET_ACCESS_KEY` (both or neither: neither leaves the keys to the SDK's own chain).
 *
 * ```ts
 * recordingsLocationFrom({ RECORDINGS_URL: 's3://rehearsal/recordings' }, './data');
 * // { location: { kind: 's3', bucket: 'rehearsal', prefix: 'recordings/', endpoint: null, region: 'us-east-1', credentials: null }, problems: [] }
 * ```
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RecordingsLocation } from './files';

export const recordingsVariables = ['RECORDINGS_URL', 'S3_ENDPOINT', 'AWS_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'] as const;

/** S3's rule for bucket names (the path-style subset every S3-compatible server takes). */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

export const recordingsLocationFrom = (
  env: Partial<Record<(typeof recordingsVariables)[number], string>>,
  dataDir: string,
): { location: RecordingsLocation; problems: { variable: string; message: string }[] } => {
  const problems: { variable: string; message: string }[] = [];
  const url = env.RECORDINGS_URL;
  const fallback: RecordingsLocation = { kind: 'directory', root: join(dataDir, 'recordings') };
  if (!url) return { location: fallback, problems };
  if (!url.includes('://')) return { location: { kind: 'directory', root: url }, problems };
  const parsed = URL.canParse(url) ? new URL(url) : null;
  if (parsed?.protocol === 'file:' && !parsed.search && !parsed.hash) return { location: { kind: 'directory', root: fileURLToPath(parsed) }, problems };
  if (parsed?.protocol !== 's3:' || parsed.search || parsed.hash || parsed.username || parsed.port) {
    problems.push({ variable: 'RECORDINGS_URL', message: 'must be s3://bucket/prefix, file:///path or a directory path, such as s3://rehearsal/recordings' });
    return { location: fallback, problems };
  }
  const bucket = parsed.hostname;
  if (!BUCKET.test(bucket)) problems.push({ variable: 'RECORDINGS_URL', message: `names the bucket "${bucket}": a bucket name is 3 to 63 lowercase letters, digits, dots and hyphens` });
  const path = decodeURIComponent(parsed.pathname).replace(/^\/+|\/+$/g, '');
  const endpoint = env.S3_ENDPOINT;
  if (endpoint !== undefined && !(URL.canParse(endpoint) && ['http:', 'https:'].includes(new URL(endpoint).protocol))) {
    problems.push({ variable: 'S3_ENDPOINT', message: 'must be an http:// or https:// URL such as http://minio.internal:9000' });
  }
  const keys = (['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'] as const).filter((name) => env[name] !== undefined);
  if (keys.length === 1) {
    const missing = keys[0] === 'AWS_ACCESS_KEY_ID' ? 'AWS_SECRET_ACCESS_KEY' : 'AWS_ACCESS_KEY_ID';
    problems.push({ variable: missing, message: `is needed with ${keys[0]}: set both for the recordings bucket, or neither to use the AWS SDK's own credentials` });
  }
  return {
    location: {
      kind: 's3',
      bucket,
      prefix: path ? `${path}/` : '',
      endpoint: endpoint ?? null,
      region: env.AWS_REGION ?? 'us-east-1',
      credentials: env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY ? { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY } : null,
    },
    problems,
  };
};
