/**
 * HTTP/1.1 requests with full control over what is sent (a spoofed Host, raw bodies, chunked uploads, any method),
 * which fetch does not allow. Never follows redirects; resolves with whatever the server answered, or rejects with
 * the transport error (a reset connection is a finding, not something to retry).
 */
import { request } from 'node:http';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  setCookies: string[];
  body: string;
}

export interface RawRequest {
  method?: string;
  /** Path and query, sent as is (`/auth/signin?x=1`). */
  path: string;
  headers?: Record<string, string | string[]>;
  /** A body sent with Content-Length. */
  body?: string | Buffer;
  /** A body sent with Transfer-Encoding: chunked, in these pieces. */
  chunks?: (string | Buffer)[];
  /** Milliseconds before the request is abandoned (the server would then be hanging). @default 10000 */
  timeout?: number;
}

/** Sends one request to `origin` (`http://127.0.0.1:<port>`) on a fresh connection. */
export function rawRequest(origin: string, options: RawRequest): Promise<RawResponse> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | string[] | number> = { ...options.headers };
    if (options.body !== undefined) headers['content-length'] = Buffer.byteLength(options.body);
    let answered: RawResponse | undefined;
    const chunks: Buffer[] = [];
    const req = request(
      { host: hostname, port: Number(port), method: options.method ?? 'GET', path: options.path, headers, agent: false, maxHeaderSize: 1024 * 1024 },
      (res) => {
        answered = { status: res.statusCode ?? 0, headers: res.headers, setCookies: res.headers['set-cookie'] ?? [], body: '' };
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ ...answered!, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (error) => (answered ? resolve({ ...answered, body: Buffer.concat(chunks).toString('utf8') }) : reject(error)));
      },
    );
    req.setTimeout(options.timeout ?? 10_000, () => req.destroy(new Error(`no answer within ${options.timeout ?? 10_000} ms`)));
    // A server may answer (413) and close before a large upload is fully written: the answer is what counts.
    req.on('error', (error) => (answered ? resolve({ ...answered, body: Buffer.concat(chunks).toString('utf8') }) : reject(error)));
    if (options.chunks) {
      for (const chunk of options.chunks) req.write(chunk);
      req.end();
    } else {
      req.end(options.body);
    }
  });
}
