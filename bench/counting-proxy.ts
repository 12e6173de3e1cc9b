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
