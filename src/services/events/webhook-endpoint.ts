/**
 * POST /uisp/webhook: where UISP delivers its CRM webhooks. Served only with WEBHOOK_TOKEN set (without
 * it the route does not exist: 404). In HTTP mode it is a route of the bot's own server; in Socket Mode a
 * small listener of its own (./http-listener.ts). The answer comes at once and the event is processed in
 * the background (./webhooks.ts):
 * - 401 for a wrong or missing token: `?token=<it>` in the URL (what UISP's webhook settings can send),
 *   or the `X-Webhook-Token` header, or `Authorization: Bearer <it>`; compared in constant time. Checked
 *   first: wrong-token posts never spend the address's deliveries, so a flood of them from the address
 *   UISP also sends from (a reverse proxy, NAT) does not turn UISP's events away. They have a bucket of
 *   their own, of the same size: past it they get 429 (logged once per episode, not once each);
 * - 429 with Retry-After when the sender's address has used up its WEBHOOK_RATE_PER_MINUTE;
 * - 413 / 400 for a body too large, not JSON, or without an event uuid;
 * - 503 with Retry-After while the backlog (or this address's share of it) is full or the process shuts
 *   down: UISP sends the event again;
 * - 200 once the event is queued (or is a repeat).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebhookProcessor } from './webhooks.js';

export const WEBHOOK_PATH = '/uisp/webhook';

/** Deliveries one address may make per minute when WEBHOOK_RATE_PER_MINUTE is not set. */
export const DEFAULT_WEBHOOK_RATE_PER_MINUTE = 600;

/** Webhook bodies carry the changed record (extraData); far below this. */
const MAX_BODY_BYTES = 1_000_000;

/** Retry-After of a 503: the backlog drains at a few events a second, so a minute is plenty. */
const BUSY_RETRY_AFTER_S = 60;

export interface WebhookRouteOptions {
  processor: WebhookProcessor;
  /** WEBHOOK_TOKEN: every delivery must carry it (URL, X-Webhook-Token or Authorization: Bearer). */
  token: string;
  /** Deliveries one remote address may make per minute (a minute's worth at once, then that rate). Default 600. */
  ratePerMinute?: number;
  /** Clock (ms), for tests. */
  now?: () => number;
}

/** The handler's promise goes to the listener (or the gate), which answers 500 and logs if it rejects. */
export function webhookRoute({ processor, token, ratePerMinute = DEFAULT_WEBHOOK_RATE_PER_MINUTE, now }: WebhookRouteOptions): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const limits = { deliveries: new RateLimiter(ratePerMinute, now), refusals: new RateLimiter(ratePerMinute, now) };
  return (req, res) => answer(req, res, { processor, token, limits });
}

interface Limits {
  /** Deliveries that carry the token. */
  deliveries: RateLimiter;
  /** Wrong-token posts, apart: they never spend what UISP's own deliveries from the same address may use. */
  refusals: RateLimiter;
}

async function answer(req: IncomingMessage, res: ServerResponse, { processor, token, limits }: { processor: WebhookProcessor; token: string; limits: Limits }): Promise<void> {
  const source = sourceOf(req);
  // The URL and the headers hold the token: it is compared, never logged.
  if (!carriesToken(req, token)) {
    req.resume();
    const refusal = limits.refusals.take(source);
    if (!refusal.ok) {
      processor.limited(source, refusal.retryAfterS, refusal.first, 'wrong-token');
      return reply(res, 429, { ok: false, error: 'too many deliveries from this address, send again later' }, { 'retry-after': String(refusal.retryAfterS) });
    }
    processor.refuse('wrong or missing WEBHOOK_TOKEN');
    return reply(res, 401, { ok: false, error: 'unauthorized' });
  }
  const allowance = limits.deliveries.take(source);
  if (!allowance.ok) {
    processor.limited(source, allowance.retryAfterS, allowance.first, 'deliveries');
    req.resume();
    return reply(res, 429, { ok: false, error: 'too many deliveries from this address, send again later' }, { 'retry-after': String(allowance.retryAfterS) });
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
  switch (processor.receive(body, source)) {
    case 'accepted':
    case 'duplicate':
      return reply(res, 200, { ok: true });
    case 'invalid':
      return reply(res, 400, { ok: false, error: 'no event uuid' });
    case 'busy':
      return reply(res, 503, { ok: false, error: 'busy: too many events waiting, or SubOps is restarting; send again later' }, { 'retry-after': String(BUSY_RETRY_AFTER_S) });
  }
}

/** The remote address (an IPv4 address without its IPv6 mapping prefix). */
function sourceOf(req: IncomingMessage): string {
  const address = req.socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
}

/** Whether the URL's `token`, the X-Webhook-Token header or an Authorization bearer is the token; each compared in constant time. */
function carriesToken(req: IncomingMessage, token: string): boolean {
  const given: string[] = [];
  const inUrl = new URL(req.url ?? '/', 'http://webhook').searchParams.get('token');
  if (inUrl !== null) given.push(inUrl);
  const header = req.headers['x-webhook-token'];
  if (typeof header === 'string') given.push(header);
  const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
  if (bearer) given.push(bearer[1]!.trim());
  // Every candidate is compared, so the time taken does not tell which one (or how much of one) matched.
  return given.map((candidate) => sameSecret(candidate, token)).reduce((any, match) => any || match, false);
}

function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * Per-source token buckets: each address may send `perMinute` deliveries at once, then `perMinute` a
 * minute. At most `maxSources` addresses are remembered; past that, those whose bucket has refilled (as
 * good as new) are forgotten first, then the oldest.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number; limited: boolean }>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
    private readonly maxSources = 10_000,
  ) {}

  /** Spends one delivery of `source`; when none is left, how long until one is, and whether this starts an episode of refusals (for the log). */
  take(source: string): { ok: true } | { ok: false; retryAfterS: number; first: boolean } {
    const now = this.now();
    let bucket = this.buckets.get(source);
    if (!bucket) {
      this.makeRoom(now);
      bucket = { tokens: this.perMinute, at: now, limited: false };
      this.buckets.set(source, bucket);
    }
    this.refill(bucket, now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { ok: true };
    }
    const first = !bucket.limited;
    bucket.limited = true;
    return { ok: false, retryAfterS: Math.max(1, Math.ceil(((1 - bucket.tokens) * 60) / this.perMinute)), first };
  }

  private refill(bucket: { tokens: number; at: number; limited: boolean }, now: number): void {
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (Math.max(0, now - bucket.at) * this.perMinute) / 60_000);
    bucket.at = now;
    // A full bucket: the address has been quiet; its next refusal starts a new episode.
    if (bucket.tokens >= this.perMinute) bucket.limited = false;
  }

  private makeRoom(now: number): void {
    if (this.buckets.size < this.maxSources) return;
    for (const [source, bucket] of this.buckets) {
      this.refill(bucket, now);
      if (bucket.tokens >= this.perMinute) this.buckets.delete(source);
    }
    const target = Math.floor(this.maxSources * 0.9);
    for (const source of this.buckets.keys()) {
      if (this.buckets.size <= target) break;
      this.buckets.delete(source);
    }
  }
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
