import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config';

describe('where the recordings are kept (RECORDINGS_URL)', () => {
  it('keeps them under DATA_DIR by default', () => {
    expect(loadConfig({ DATA_DIR: '/srv/data' }).recordings).toEqual({ kind: 'directory', root: join('/srv/data', 'recordings') });
    expect(loadConfig({}).recordings).toEqual({ kind: 'directory', root: join('./data', 'recordings') });
  });

  it('takes a directory every node mounts, as a path or a file URL', () => {
    expect(loadConfig({ RECORDINGS_URL: '/mnt/shared/recordings' }).recordings).toEqual({ kind: 'directory', root: '/mnt/shared/recordings' });
    expect(loadConfig({ RECORDINGS_URL: 'file:///mnt/shared/recordings' }).recordings).toEqual({ kind: 'directory', root: '/mnt/shared/recordings' });
  });

  it('takes an S3-compatible bucket with its prefix, endpoint, region and keys', () => {
    expect(loadConfig({ RECORDINGS_URL: 's3://rehearsal/team-a/recordings/' }).recordings).toEqual({ kind: 's3', bucket: 'rehearsal', prefix: 'team-a/recordings/', endpoint: null, region: 'us-east-1', credentials: null });
    const env = { RECORDINGS_URL: 's3://rehearsal', S3_ENDPOINT: 'http://minio:9000', AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE', AWS_SECRET_ACCESS_KEY: 'a-secret-key-that-stays-secret' };
    expect(loadConfig(env).recordings).toEqual({ kind: 's3', bucket: 'rehearsal', prefix: '', endpoint: 'http://minio:9000', region: 'eu-west-1', credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'a-secret-key-that-stays-secret' } });
  });

  it('names every problem of a bad bucket setting, never echoing the secret key', () => {
    let error: ConfigError | null = null;
    try {
      loadConfig({ RECORDINGS_URL: 's3://Bad_Bucket/x', S3_ENDPOINT: 'minio:9000', AWS_SECRET_ACCESS_KEY: 'a-secret-key-that-stays-secret' });
    } catch (caught) {
      error = caught as ConfigError;
    }
    expect(error?.lines).toEqual([
      'invalid configuration: RECORDINGS_URL: names the bucket "Bad_Bucket": a bucket name is 3 to 63 lowercase letters, digits, dots and hyphens (got "s3://Bad_Bucket/x")',
      'invalid configuration: S3_ENDPOINT: must be an http:// or https:// URL such as http://minio.internal:9000 (got "minio:9000")',
      "invalid configuration: AWS_ACCESS_KEY_ID: is needed with AWS_SECRET_ACCESS_KEY: set both for the recordings bucket, or neither to use the AWS SDK's own credentials (not set)",
    ]);
    expect(() => loadConfig({ RECORDINGS_URL: 'ftp://files/recordings' })).toThrow(/RECORDINGS_URL: must be s3:\/\/bucket\/prefix, file:\/\/\/path or a directory path/);
    expect(() => loadConfig({ RECORDINGS_URL: 's3://rehearsal', AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE', AWS_SECRET_ACCESS_KEY: 'x' })).not.toThrow();
    try {
      loadConfig({ RECORDINGS_URL: 's3://rehearsal', AWS_SECRET_ACCESS_KEY: 'a-secret-key-that-stays-secret', PORT: 'x' });
    } catch (caught) {
      expect((caught as Error).message).not.toContain('a-secret-key-that-stays-secret');
    }
  });
});
