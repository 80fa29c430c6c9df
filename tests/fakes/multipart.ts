/**
 * Fake vendors that take file uploads (`multipart/form-data`). The shared core records bodies as
 * UTF-8 text, which mangles binary audio, so a small front server in front of it keeps the raw
 * bytes, parses the form, and hands the core the form as JSON: `request.body` is a `MultipartForm`
 * with the file's bytes intact (base64). Everything else (status, headers, delays, cuts) passes
 * through, so scripted replies behave exactly as with the other fakes.
 *
 * ```ts
 * const fake = await startMultipartVendorServer(route, '/v1');
 * const form = fake.requests[0]!.body as MultipartForm;
 * expect(form.fields.model).toBe('whisper-1');
 * expect(fileBytes(form, 'file').subarray(0, 4).toString()).toBe('RIFF');
 * ```
 */
import { createServer, request as forward } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startVendorServer, type FakeVendor, type Route } from './vendor-server';

export interface MultipartForm {
  /** Text fields; a name sent more than once (e.g. `keyterms`) gives an array. */
  fields: Record<string, string | string[]>;
  files: Record<string, { filename?: string; contentType?: string; base64: string }>;
}

/** The bytes of an uploaded file. */
export const fileBytes = (form: MultipartForm, name: string): Buffer => {
  const file = form.files[name];
  if (!file) throw new Error(`no file "${name}" in the form (fields: ${Object.keys(form.fields).join(', ')})`);
  return Buffer.from(file.base64, 'base64');
};

/** Parses a `multipart/form-data` body (RFC 7578), or returns undefined when it is not one. */
export const parseMultipart = (raw: Buffer, contentType: string | undefined): MultipartForm | undefined => {
  const boundary = /^multipart\/form-data;.*boundary="?([^";]+)"?/i.exec(contentType ?? '')?.[1];
  if (!boundary) return undefined;
  const form: MultipartForm = { fields: {}, files: {} };
  const delimiter = Buffer.from(`--${boundary}`);
  let start = raw.indexOf(delimiter);
  while (start >= 0) {
    const partStart = start + delimiter.length;
    // "--boundary--" closes the body.
    if (raw.subarray(partStart, partStart + 2).toString() === '--') break;
    const end = raw.indexOf(delimiter, partStart);
    if (end < 0) break;
    // Each part: CRLF, headers, CRLF CRLF, content, CRLF, then the next delimiter.
    const part = raw.subarray(partStart + 2, end - 2);
    const split = part.indexOf('\r\n\r\n');
    const headers = part.subarray(0, split).toString('latin1');
    const content = part.subarray(split + 4);
    const name = /name="([^"]*)"/i.exec(headers)?.[1] ?? '';
    const filename = /filename="([^"]*)"/i.exec(headers)?.[1];
    if (filename !== undefined) {
      const type = /^content-type:\s*(.+)$/im.exec(headers)?.[1]?.trim();
      form.files[name] = { filename, contentType: type, base64: content.toString('base64') };
    } else {
      const value = content.toString('utf8');
      const previous = form.fields[name];
      form.fields[name] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
    }
    start = end;
  }
  return form;
};

/** `startVendorServer` behind a front that turns multipart uploads into JSON the core can record. */
export const startMultipartVendorServer = async (route: Route, basePath = ''): Promise<FakeVendor> => {
  const core = await startVendorServer(route, basePath);
  const { port: corePort } = new URL(core.baseUrl);

  const front = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const form = parseMultipart(raw, req.headers['content-type']);
    const body = form ? Buffer.from(JSON.stringify(form)) : raw;
    const { 'transfer-encoding': _chunked, ...headers } = req.headers;
    const upstream = forward(
      { host: '127.0.0.1', port: corePort, method: req.method, path: req.url, headers: { ...headers, 'content-length': String(body.length) } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        // The core cut the connection mid-reply: cut ours too.
        answer.on('close', () => {
          if (!answer.complete) res.socket?.destroy();
        });
      },
    );
    upstream.on('error', () => res.socket?.destroy());
    // The client gave up (timeout, abort): let the core see it hang up.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    upstream.end(body);
  });

  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const { port } = front.address() as AddressInfo;

  return {
    ...core,
    baseUrl: `http://127.0.0.1:${port}${basePath}`,
    close: async () => {
      front.closeAllConnections();
      await new Promise<void>((resolve, reject) => front.close((error) => (error ? reject(error) : resolve())));
      await core.close();
    },
  };
};
