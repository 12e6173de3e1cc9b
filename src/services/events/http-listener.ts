/**
 * A small HTTP listener for Socket Mode, where the bot has no server of its own: it serves the routes
 * it is given (POST /uisp/webhook, GET /metrics) on WEBHOOK_PORT and answers 404 to anything else.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Route {
  method: 'GET' | 'POST';
  path: string;
  handler: (req: IncomingMessage, res: ServerResponse) => void;
}

export interface RunningListener {
  port: number;
  close(): Promise<void>;
}

export async function startHttpListener(routes: readonly Route[], { port, host }: { port: number; host?: string | undefined }): Promise<RunningListener> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://listener').pathname;
    const route = routes.find((candidate) => candidate.path === path && candidate.method === req.method);
    if (route) return route.handler(req, res);
    req.resume();
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
