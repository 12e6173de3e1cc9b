/**
 * A loopback HTTP proxy in front of the UISP simulator that logs every request SubOps sends and the bytes
 * of each answer's body as they pass: what an operation asks UISP and how much it reads, whether SubOps
 * runs in this process or in a child. The simulator's own log has no sizes.
 */
import { Agent, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  method: string;
  /** Path and query, as SubOps sent them. */
  url: string;
  status: number;
  /** Bytes of the answer's body (0 for an answer cut off before its headers). */
  bytes: number;
}

export interface CountingProxy {
  url: string;
  /** Every request in arrival order; its `bytes` grow until the answer has been passed on. */
  log: ProxiedRequest[];
  close(): Promise<void>;
}

/** What some requests read from UISP. */
export interface Reads {
  requests: number;
  bytes: number;
}

export function readsOf(entries: readonly ProxiedRequest[]): Reads {
  return { requests: entries.length, bytes: entries.reduce((sum, entry) => sum + entry.bytes, 0) };
}

/** 1 MB = 10⁶ bytes. */
export const size = (bytes: number) => (bytes >= 1e6 ? `${(bytes / 1e6).toFixed(bytes >= 1e7 ? 1 : 2)} MB` : `${(bytes / 1e3).toFixed(1)} KB`);
export const readsText = (reads: Reads) => `${reads.requests.toLocaleString('en-US')} request${reads.requests === 1 ? '' : 's'}, ${size(reads.bytes)}`;

/** "GET /nms/api/v2.1/sites ×1 (30.8 MB)", per method and path (ids as {id}, without the query), largest first. */
export function breakdown(entries: readonly ProxiedRequest[]): string {
  const groups = new Map<string, Reads>();
  for (const entry of entries) {
    const path = entry.url.split('?')[0]!.replace(/\/(\d+|[0-9a-f]{8}-[0-9a-f-]{27})(?=\/|$)/gi, '/{id}');
    const key = `${entry.method} ${path}${entry.url.includes('?') ? '?…' : ''}`;
    const group = groups.get(key) ?? { requests: 0, bytes: 0 };
    groups.set(key, { requests: group.requests + 1, bytes: group.bytes + entry.bytes });
  }
  return [...groups].sort(([, a], [, b]) => b.bytes - a.bytes).map(([key, group]) => `${key} ×${group.requests} (${size(group.bytes)})`).join(', ');
}

export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const { hostname, port } = new URL(target);
  const agent = new Agent({ keepAlive: true });
  const log: ProxiedRequest[] = [];
  const server = createServer((req, res) => {
    const entry: ProxiedRequest = { method: req.method ?? 'GET', url: req.url ?? '/', status: 0, bytes: 0 };
    log.push(entry);
    const upstream = httpRequest({ hostname, port, path: req.url, method: req.method, headers: req.headers, agent }, (answer) => {
      entry.status = answer.statusCode ?? 0;
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.on('data', (chunk: Buffer) => (entry.bytes += chunk.length));
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    log,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
        agent.destroy();
      }),
  };
}
