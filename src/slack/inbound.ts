/**
 * The gate in front of Bolt's HTTP receiver: every request to the bot's HTTP port passes it first.
 *
 * - A URL that does not parse gets 400 (Bolt would throw on it and answer 500).
 * - A POST to the events endpoint is never parsed before its Slack signature is verified on the raw
 *   bytes. In order: a Content-Length over MAX_SLACK_BODY_BYTES gets 413 before a byte is read;
 *   headers that cannot carry a valid signature (`x-slack-signature: v0=<64 hex>`, an
 *   `x-slack-request-timestamp` within 5 minutes of now) get 401 before a byte is read; the body is
 *   read up to the limit (413 once it grows past it: reading stops and the connection closes);
 *   HMAC-SHA256 of `v0:{timestamp}:{raw bytes}` with the signing secret is compared in constant time
 *   (401 when it differs); only then is the body parsed, and a signed body that is not a Slack payload
 *   gets 400 — Bolt trusts a correctly signed body: `payload=null` made it throw outside any handler
 *   (the process died), and a payload of no known type or without a user hung for 3 seconds or failed
 *   inside a listener. Slack's SSL check (`ssl_check=1&token=…`, unsigned by design) is answered 200
 *   here from its few bytes.
 * - Bolt reuses the body read here (it skips reading a request that already carries `rawBody`) and
 *   verifies the signature again: a second lock that costs one HMAC per genuine request (Slack's own),
 *   kept so the receiver stays safe without the gate; unsigned or forged requests never reach Bolt.
 * - Other routes (GET /healthz, POST /uisp/webhook, GET /metrics): a Content-Length over
 *   MAX_REQUEST_BODY_BYTES gets 413; a handler that throws is answered 500 by Bolt (and logged by
 *   `routeFailures`), one that rejects is logged and answered 500 here.
 * - A request no route serves gets 404 from Bolt, logged by `routeFailures` with its method and path
 *   only: the query string of `GET /uisp/webhook?token=…` is WEBHOOK_TOKEN, which Bolt's own handler
 *   would write to the log.
 *
 * What Node's parser refuses (a bad request line, header or chunk) never reaches the gate: Node
 * answers 400, or 431 for headers over 16 KB, and closes the socket.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { ReceiverDispatchErrorHandlerArgs } from '@slack/bolt';
import type { Logger } from 'pino';
import { MAX_REQUEST_BODY_BYTES, refuse } from '../services/events/http-listener.js';
import { defaultBodyLimit } from './bolt.js';

/**
 * The largest body read from POST /slack/events: Bolt's own limit (4 MiB), far above anything Slack
 * sends. A Content-Length above it is refused (413) before a byte is read, a body that grows past it
 * as soon as it does; see docs/failure-modes.md.
 */
export const MAX_SLACK_BODY_BYTES = defaultBodyLimit;

/** Slack's rule: a timestamp further than this from now is refused (a replay, or a wrong clock). */
const MAX_TIMESTAMP_SKEW_SECONDS = 5 * 60;

/** Slack's unsigned SSL check is a few dozen bytes: `ssl_check=1&token=…`. */
const SSL_CHECK_MAX_BYTES = 256;
const SSL_CHECK = /^(?:token=[\w.%-]*&)?ssl_check=1(?:&token=[\w.%-]*)?$/;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const hasString = (record: unknown, key: string): boolean => isObject(record) && typeof record[key] === 'string' && record[key] !== '';

/** The body Bolt would parse, or a reason it cannot be one. */
function parseBody(contentType: string, text: string): { body: Json } | { problem: string } {
  let value: unknown;
  try {
    if (contentType === 'application/x-www-form-urlencoded') {
      const fields = parseQuery(text);
      value = typeof fields.payload === 'string' ? JSON.parse(fields.payload) : fields;
    } else {
      value = JSON.parse(text);
    }
  } catch {
    return { problem: 'the body is not JSON' };
  }
  return isObject(value) ? { body: value } : { problem: `the payload is ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}, not an object` };
}

/** What every payload type SubOps can receive must carry; undefined when the body is fine. */
export function deliveryProblem(contentType: string, text: string): string | undefined {
  const parsed = parseBody(contentType, text);
  if ('problem' in parsed) return parsed.problem;
  const { body } = parsed;
  if (body.ssl_check === '1' || body.type === 'url_verification') return undefined;
  if (typeof body.command === 'string') {
    return hasString(body, 'user_id') && hasString(body, 'channel_id') ? undefined : 'a slash command without user_id or channel_id';
  }
  const hasUser = hasString(body.user, 'id');
  switch (body.type) {
    case 'event_callback':
      return isObject(body.event) && hasString(body, 'event_id') ? undefined : 'an event without event or event_id';
    case 'view_submission':
    case 'view_closed':
      if (!hasUser) return `a ${body.type} without a user`;
      return hasString(body.view, 'id') && hasString(body.view, 'callback_id') ? undefined : `a ${body.type} without a view id or callback_id`;
    case 'block_actions':
      if (!hasUser) return 'a block_actions without a user';
      return Array.isArray(body.actions) && body.actions.length > 0 && body.actions.every((action) => hasString(action, 'action_id')) ? undefined : 'a block_actions without actions';
    case 'block_suggestion':
    case 'shortcut':
    case 'message_action':
      return hasUser ? undefined : `a ${body.type} without a user`;
    default:
      return typeof body.type === 'string' ? `unknown type "${body.type.slice(0, 40)}"` : 'no type';
  }
}

interface Buffered extends IncomingMessage {
  rawBody?: Buffer;
}

/** The body, stopping (and forgetting what was read) as soon as it grows past `limit`. */
function readRaw(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large' | 'aborted'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // Nothing more is read: the refusal closes the connection with the rest unread.
        req.off('data', onData);
        req.pause();
        chunks.length = 0;
        resolve('too-large');
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', () => resolve('aborted'));
    req.on('close', () => resolve('aborted'));
  });
}

interface SignedHeaders {
  timestamp: string;
  /** The 32 bytes of the v0 signature. */
  digest: Buffer;
}

/** The signature headers, when they can carry a valid signature; otherwise why not ('unsigned' when there are none). */
function signedHeaders(req: IncomingMessage, nowSeconds: number): SignedHeaders | string {
  const signature = req.headers['x-slack-signature'];
  const timestamp = req.headers['x-slack-request-timestamp'];
  if (signature === undefined && timestamp === undefined) return 'unsigned';
  if (typeof signature !== 'string' || !/^v0=[0-9a-f]{64}$/.test(signature)) return 'a malformed x-slack-signature';
  if (typeof timestamp !== 'string' || !/^[1-9][0-9]{0,11}$/.test(timestamp)) return 'a malformed x-slack-request-timestamp';
  if (Math.abs(nowSeconds - Number(timestamp)) > MAX_TIMESTAMP_SKEW_SECONDS) return 'a timestamp more than 5 minutes from now';
  return { timestamp, digest: Buffer.from(signature.slice('v0='.length), 'hex') };
}

/** Slack's v0 signature: HMAC-SHA256 of `v0:{timestamp}:{raw body}`, compared in constant time. */
function signatureMatches(signingSecret: string, { timestamp, digest }: SignedHeaders, raw: Buffer): boolean {
  if (!signingSecret) return false;
  const expected = createHmac('sha256', signingSecret).update(`v0:${timestamp}:`).update(raw).digest();
  return expected.length === digest.length && timingSafeEqual(expected, digest);
}

/** An unsigned request that is Slack's SSL check, judged from its first few bytes only. */
async function isSslCheck(req: IncomingMessage): Promise<boolean | 'aborted'> {
  const length = Number(req.headers['content-length']);
  if (req.headers['content-type'] !== 'application/x-www-form-urlencoded' || !(length > 0 && length <= SSL_CHECK_MAX_BYTES)) return false;
  const raw = await readRaw(req, SSL_CHECK_MAX_BYTES);
  if (raw === 'aborted') return 'aborted';
  return raw !== 'too-large' && SSL_CHECK.test(raw.toString('latin1'));
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

export interface InboundGuardOptions {
  signingSecret: string;
  /** Paths Bolt reads events from, e.g. ['/slack/events']. */
  endpoints: string[];
  logger: Logger;
  /** Clock (ms), for tests. */
  now?: () => number;
}

/** The path of a request target, without its query string (which may carry a token); undefined when it does not parse. */
function pathOf(target: string | undefined): string | undefined {
  try {
    return new URL(target ?? '', 'http://localhost').pathname;
  } catch {
    return undefined;
  }
}

/** Bolt's custom route error code: no route serves the request (Bolt's HTTPReceiverDeferredRequestError). */
const NO_ROUTE = 'slack_bolt_http_receiver_deferred_request_error';

/**
 * The receiver's dispatchErrorHandler: a request no route serves gets 404, a route that throws 500,
 * each logged with its method and path only, never its URL's query string.
 */
export function routeFailures(logger: Logger): (args: ReceiverDispatchErrorHandlerArgs) => void {
  return ({ error, request, response }) => {
    const fields = { method: request.method, path: pathOf(request.url) };
    if ((error as { code?: unknown }).code === NO_ROUTE) {
      logger.info(fields, 'a request no route serves (HTTP 404)');
      refuse(request, response, 404, 'not found');
      return;
    }
    logger.error({ ...fields, err: error.message }, 'a request failed (HTTP 500)');
    if (!response.headersSent) refuse(request, response, 500, 'internal error');
    else if (!response.writableEnded) response.destroy();
  };
}

/** Wraps the receiver's request listener (HTTPReceiver.requestListener). */
export function guardInbound(next: RequestListener, { signingSecret, endpoints, logger, now = Date.now }: InboundGuardOptions): RequestListener {
  const failed = (req: IncomingMessage, res: ServerResponse, error: unknown) => {
    logger.error({ err: error instanceof Error ? error.message : String(error) }, 'a request failed (HTTP 500)');
    if (!res.headersSent) refuse(req, res, 500, 'internal error');
    else if (!res.writableEnded) res.destroy();
  };

  const checkEvent = async (req: Buffered, res: ServerResponse) => {
    if (Number(req.headers['content-length'] ?? 0) > MAX_SLACK_BODY_BYTES) {
      logger.warn({ limit: MAX_SLACK_BODY_BYTES }, 'refused a request body over the limit (HTTP 413)');
      return refuse(req, res, 413, 'body too large');
    }
    const signed = signedHeaders(req, Math.floor(now() / 1000));
    if (typeof signed === 'string') {
      if (signed === 'unsigned') {
        const sslCheck = await isSslCheck(req);
        if (sslCheck === 'aborted') return;
        if (sslCheck) {
          res.writeHead(200).end();
          return;
        }
      }
      logger.warn({ problem: signed }, 'refused a request without a valid Slack signature (HTTP 401)');
      return refuse(req, res, 401, 'unauthorized');
    }
    const raw = await readRaw(req, MAX_SLACK_BODY_BYTES);
    if (raw === 'aborted') return;
    if (raw === 'too-large') {
      logger.warn({ limit: MAX_SLACK_BODY_BYTES }, 'refused a request body over the limit (HTTP 413)');
      return refuse(req, res, 413, 'body too large');
    }
    if (!signatureMatches(signingSecret, signed, raw)) {
      logger.warn({ problem: 'a signature that does not match SLACK_SIGNING_SECRET' }, 'refused a request without a valid Slack signature (HTTP 401)');
      return refuse(req, res, 401, 'unauthorized', { bodyRead: true });
    }
    // Signed: only now is the body looked at.
    req.rawBody = raw;
    const problem = deliveryProblem(req.headers['content-type'] ?? '', raw.toString('utf8'));
    if (problem) {
      logger.warn({ problem }, 'refused a signed request that is not a Slack payload (HTTP 400)');
      return refuse(req, res, 400, 'bad request', { bodyRead: true });
    }
    next(req, res);
  };

  return (req, res) => {
    // Bolt routes on exactly this parse; a URL it would throw on is refused here.
    const path = pathOf(req.url);
    if (path === undefined) {
      logger.warn({ method: req.method }, 'refused a request whose URL does not parse (HTTP 400)');
      return refuse(req, res, 400, 'bad request');
    }
    if (req.method === 'POST' && endpoints.includes(path)) {
      checkEvent(req, res).catch((error: unknown) => failed(req, res, error));
      return;
    }
    if (Number(req.headers['content-length'] ?? 0) > MAX_REQUEST_BODY_BYTES) {
      logger.warn({ limit: MAX_REQUEST_BODY_BYTES }, 'refused a request body over the limit (HTTP 413)');
      return refuse(req, res, 413, 'body too large');
    }
    // Bolt answers what its routes throw (404 for no route, 500 otherwise); a rejection would be nobody's.
    const result: unknown = next(req, res);
    if (isThenable(result)) result.then(undefined, (error: unknown) => failed(req, res, error));
  };
}
