/**
 * Recordings in an S3-compatible bucket (AWS S3, MinIO, Ceph, R2…), shared by every node:
 * `<prefix><session>/<utterance>.json` (the sidecar) and `<utterance>.wav`, the same layout as the
 * directory backend. Chosen with `RECORDINGS_URL=s3://bucket/prefix`; `S3_ENDPOINT` points it at
 * a server other than AWS (path-style addressing then), `AWS_REGION`, `AWS_ACCESS_KEY_ID` and
 * `AWS_SECRET_ACCESS_KEY` as the AWS tools read them (without the keys, the SDK's own chain:
 * instance roles, `~/.aws`).
 *
 * ```ts
 * const files = bucketFiles({ bucket: 'rehearsal', prefix: 'recordings/', endpoint: 'http://minio:9000', region: 'us-east-1', credentials: null });
 * await files.put('s1', 'u1', sidecar, wav);
 * (await files.list('s1')).get('u1'); // { sidecar, audio: true }
 * ```
 *
 * Each call is retried by the SDK (3 attempts, backoff with jitter) within time limits; a call
 * that still fails throws `RecordingsUnavailable`, naming the bucket and the cause (never a key).
 * A sidecar is read once per version: listing a session whose recordings did not change costs
 * one ListObjectsV2. The SDK is loaded on the first call (half a second of start-up otherwise).
 */
import type { S3Client } from '@aws-sdk/client-s3';
import type { BucketLocation, RecordingFiles, Sidecar } from './files';

/** A bucket call that failed after its retries; the message names the bucket and what went wrong. */
export class RecordingsUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecordingsUnavailable';
  }
}

/** Sidecars read in parallel when a session is listed. */
const READS_AT_ONCE = 8;

export const bucketFiles = (location: BucketLocation, options: { maxAttempts?: number } = {}): RecordingFiles => {
  const { bucket, prefix } = location;
  const where = `s3://${bucket}/${prefix}`;
  /** The SDK and its client, loaded once, on the first call. */
  let loading: Promise<{ sdk: typeof import('@aws-sdk/client-s3'); client: S3Client }> | null = null;
  const connect = () =>
    (loading ??= import('@aws-sdk/client-s3').then((sdk) => ({
      sdk,
      client: new sdk.S3Client({
        region: location.region,
        ...(location.endpoint ? { endpoint: location.endpoint, forcePathStyle: true } : {}),
        ...(location.credentials ? { credentials: location.credentials } : {}),
        maxAttempts: options.maxAttempts ?? 3,
        // A dead endpoint fails in seconds, not the OS's minutes; a WAV of two minutes is ~4 MB.
        requestHandler: { connectionTimeout: 3000, requestTimeout: 30_000 },
        // Checksums only where S3 requires them: S3-compatible servers differ in the newer ones.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      }),
    })));
  const keyOf = (session: string, name: string) => `${prefix}${session}/${name}`;
  /** Sidecars by key, with the ETag they were read at. */
  const sidecars = new Map<string, { etag: string; sidecar: Sidecar }>();

  /** The SDK's S3 error: a status and a code from the bucket's answer. */
  const isServiceError = (error: unknown): error is import('@aws-sdk/client-s3').S3ServiceException =>
    error instanceof Error && '$metadata' in error && '$fault' in error;

  const call = async <T>(what: string, work: (s3: Awaited<ReturnType<typeof connect>>) => Promise<T>): Promise<T> => {
    try {
      return await work(await connect());
    } catch (error) {
      if (isServiceError(error)) {
        throw new RecordingsUnavailable(`recordings bucket ${where}: ${what} failed: ${error.$metadata.httpStatusCode ?? ''} ${error.name}${error.message && error.message !== error.name ? ` (${error.message})` : ''}`.replace(/  +/g, ' '));
      }
      const cause = error as NodeJS.ErrnoException;
      throw new RecordingsUnavailable(`recordings bucket ${where}: ${what} failed: ${cause.code ?? cause.name ?? 'error'}${cause.message ? ` (${cause.message})` : ''}`);
    }
  };

  const keysOf = async (session: string): Promise<{ key: string; etag: string }[]> => {
    const keys: { key: string; etag: string }[] = [];
    let token: string | undefined;
    do {
      const page = await call(`listing session ${session}`, ({ sdk, client }) =>
        client.send(new sdk.ListObjectsV2Command({ Bucket: bucket, Prefix: keyOf(session, ''), ...(token ? { ContinuationToken: token } : {}) })),
      );
      for (const object of page.Contents ?? []) if (object.Key) keys.push({ key: object.Key, etag: object.ETag ?? '' });
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys;
  };

  const read = async (key: string, what: string): Promise<Buffer | null> => {
    return call(what, async ({ sdk, client }) => {
      try {
        const object = await client.send(new sdk.GetObjectCommand({ Bucket: bucket, Key: key }));
        return object.Body ? Buffer.from(await object.Body.transformToByteArray()) : Buffer.alloc(0);
      } catch (error) {
        if (isServiceError(error) && (error.name === 'NoSuchKey' || error.$metadata.httpStatusCode === 404)) return null;
        throw error;
      }
    });
  };

  return {
    where,

    async put(session, utterance, sidecar, wav) {
      // The sidecar first, as on disk: a sidecar without its WAV is a recording that should be there.
      await call(`writing ${session}/${utterance}.json`, ({ sdk, client }) =>
        client.send(new sdk.PutObjectCommand({ Bucket: bucket, Key: keyOf(session, `${utterance}.json`), Body: JSON.stringify(sidecar), ContentType: 'application/json' })),
      );
      await call(`writing ${session}/${utterance}.wav`, ({ sdk, client }) =>
        client.send(new sdk.PutObjectCommand({ Bucket: bucket, Key: keyOf(session, `${utterance}.wav`), Body: wav, ContentType: 'audio/wav' })),
      );
    },

    async list(session) {
      const found = new Map<string, { sidecar: Sidecar; audio: boolean }>();
      const objects = await keysOf(session);
      const names = new Set(objects.map(({ key }) => key.slice(keyOf(session, '').length)));
      const jsons = objects.filter(({ key }) => key.endsWith('.json'));
      for (let i = 0; i < jsons.length; i += READS_AT_ONCE) {
        await Promise.all(
          jsons.slice(i, i + READS_AT_ONCE).map(async ({ key, etag }) => {
            const utterance = key.slice(keyOf(session, '').length, -'.json'.length);
            let sidecar = sidecars.get(key)?.etag === etag && etag ? sidecars.get(key)!.sidecar : null;
            if (!sidecar) {
              const body = await read(key, `reading ${session}/${utterance}.json`);
              if (!body) return;
              try {
                sidecar = JSON.parse(body.toString('utf8')) as Sidecar;
              } catch {
                // A sidecar that cannot be read says nothing about the audio; its WAV alone is not listed.
                return;
              }
              sidecars.set(key, { etag, sidecar });
            }
            found.set(utterance, { sidecar, audio: names.has(`${utterance}.wav`) });
          }),
        );
      }
      return found;
    },

    wav: (session, utterance) => read(keyOf(session, `${utterance}.wav`), `reading ${session}/${utterance}.wav`),

    async remove(session) {
      const keys = (await keysOf(session)).map(({ key }) => key);
      for (const key of keys) sidecars.delete(key);
      // DeleteObjects takes at most 1000 keys a call.
      for (let i = 0; i < keys.length; i += 1000) {
        const batch = keys.slice(i, i + 1000);
        const answer = await call(`deleting session ${session}`, ({ sdk, client }) =>
          client.send(new sdk.DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } })),
        );
        const failed = answer.Errors ?? [];
        if (failed.length > 0) throw new RecordingsUnavailable(`recordings bucket ${where}: deleting session ${session} left ${failed.length} objects (${failed[0]!.Code ?? 'error'}: ${failed[0]!.Key ?? ''})`);
      }
    },
  };
};
