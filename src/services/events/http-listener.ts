/**
 * A small HTTP listener for what is not Bolt's: it serves the routes it is given (POST /uisp/webhook on
 * WEBHOOK_PORT in Socket Mode, where the bot has no server of its own; GET /healthz and GET /metrics on
 * the ops port) and answers 404 to anything else.
 *
 * Nothing a client sends stops it, and it answers before anyone is authenticated: a request line or
 * header Node's parser refuses gets 400 (431 for headers over Node's 16 KB) on the socket
 * ('clientError'), a URL that does not parse 400, a Content-Length over the limit 413 before the
 * handler runs or a byte of the body is read, and a handler that throws or rejects is logged and
 * answered 500. A refusal of a request whose body was not read closes the connection.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';

/**
 * The largest request body the listener lets a route see: a Content-Length above it is refused with
 * 413 before the handler runs (docs/failure-modes.md). UISP webhook bodies carry one changed record,
 * far below it; the webhook route also stops reading a chunked body at the same size.
 */
export const MAX_REQUEST_BODY_BYTES = 1_000_000;

export interface Route {
  method: 'GET' | 'POST';
  path: string;
  /** A throw, or a returned promise that rejects, is logged and answered 500. */
  handler: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;
}

/** Where the listener reports refusals (debug) and failures (error); pino's Logger fits. */
export interface ListenerLogger {
  debug(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface ListenerOptions {
  port: number;
  host?: string | undefined;
  /** Without one, a failing handler is reported on stderr (one line) and refusals are not logged. */
  logger?: ListenerLogger | undefined;
}

export interface RunningListener {
  port: number;
  close(): Promise<void>;
}

/** A line on stderr when nobody passed a logger: a failing handler must not go unnoticed. */
const stderrLogger: ListenerLogger = {
  debug: () => undefined,
  error: (fields, message) => {
    process.stderr.write(`${message} ${JSON.stringify(fields)}\n`);
  },
};

/**
 * The path of a request target as WHATWG URL parsing reads it against a base (`//host/path` names a
 * host, as for Bolt), or undefined when it does not parse: `//[` and the like, which would throw.
 */
function requestPath(target: string | undefined): string | undefined {
  try {
    return new URL(target ?? '/', 'http://listener').pathname;
  } catch {
    return undefined;
  }
}

/** Whether the request announces a body (Content-Length above 0, or chunked). */
function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/** A short plain-text refusal; closes the connection when the body was left unread. */
export function refuse(req: IncomingMessage, res: ServerResponse, status: number, text: string, { bodyRead = false }: { bodyRead?: boolean } = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'text/plain', ...(!bodyRead && hasBody(req) && { connection: 'close' }) });
  res.end(`${text}\n`);
}

const errorFields = (error: unknown) => ({ err: error instanceof Error ? { type: error.name, message: error.message } : { message: String(error) } });

/**
 * Answers a request Node's parser refused (bad request line, header, chunked encoding, timeout) on the
 * raw socket and closes it, as Node does without a listener, and says so in the log. A response
 * already under way is cut instead: raw bytes in the middle of it would corrupt it.
 */
export function answerClientErrors(server: Server, logger: ListenerLogger = stderrLogger): void {
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => {
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
    if (error.code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent) {
      logger.debug({ code: error.code ?? 'unknown' }, 'refused a malformed request');
      socket.write(rawResponse(error.code));
    }
    socket.destroy();
  });
}

function rawResponse(code: string | undefined): string {
  const status =
    code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW' ? '413 Payload Too Large' : '400 Bad Request';
  return `HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`;
}

/** Runs a handler: a throw or a rejection is logged and answered 500 (or the response cut, if it had begun). */
function runHandler(handler: Route['handler'], req: IncomingMessage, res: ServerResponse, logger: ListenerLogger, path: string): void {
  const fail = (error: unknown) => {
    logger.error({ ...errorFields(error), method: req.method, path }, 'a request handler failed (HTTP 500)');
    if (!res.headersSent) {
      res.writeHead(500, { 'content-type': 'text/plain', connection: 'close' });
      res.end('internal error\n');
    } else if (!res.writableEnded) {
      res.destroy();
    }
  };
  try {
    const result: unknown = handler(req, res);
    if (isThenable(result)) result.then(undefined, fail);
  } catch (error) {
    fail(error);
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

export async function startHttpListener(routes: readonly Route[], { port, host, logger = stderrLogger }: ListenerOptions): Promise<RunningListener> {
  const server = createServer((req, res) => {
    const path = requestPath(req.url);
    if (path === undefined) {
      logger.debug({ method: req.method }, 'refused a request whose URL does not parse (HTTP 400)');
      return refuse(req, res, 400, 'bad request');
    }
    const route = routes.find((candidate) => candidate.path === path && candidate.method === req.method);
    if (!route) return refuse(req, res, 404, 'not found');
    if (Number(req.headers['content-length'] ?? 0) > MAX_REQUEST_BODY_BYTES) {
      logger.debug({ method: req.method, path }, `refused a body over ${MAX_REQUEST_BODY_BYTES} bytes (HTTP 413)`);
      return refuse(req, res, 413, 'body too large');
    }
    runHandler(route.handler, req, res, logger, path);
  });
  answerClientErrors(server, logger);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      // Once listening, an error of the server itself (accept failing for want of file descriptors)
      // must not end the process.
      server.on('error', (error) => logger.error(errorFields(error), 'the HTTP listener failed to accept a connection'));
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
