/**
 * POST /uisp/webhook on its own, over loopback HTTP, with requests from different local addresses
 * (127.0.0.1 and 127.0.0.2: two sources): the token in the URL or in a header, compared in constant
 * time; the per-source rate limit (429 + Retry-After); a source's full share of the backlog (503 +
 * Retry-After) while another source's events are still taken. The CRM is a stand-in whose reads wait
 * for the test's signal.
 */
import * as crypto from 'node:crypto';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SHARED_STATUSES } from '../../src/services/activation/service-status.js';
import { OwnChanges } from '../../src/services/events/own-changes.js';
import { webhookRoute } from '../../src/services/events/webhook-endpoint.js';
import { WebhookProcessor, type WebhookOutcome } from '../../src/services/events/webhooks.js';
import type { CrmClient } from '../../src/services/uisp/crm-client.js';
import { createLogger } from '../../src/slack/logging.js';
import { memoryClaims } from '../support/store.js';

vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

const TOKEN = 'hook-SECRET-4b1d-very-long-random-string';
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

let server: Server | undefined;
let release: () => void = () => undefined;
afterEach(async () => {
  release();
  if (server) {
    server.closeAllConnections();
    await new Promise((resolve) => server!.close(resolve));
  }
  server = undefined;
  vi.mocked(crypto.timingSafeEqual).mockClear();
});

/** The route on a loopback server, with a processor whose CRM reads wait until `release()`. */
async function start(options: { ratePerMinute?: number; maxWaitingPerSource?: number; now?: () => number } = {}) {
  const parked = new Promise<void>((resolve) => (release = resolve));
  const asked: string[] = [];
  const crm = {
    getWebhookEvent: async (id: string) => {
      asked.push(id);
      await parked;
      // A kind SubOps does not report: processing ends once the CRM confirms it.
      return { uuid: id, entity: 'invoice', changeType: 'insert', entityId: 1, eventName: null };
    },
  } as unknown as CrmClient;
  const outcomes: WebhookOutcome[] = [];
  const lines: string[] = [];
  const logger = createLogger('debug', { write: (line: string) => void lines.push(line) });
  const processor = new WebhookProcessor({
    crm,
    claims: memoryClaims(),
    ownChanges: new OwnChanges(),
    statuses: SHARED_STATUSES,
    logger,
    concurrency: 1,
    ...(options.maxWaitingPerSource !== undefined && { maxWaitingPerSource: options.maxWaitingPerSource }),
    onOutcome: (_entity, outcome) => outcomes.push(outcome),
  });
  const route = webhookRoute({ processor, token: TOKEN, ...(options.ratePerMinute !== undefined && { ratePerMinute: options.ratePerMinute }), ...(options.now && { now: options.now }) });
  server = createServer((req, res) => void route(req, res));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/uisp/webhook`;
  return { url, processor, asked, outcomes, lines };
}

/** POSTs from `from` (a loopback address: a source of its own). */
function post(url: string, { from = '127.0.0.1', headers = {}, body = '{}' }: { from?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', localAddress: from, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const event = (n: number) => JSON.stringify({ uuid: uuid(n) });

describe('the token', () => {
  it('is taken from the URL, the X-Webhook-Token header or an Authorization bearer', async () => {
    const { url, processor, asked } = await start();
    expect((await post(`${url}?token=${encodeURIComponent(TOKEN)}`, { body: event(1) })).status).toBe(200);
    expect((await post(url, { headers: { 'x-webhook-token': TOKEN }, body: event(2) })).status).toBe(200);
    expect((await post(url, { headers: { authorization: `Bearer ${TOKEN}` }, body: event(3) })).status).toBe(200);
    release();
    await processor.idle();
    expect(asked).toEqual([uuid(1), uuid(2), uuid(3)]);
  });

  it('a wrong or missing one gets 401, compared in constant time on digests whatever its length; nothing is read', async () => {
    const { url, asked, outcomes, lines } = await start();
    const compare = vi.mocked(crypto.timingSafeEqual);
    const wrong = [
      await post(url, { body: event(1) }),
      await post(`${url}?token=x`, { body: event(1) }),
      await post(`${url}?token=${TOKEN.slice(0, -1)}`, { body: event(1) }),
      await post(url, { headers: { 'x-webhook-token': `${TOKEN}-and-more` }, body: event(1) }),
      await post(url, { headers: { authorization: `Basic ${TOKEN}` }, body: event(1) }),
    ];
    expect(wrong.map((r) => r.status)).toEqual([401, 401, 401, 401, 401]);
    // Every given candidate compared in full: equal-length SHA-256 digests, never the raw strings.
    expect(compare).toHaveBeenCalledTimes(3);
    for (const [a, b] of compare.mock.calls) expect([(a as Buffer).length, (b as Buffer).length]).toEqual([32, 32]);
    expect(asked).toEqual([]);
    expect(outcomes).toEqual(['refused', 'refused', 'refused', 'refused', 'refused']);
    expect(lines.join('')).not.toContain(TOKEN);
  });
});

describe('per-source limits', () => {
  it('past WEBHOOK_RATE_PER_MINUTE an address gets 429 with Retry-After (logged once); another address is still served', async () => {
    let t = 5_000_000;
    const { url, processor, asked, outcomes, lines } = await start({ ratePerMinute: 4, now: () => t });
    const withToken = `${url}?token=${TOKEN}`;
    const flood = [];
    for (let n = 1; n <= 10; n++) flood.push(await post(withToken, { from: '127.0.0.2', body: event(n) }));
    expect(flood.map((r) => r.status)).toEqual([200, 200, 200, 200, 429, 429, 429, 429, 429, 429]);
    expect(flood.slice(4).map((r) => r.headers['retry-after'])).toEqual(Array(6).fill('15'));
    expect(JSON.parse(flood[4]!.body)).toEqual({ ok: false, error: 'too many deliveries from this address, send again later' });
    // A wrong token is answered for what it is: its refusals are counted apart (below).
    expect((await post(`${url}?token=guess`, { from: '127.0.0.2', body: event(99) })).status).toBe(401);
    // UISP's address has its own allowance.
    expect((await post(withToken, { from: '127.0.0.1', body: event(100) })).status).toBe(200);
    t += 15_000;
    expect((await post(withToken, { from: '127.0.0.2', body: event(11) })).status).toBe(200);
    release();
    await processor.idle();
    expect(asked).toHaveLength(6);
    expect(outcomes.filter((o) => o === 'limited')).toHaveLength(6);
    expect(lines.filter((line) => line.includes('exceed WEBHOOK_RATE_PER_MINUTE'))).toHaveLength(1);
  });

  it('wrong-token posts never use up an address’s deliveries: UISP behind the same address (a proxy, NAT) is still served', async () => {
    const { url, processor, asked, outcomes, lines } = await start({ ratePerMinute: 20 });
    const wrong = [];
    for (let n = 1; n <= 50; n++) wrong.push((await post(`${url}?token=guess-${n}`, { body: event(n) })).status);
    // Refusals have a bucket of their own: past it, wrong tokens get 429 (logged once, not once each).
    expect(wrong).toEqual([...Array(20).fill(401), ...Array(30).fill(429)]);
    const genuine = await post(`${url}?token=${TOKEN}`, { body: event(100) });
    expect(genuine.status).toBe(200);
    expect(lines.filter((line) => line.includes('refused a webhook delivery'))).toHaveLength(20);
    expect(lines.filter((line) => line.includes('wrong WEBHOOK_TOKEN'))).toHaveLength(1);
    release();
    await processor.idle();
    expect(asked).toEqual([uuid(100)]);
    expect(outcomes.filter((o) => o === 'refused')).toHaveLength(20);
    expect(outcomes.filter((o) => o === 'limited')).toHaveLength(30);
  });

  it('an address whose share of the backlog is full gets 503 with Retry-After; another address’s events are still taken and come next', async () => {
    const { url, processor, asked, outcomes } = await start({ maxWaitingPerSource: 3 });
    const withToken = `${url}?token=${TOKEN}`;
    // One running (parked at its CRM read), three waiting, the fifth turned away.
    const flood = [];
    for (let n = 1; n <= 5; n++) flood.push(await post(withToken, { from: '127.0.0.2', body: event(n) }));
    expect(flood.map((r) => r.status)).toEqual([200, 200, 200, 200, 503]);
    expect(flood[4]!.headers['retry-after']).toBe('60');
    expect(JSON.parse(flood[4]!.body).error).toMatch(/^busy/);
    expect(outcomes).toEqual(['busy']);
    const real = await post(withToken, { from: '127.0.0.1', body: event(50) });
    expect(real.status).toBe(200);
    release();
    await processor.idle();
    // The running one, one turn of the flooding address, then the other address's event.
    expect(asked.indexOf(uuid(50))).toBe(2);
    // The refused one is not remembered: UISP's next attempt is taken.
    expect((await post(withToken, { from: '127.0.0.2', body: event(5) })).status).toBe(200);
    await processor.idle();
  });
});
