/**
 * POST /uisp/webhook: where UISP delivers its CRM webhooks. In HTTP mode it is a route of the bot's own
 * server; in Socket Mode a small listener of its own (./http-listener.ts). The answer comes at once —
 * 200 once the event is queued (or is a repeat), 400 for a body without an event uuid, 401 for a wrong
 * WEBHOOK_TOKEN, 503 with Retry-After while the queue is full or the process shuts down (UISP sends the
 * event again) — and the event is processed in the background (./webhooks.ts).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebhookProcessor } from './webhooks.js';

export const WEBHOOK_PATH = '/uisp/webhook';

/** Webhook bodies carry the changed record (extraData); far below this. */
const MAX_BODY_BYTES = 1_000_000;

export interface WebhookRouteOptions {
  processor: WebhookProcessor;
  /** WEBHOOK_TOKEN: when set, the URL must carry `?token=<it>`. */
  token?: string | undefined;
}

export function webhookRoute({ processor, token }: WebhookRouteOptions): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    void answer(req, res, processor, token);
  };
}

async function answer(req: IncomingMessage, res: ServerResponse, processor: WebhookProcessor, token: string | undefined): Promise<void> {
  // The URL holds the token: it is compared, never logged.
  if (token !== undefined && !sameSecret(new URL(req.url ?? '/', 'http://webhook').searchParams.get('token') ?? '', token)) {
    processor.refuse('wrong or missing WEBHOOK_TOKEN');
    req.resume();
    return reply(res, 401, { ok: false, error: 'unauthorized' });
  }
  const text = await readBody(req);
  if (text === undefined) {
    processor.refuse('body too large or cut off');
    return reply(res, 413, { ok: false, error: 'body too large' });
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    processor.refuse('the body is not JSON');
    return reply(res, 400, { ok: false, error: 'the body is not JSON' });
  }
  switch (processor.receive(body)) {
    case 'accepted':
    case 'duplicate':
      return reply(res, 200, { ok: true });
    case 'invalid':
      return reply(res, 400, { ok: false, error: 'no event uuid' });
    case 'busy':
      return reply(res, 503, { ok: false, error: 'busy, send again later' }, { 'retry-after': '60' });
  }
}

function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function reply(res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** The body as text; undefined when it is too large or the client hung up. */
async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) return undefined;
      chunks.push(chunk as Buffer);
    }
  } catch {
    return undefined;
  }
  return Buffer.concat(chunks).toString('utf8');
}
