/**
 * A gate in front of Bolt's HTTP receiver. Bolt trusts that a correctly signed body is a Slack payload:
 * `payload=null` made it throw outside any handler (the process died), and a payload of no known type
 * or without a user hung for 3 seconds or failed inside a listener. Here every POST to the events
 * endpoint is read once, checked for the shape Slack sends, and refused with 400 when it is not one —
 * if it is correctly signed; anything unsigned goes on to Bolt, which answers 401 as before. Bolt reuses
 * the body read here (it skips reading a request that already carries `rawBody`).
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { defaultBodyLimit, isValidSlackRequest } from './bolt.js';
import type { Logger } from 'pino';

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

function readRaw(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large' | 'aborted'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        resolve('too-large');
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', () => resolve('aborted'));
    req.on('close', () => resolve('aborted'));
  });
}

export interface InboundGuardOptions {
  signingSecret: string;
  /** Paths Bolt reads events from, e.g. ['/slack/events']. */
  endpoints: string[];
  logger: Logger;
}

/** Wraps the receiver's request listener (HTTPReceiver.requestListener). */
export function guardInbound(next: RequestListener, { signingSecret, endpoints, logger }: InboundGuardOptions): RequestListener {
  const refuse = (res: ServerResponse, status: number) => {
    res.writeHead(status);
    res.end();
  };
  const check = async (req: Buffered, res: ServerResponse) => {
    const raw = await readRaw(req, defaultBodyLimit);
    if (raw === 'aborted') return;
    if (raw === 'too-large') return refuse(res, 413);
    req.rawBody = raw;
    const text = raw.toString('utf8');
    const problem = deliveryProblem(req.headers['content-type'] ?? '', text);
    const signature = req.headers['x-slack-signature'];
    const timestamp = Number(req.headers['x-slack-request-timestamp']);
    const signed = typeof signature === 'string' && isValidSlackRequest({ signingSecret, body: text, headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': timestamp } });
    if (problem && signed) {
      logger.warn({ problem }, 'refused a signed request that is not a Slack payload (HTTP 400)');
      return refuse(res, 400);
    }
    next(req, res);
  };
  return (req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method !== 'POST' || !endpoints.includes(path)) return next(req, res);
    check(req, res).catch((error: unknown) => {
      logger.error({ err: error instanceof Error ? error.message : String(error) }, 'could not read a request');
      if (!res.headersSent) refuse(res, 400);
    });
  };
}
