/**
 * An S3-compatible bucket for tests, on 127.0.0.1: the REST API the AWS SDK speaks, path-style
 * (`/<bucket>/<key>`), objects in memory. PUT, GET, HEAD and DELETE of an object, ListObjectsV2
 * (prefix, max-keys, continuation tokens) and the batch DeleteObjects, with S3's XML errors
 * (`NoSuchKey`, `NoSuchBucket`). The signature is checked loosely: a request must be signed
 * (SigV4) with the access key the fake was started with; the HMAC itself is not recomputed.
 *
 * Faults, as a real bucket has them: `failNext(n, 500)` answers the next n requests with that
 * status; `stop()` closes the port (connection refused) and `restart()` serves the same objects
 * on the same port again.
 *
 * ```ts
 * const s3 = await startS3Server({ bucket: 'recordings' });
 * const client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: s3.credentials });
 * s3.failNext(2, 503); // the SDK retries through these
 * await s3.stop(); // connection refused until restart()
 * ```
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface S3Object {
  body: Buffer;
  contentType: string;
  etag: string;
  lastModified: Date;
}

export interface S3Request {
  method: string;
  /** The object's key, '' for a bucket-level request. */
  key: string;
  query: Record<string, string>;
}

export interface FakeS3 {
  /** http://127.0.0.1:<port>: S3_ENDPOINT. */
  readonly endpoint: string;
  readonly bucket: string;
  readonly credentials: { accessKeyId: string; secretAccessKey: string };
  /** The bucket's objects by key. */
  readonly objects: Map<string, S3Object>;
  /** Every request that reached the bucket (faults included), in order. */
  readonly requests: S3Request[];
  /** Answers the next `count` requests with `status` and S3's error body. */
  failNext(count: number, status: number): void;
  /** Closes the port and every connection: requests are refused. */
  stop(): Promise<void>;
  /** Serves the same objects on the same port again. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

const errorCodes: Record<number, string> = { 403: 'AccessDenied', 404: 'NoSuchKey', 500: 'InternalError', 503: 'SlowDown' };

const xmlEscape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const xmlUnescape = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');

const sendError = (res: ServerResponse, status: number, code: string, message: string, head = false) => {
  res.writeHead(status, { 'content-type': 'application/xml', 'x-amz-request-id': randomBytes(8).toString('hex') });
  res.end(head ? undefined : `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message></Error>`);
};

/**
 * A body sent with `x-amz-content-sha256: STREAMING-…` is aws-chunked: `<hex size>;chunk-signature=…\r\n<bytes>\r\n`…,
 * ending with a zero-size chunk and any trailers. Returns the payload.
 */
const unchunk = (raw: Buffer): Buffer => {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < raw.length) {
    const lineEnd = raw.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = Number.parseInt(raw.subarray(at, lineEnd).toString('latin1').split(';')[0]!, 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
};

export interface S3ServerOptions {
  bucket?: string;
  accessKeyId?: string;
  /** Keys a ListObjectsV2 page holds at most (S3's is 1000): small, to exercise continuation. */
  pageSize?: number;
}

export const startS3Server = async (options: S3ServerOptions = {}): Promise<FakeS3> => {
  const bucket = options.bucket ?? 'recordings';
  const credentials = { accessKeyId: options.accessKeyId ?? 'AKIAFAKEFAKEFAKE', secretAccessKey: 'fake-secret-access-key-for-tests' };
  const objects = new Map<string, S3Object>();
  const requests: S3Request[] = [];
  const faults: number[] = [];

  const list = (res: ServerResponse, query: URLSearchParams) => {
    const prefix = query.get('prefix') ?? '';
    const maxKeys = Math.min(options.pageSize ?? 1000, Number(query.get('max-keys') ?? 1000));
    const after = query.get('continuation-token') ? Buffer.from(query.get('continuation-token')!, 'base64url').toString('utf8') : (query.get('start-after') ?? '');
    const keys = [...objects.keys()].filter((key) => key.startsWith(prefix) && key > after).sort();
    const page = keys.slice(0, maxKeys);
    const truncated = keys.length > page.length;
    const contents = page
      .map((key) => {
        const object = objects.get(key)!;
        return `<Contents><Key>${xmlEscape(key)}</Key><LastModified>${object.lastModified.toISOString()}</LastModified><ETag>&quot;${object.etag}&quot;</ETag><Size>${object.body.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
      })
      .join('');
    const next = truncated ? `<NextContinuationToken>${Buffer.from(page.at(-1)!, 'utf8').toString('base64url')}</NextContinuationToken>` : '';
    res.writeHead(200, { 'content-type': 'application/xml' });
    res.end(
      `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${bucket}</Name><Prefix>${xmlEscape(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${maxKeys}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${contents}${next}</ListBucketResult>`,
    );
  };

  const deleteMany = (res: ServerResponse, body: Buffer) => {
    const keys = [...body.toString('utf8').matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => xmlUnescape(m[1]!));
    for (const key of keys) objects.delete(key);
    res.writeHead(200, { 'content-type': 'application/xml' });
    res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${keys.map((key) => `<Deleted><Key>${xmlEscape(key)}</Key></Deleted>`).join('')}</DeleteResult>`);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const method = req.method ?? 'GET';
    const head = method === 'HEAD';
    const [, bucketName = '', ...rest] = url.pathname.split('/');
    const key = rest.map(decodeURIComponent).join('/');
    requests.push({ method, key, query: Object.fromEntries(url.searchParams) });

    const fault = faults.shift();
    if (fault !== undefined) return sendError(res, fault, errorCodes[fault] ?? 'InternalError', `Fault injected by the test (${fault}).`, head);
    // Loosely: signed with SigV4 by the right access key; the signature itself is not recomputed.
    const authorization = String(req.headers.authorization ?? '');
    if (!authorization.startsWith(`AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/`)) {
      return sendError(res, 403, 'InvalidAccessKeyId', 'The request is not signed with the access key this bucket knows.', head);
    }
    if (decodeURIComponent(bucketName) !== bucket) return sendError(res, 404, 'NoSuchBucket', `The specified bucket does not exist: ${bucketName}`, head);

    if (!key) {
      if (method === 'GET' && url.searchParams.get('list-type') === '2') return list(res, url.searchParams);
      if (method === 'POST' && url.searchParams.has('delete')) return deleteMany(res, raw);
      return sendError(res, 501, 'NotImplemented', `${method} ${url.pathname}${url.search} is not part of this fake.`, head);
    }
    if (method === 'PUT') {
      const streaming = String(req.headers['x-amz-content-sha256'] ?? '').startsWith('STREAMING-');
      const body = streaming ? unchunk(raw) : raw;
      const etag = createHash('md5').update(body).digest('hex');
      objects.set(key, { body, contentType: String(req.headers['content-type'] ?? 'binary/octet-stream'), etag, lastModified: new Date() });
      res.writeHead(200, { etag: `"${etag}"` });
      return res.end();
    }
    const object = objects.get(key);
    if (method === 'DELETE') {
      objects.delete(key);
      res.writeHead(204);
      return res.end();
    }
    if (method === 'GET' || head) {
      if (!object) return sendError(res, 404, 'NoSuchKey', 'The specified key does not exist.', head);
      res.writeHead(200, { 'content-type': object.contentType, 'content-length': String(object.body.length), etag: `"${object.etag}"`, 'last-modified': object.lastModified.toUTCString() });
      return res.end(head ? undefined : object.body);
    }
    return sendError(res, 405, 'MethodNotAllowed', `${method} is not allowed on an object.`, head);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => sendError(res, 500, 'InternalError', String(error)));
  });
  const listen = (port: number) => new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const shut = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  await listen(0);
  const { port } = server.address() as AddressInfo;
  let running = true;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    credentials,
    objects,
    requests,
    failNext: (count, status) => void faults.push(...Array.from({ length: count }, () => status)),
    async stop() {
      if (!running) return;
      running = false;
      await shut();
    },
    async restart() {
      if (running) return;
      await listen(port);
      running = true;
    },
    async close() {
      if (running) await shut();
      running = false;
    },
  };
};
