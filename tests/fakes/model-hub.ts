/**
 * A fake model hub: a node:http server on 127.0.0.1 that serves files the test made, the way
 * Hugging Face does (a `resolve` URL answering with a redirect that carries `x-linked-size` and
 * `x-linked-etag`, range requests for resuming), and fails on demand: 404, 500, a connection cut
 * midway, a stall, bytes that are not the advertised ones.
 *
 * ```ts
 * const hub = await startModelHub();
 * const url = hub.serve('acme/tiny/resolve/main/tiny.gguf', bytes);   // the file's full URL
 * hub.fault('acme/tiny/resolve/main/tiny.gguf', { cutAfterBytes: 1 << 20 });
 * hub.rangedBytes('tiny.gguf'); // bytes sent in answer to range requests (what the downloader fetched)
 * ```
 */
import { createHash } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type HubFault =
  | { status: number }
  /** The next `times` (default 1) range requests send this many bytes, then the connection is cut. */
  | { cutAfterBytes: number; times?: number }
  /** Range requests send this many bytes in all, then nothing, connections left open, until the fault is cleared. */
  | { stallAfterBytes: number }
  /** Serve other bytes than the ones whose size and SHA-256 are advertised (same length). */
  | { corrupt: true };

export interface HubRequest {
  method: string;
  path: string;
  range: string | null;
  /** Body bytes written before the answer ended or was cut. */
  sent: number;
}

export interface ModelHub {
  url: string;
  requests: HubRequest[];
  /** Serves `bytes` at `/<path>` (a Hugging Face style `…/resolve/<rev>/<file>` path); returns its URL. */
  serve(path: string, bytes: Buffer, options?: { redirect?: boolean; advertiseSha256?: boolean }): string;
  fault(path: string, fault: HubFault | null): void;
  /** Bytes sent for range requests of files named `file`: what the downloader actually fetched. */
  rangedBytes(file: string): number;
  close(): Promise<void>;
}

interface Served {
  bytes: Buffer;
  sha256: string;
  redirect: boolean;
  advertiseSha256: boolean;
}

/** Writes `body`, at most `budget.left` bytes of it (a budget several answers may share); false if cut short or gone. */
const write = (res: ServerResponse, body: Buffer, record: HubRequest, budget = { left: Infinity }): Promise<boolean> =>
  new Promise((resolve) => {
    let offset = 0;
    const pump = () => {
      while (offset < body.length) {
        if (res.destroyed) return resolve(false);
        const end = Math.min(offset + 64 * 1024, body.length, offset + budget.left);
        if (end <= offset) return resolve(false);
        const more = res.write(body.subarray(offset, end));
        record.sent += end - offset;
        budget.left -= end - offset;
        offset = end;
        if (!more) return void res.once('drain', pump);
      }
      resolve(!res.destroyed);
    };
    res.once('close', () => resolve(false));
    pump();
  });

export const startModelHub = async (): Promise<ModelHub> => {
  const files = new Map<string, Served>();
  const faults = new Map<string, HubFault>();
  const requests: HubRequest[] = [];
  const stalled = new Set<ServerResponse>();
  const stallBudgets = new WeakMap<HubFault, { left: number }>();

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://hub');
    const cdn = url.pathname.startsWith('/cdn/');
    const path = decodeURIComponent(cdn ? url.pathname.slice('/cdn/'.length) : url.pathname.slice(1));
    const record: HubRequest = { method: req.method ?? 'GET', path: url.pathname, range: req.headers.range ?? null, sent: 0 };
    requests.push(record);
    const served = files.get(path);
    const fault = faults.get(path);
    if (fault && 'status' in fault) {
      res.writeHead(fault.status, { 'content-type': 'text/plain' }).end(fault.status === 404 ? 'Entry not found' : 'Internal Error');
      return;
    }
    if (!served) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('Entry not found');
    const linked = { 'x-linked-size': String(served.bytes.length), ...(served.advertiseSha256 ? { 'x-linked-etag': `"${served.sha256}"` } : {}) };
    if (served.redirect && !cdn) {
      res.writeHead(302, { location: `/cdn/${encodeURI(path)}`, ...linked }).end();
      return;
    }
    let body = served.bytes;
    if (fault && 'corrupt' in fault) {
      // The header stays right, so only the checksum can tell.
      body = Buffer.from(served.bytes);
      for (let i = 4096; i < body.length; i += 4096) body[i] = body[i]! ^ 0xff;
    }
    const headers = { 'accept-ranges': 'bytes', 'content-type': 'application/octet-stream', etag: `"${served.sha256}"` };
    if (req.method === 'HEAD') return void res.writeHead(200, { ...headers, 'content-length': String(body.length) }).end();
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (!range) {
      res.writeHead(200, { ...headers, 'content-length': String(body.length) });
      if (await write(res, body, record)) res.end();
      return;
    }
    const start = Number(range[1]);
    const end = range[2] ? Math.min(Number(range[2]), body.length - 1) : body.length - 1;
    const slice = body.subarray(start, end + 1);
    res.writeHead(206, { ...headers, 'content-length': String(slice.length), 'content-range': `bytes ${start}-${end}/${body.length}` });
    if (fault && 'cutAfterBytes' in fault) {
      const left = (fault.times ?? 1) - 1;
      if (left > 0) faults.set(path, { ...fault, times: left });
      else faults.delete(path);
      await write(res, slice, record, { left: fault.cutAfterBytes });
      res.destroy();
      return;
    }
    if (fault && 'stallAfterBytes' in fault) {
      let budget = stallBudgets.get(fault);
      if (!budget) stallBudgets.set(fault, (budget = { left: fault.stallAfterBytes }));
      if (!(await write(res, slice, record, budget))) stalled.add(res);
      else res.end();
      return;
    }
    if (await write(res, slice, record)) res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    requests,
    serve(path, bytes, options = {}) {
      files.set(path, { bytes, sha256: createHash('sha256').update(bytes).digest('hex'), redirect: options.redirect ?? true, advertiseSha256: options.advertiseSha256 ?? true });
      return `${url}/${path}`;
    },
    fault(path, fault) {
      if (fault) faults.set(path, fault);
      else faults.delete(path);
      if (!fault) for (const res of stalled) res.destroy();
    },
    rangedBytes: (file) => requests.filter((r) => r.range && r.path.endsWith(`/${file}`)).reduce((sum, r) => sum + r.sent, 0),
    async close() {
      for (const res of stalled) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
