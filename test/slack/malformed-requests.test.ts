/**
 * Malformed and unauthenticated requests, sent byte for byte over a socket to every kind of listener
 * SubOps runs: the Slack receiver (HTTP mode, behind src/slack/inbound.ts) and the small listener of
 * src/services/events/http-listener.ts (the webhook listener on WEBHOOK_PORT in Socket Mode, the ops
 * listener). Each gets a 4xx (500 for a handler that fails), and a normal request afterwards still
 * succeeds: the process is alive and serving. Every request asks the server to close the connection,
 * so an answer is complete when the socket closes: nothing waits for a quiet period.
 */
import { randomUUID } from 'node:crypto';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startEventListener } from '../../src/app.js';
import { signSlackRequest } from '../../src/playground/slack-sender.js';
import { MAX_REQUEST_BODY_BYTES, startHttpListener, type Route, type RunningListener } from '../../src/services/events/http-listener.js';
import { HTTPReceiver } from '../../src/slack/bolt.js';
import { guardInbound, MAX_SLACK_BODY_BYTES } from '../../src/slack/inbound.js';
import { boltLogger, createLogger } from '../../src/slack/logging.js';
import { SIGNING_SECRET, startHarness, type Harness } from './harness.js';

interface RawReply {
  status: number;
  text: string;
}

/** Sends the parts as they are, then reads until the server closes the connection. */
function sendRaw(port: number, ...parts: (string | Buffer)[]): Promise<RawReply> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A reset after the answer (the server stopped reading a body it refused) does not matter: the answer does.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1] ?? 0), text });
    });
    socket.on('connect', () => {
      for (const part of parts) socket.write(part);
    });
  });
}

const CRLF = '\r\n';
const head = (requestLine: string, headers: string[]) => [requestLine, 'Host: 127.0.0.1', 'Connection: close', ...headers, '', ''].join(CRLF);
const FORM = 'Content-Type: application/x-www-form-urlencoded';
const nowSeconds = () => Math.floor(Date.now() / 1000);
/** Signature headers that look right (v0=64 hex, a fresh timestamp) but sign nothing in particular. */
const plausibleSignature = () => [`X-Slack-Request-Timestamp: ${nowSeconds()}`, `X-Slack-Signature: v0=${'ab'.repeat(32)}`];
const signedHeaders = (body: string, secret = SIGNING_SECRET, timestamp = nowSeconds()) => [`X-Slack-Request-Timestamp: ${timestamp}`, `X-Slack-Signature: ${signSlackRequest(secret, timestamp, body)}`];
const chunk = (data: string | Buffer) => Buffer.concat([Buffer.from(`${Buffer.byteLength(data).toString(16)}${CRLF}`), Buffer.from(data), Buffer.from(CRLF)]);

/** What every listener gets alike: Node's parser refuses them, or the URL does not parse. */
function parserCases(path: string): [string, (string | Buffer)[], number][] {
  return [
    ['a request line with a URL that does not parse (GET //[)', [head('GET //[ HTTP/1.1', [])], 400],
    ['an absolute URL that does not parse', [head('GET http://[/x HTTP/1.1', [])], 400],
    ['a request line that is not HTTP', [`NOT HTTP AT ALL${CRLF}${CRLF}`], 400],
    ['a header over 16 KB', [head(`GET ${path} HTTP/1.1`, [`X-Big: ${'a'.repeat(20_000)}`])], 431],
    ['a header name with a space', [head(`GET ${path} HTTP/1.1`, ['Bad Header: x'])], 400],
    ['a header value with a control character', [head(`GET ${path} HTTP/1.1`, ['X-Bad: a\u0001b'])], 400],
    ['Content-Length that is not a number', [head(`POST ${path} HTTP/1.1`, ['Content-Length: ten']), 'x'.repeat(10)], 400],
    ['both Content-Length and chunked', [head(`POST ${path} HTTP/1.1`, ['Content-Length: 5', 'Transfer-Encoding: chunked']), `0${CRLF}${CRLF}`], 400],
  ];
}

describe('the Slack receiver (HTTP mode) and the webhook listener (Socket Mode)', () => {
  let h: Harness | undefined;
  let listener: RunningListener | undefined;
  const TOKEN = 'hook-SECRET-malformed-2b7e91';
  afterEach(async () => {
    vi.restoreAllMocks();
    await listener?.close();
    await h?.close();
    listener = undefined;
    h = undefined;
  });

  it('the Slack receiver answers each malformed, oversized or unsigned request with a 4xx, then serves a signed command', async () => {
    h = await startHarness({ events: {}, env: { WEBHOOK_TOKEN: TOKEN } });
    const port = Number(new URL(h.origin).port);
    const events = '/slack/events';
    const unsignedBody = new URLSearchParams({ command: '/subops', text: 'help', user_id: 'U0X', channel_id: 'C0X' }).toString();
    const over = MAX_SLACK_BODY_BYTES + 1;
    const cases: [string, (string | Buffer)[], number][] = [
      ...parserCases(events),
      ['a POST to //[', [head('POST //[ HTTP/1.1', [FORM, 'Content-Length: 2', ...plausibleSignature()]), 'a='], 400],
      ['a bad chunk size', [head(`POST ${events} HTTP/1.1`, [FORM, 'Transfer-Encoding: chunked', ...plausibleSignature()]), `zz${CRLF}hello${CRLF}0${CRLF}${CRLF}`], 400],
      ['a chunk longer than it said', [head(`POST ${events} HTTP/1.1`, [FORM, 'Transfer-Encoding: chunked', ...plausibleSignature()]), `2${CRLF}hello${CRLF}0${CRLF}${CRLF}`], 400],
      // Refused from the header alone: no body is sent, and the answer comes all the same.
      ['a Content-Length over the limit', [head(`POST ${events} HTTP/1.1`, [FORM, `Content-Length: ${over}`, ...plausibleSignature()])], 413],
      ['a chunked body that grows past the limit', [head(`POST ${events} HTTP/1.1`, [FORM, 'Transfer-Encoding: chunked', ...plausibleSignature()]), chunk(Buffer.alloc(over, 'a'))], 413],
      ['an unsigned body', [head(`POST ${events} HTTP/1.1`, [FORM, `Content-Length: ${unsignedBody.length}`]), unsignedBody], 401],
      ['a body signed with another secret', [head(`POST ${events} HTTP/1.1`, [FORM, `Content-Length: ${unsignedBody.length}`, ...signedHeaders(unsignedBody, 'not-the-secret')]), unsignedBody], 401],
      ['a correct signature ten minutes old', [head(`POST ${events} HTTP/1.1`, [FORM, `Content-Length: ${unsignedBody.length}`, ...signedHeaders(unsignedBody, SIGNING_SECRET, nowSeconds() - 600)]), unsignedBody], 401],
      ['a correct signature ten minutes ahead', [head(`POST ${events} HTTP/1.1`, [FORM, `Content-Length: ${unsignedBody.length}`, ...signedHeaders(unsignedBody, SIGNING_SECRET, nowSeconds() + 600)]), unsignedBody], 401],
      ['a signature that is not v0 hex', [head(`POST ${events} HTTP/1.1`, [FORM, `Content-Length: ${unsignedBody.length}`, `X-Slack-Request-Timestamp: ${nowSeconds()}`, 'X-Slack-Signature: v0=zz']), unsignedBody], 401],
      // Refused before a byte of the body is read: the 3 MB are never sent.
      ['an unsigned 3 MB body, not sent', [head(`POST ${events} HTTP/1.1`, [FORM, 'Content-Length: 3000000'])], 401],
      ['a signed body that is not a Slack payload', [head(`POST ${events} HTTP/1.1`, [FORM, 'Content-Length: 12', ...signedHeaders('payload=null')]), 'payload=null'], 400],
      ['a webhook body over its limit', [head(`POST /uisp/webhook?token=${TOKEN} HTTP/1.1`, ['Content-Type: application/json', `Content-Length: ${MAX_REQUEST_BODY_BYTES + 1}`])], 413],
      ['a webhook without its token', [head('POST /uisp/webhook HTTP/1.1', ['Content-Type: application/json', 'Content-Length: 2']), '{}'], 401],
    ];
    for (const [name, parts, status] of cases) {
      const reply = await sendRaw(port, ...parts);
      expect(reply.status, `${name}: ${reply.text.slice(0, 80)}`).toBe(status);
    }
    // Nothing reached a listener; the process serves on.
    expect(h.fake.calls.map((c) => c.method)).toEqual(['auth.test', 'conversations.info']);
    expect((await h.command('/subops', 'help')).body.text).toBe('SubOps commands');
    // Slack's SSL check comes unsigned; it is still answered.
    const sslCheck = 'ssl_check=1&token=legacy-token';
    expect((await sendRaw(port, head(`POST ${events} HTTP/1.1`, [FORM, `Content-Length: ${sslCheck.length}`]), sslCheck)).status).toBe(200);
    expect(h.rawLog()).not.toContain(TOKEN);
  });

  it('never parses an unsigned or wrongly signed body, and never reads one it can refuse from the headers', async () => {
    h = await startHarness();
    const port = Number(new URL(h.origin).port);
    const parse = vi.spyOn(JSON, 'parse');
    const marker = `never-parsed-${randomUUID()}`;
    const payload = new URLSearchParams({ payload: JSON.stringify({ type: 'block_actions', user: { id: marker }, actions: [{ action_id: 'x' }] }) }).toString();
    const json = JSON.stringify({ type: 'event_callback', event_id: marker, event: { type: 'app_home_opened', user: marker } });
    // Not JSON at all: a parser would answer 400; unsigned, the answer is 401.
    const notJson = `{"type": ${marker}`;
    for (const [body, contentType] of [
      [payload, 'application/x-www-form-urlencoded'],
      [json, 'application/json'],
      [notJson, 'application/json'],
    ] as const) {
      expect((await h.sender.send(body, contentType, { signature: signSlackRequest('not-the-secret', nowSeconds(), body) })).status, body).toBe(401);
      const unsigned = await sendRaw(port, head('POST /slack/events HTTP/1.1', [`Content-Type: ${contentType}`, `Content-Length: ${Buffer.byteLength(body)}`]), body);
      expect(unsigned.status, body).toBe(401);
    }
    expect(parse.mock.calls.filter(([text]) => String(text).includes(marker))).toEqual([]);
    expect(h.logs.filter((l) => l.msg === 'refused a request without a valid Slack signature (HTTP 401)')).toHaveLength(6);
    // The same body, correctly signed, is parsed (and refused as not a Slack payload).
    expect((await h.sender.send(notJson, 'application/json')).status).toBe(400);
    expect(parse.mock.calls.some(([text]) => String(text).includes(marker))).toBe(true);
  });

  it('the webhook listener of Socket Mode answers each malformed request with a 4xx, then takes a webhook', async () => {
    h = await startHarness({ events: {}, env: { WEBHOOK_TOKEN: TOKEN } });
    const events = h.events!;
    listener = await startEventListener({ ...events, settings: { ...events.settings, webhookPort: 0 } }, { host: '127.0.0.1' });
    const port = listener!.port;
    const webhook = `/uisp/webhook?token=${TOKEN}`;
    const cases: [string, (string | Buffer)[], number][] = [
      ...parserCases(webhook),
      ['a bad chunk size', [head(`POST ${webhook} HTTP/1.1`, ['Content-Type: application/json', 'Transfer-Encoding: chunked']), `zz${CRLF}{}${CRLF}0${CRLF}${CRLF}`], 400],
      ['a Content-Length over the limit', [head(`POST ${webhook} HTTP/1.1`, ['Content-Type: application/json', `Content-Length: ${MAX_REQUEST_BODY_BYTES + 1}`])], 413],
      ['a chunked body that grows past the limit', [head(`POST ${webhook} HTTP/1.1`, ['Content-Type: application/json', 'Transfer-Encoding: chunked']), chunk(Buffer.alloc(MAX_REQUEST_BODY_BYTES + 1, 'a'))], 413],
      ['no token', [head('POST /uisp/webhook HTTP/1.1', ['Content-Type: application/json', 'Content-Length: 2']), '{}'], 401],
      ['a wrong token', [head('POST /uisp/webhook?token=wrong HTTP/1.1', ['Content-Type: application/json', 'Content-Length: 2']), '{}'], 401],
      ['a body that is not JSON', [head(`POST ${webhook} HTTP/1.1`, ['Content-Type: application/json', 'Content-Length: 3']), '{x}'], 400],
      ['a path that names a host (//uisp/webhook)', [head('POST //uisp/webhook HTTP/1.1', ['Content-Length: 2']), '{}'], 404],
      ['an unknown path with a body', [head('POST /nowhere HTTP/1.1', ['Content-Length: 3000000'])], 404],
    ];
    for (const [name, parts, status] of cases) {
      const reply = await sendRaw(port, ...parts);
      expect(reply.status, `${name}: ${reply.text.slice(0, 80)}`).toBe(status);
    }
    const uuid = randomUUID();
    const body = JSON.stringify({ uuid, changeType: 'edit', entity: 'client', entityId: '1', eventName: 'client.edit' });
    const reply = await sendRaw(port, head(`POST ${webhook} HTTP/1.1`, ['Content-Type: application/json', `Content-Length: ${body.length}`]), body);
    expect(reply.status).toBe(200);
    await h.settled();
    expect(h.uisp.sim.requests.map((r) => r.path)).toContain(`/crm/api/v1.0/webhook-events/${uuid}`);
  });

  it('the ops listener (/healthz, /metrics) answers each malformed request with a 4xx, then serves /metrics', async () => {
    h = await startHarness({ events: {} });
    const port = Number(new URL(h.opsOrigin).port);
    const cases: [string, (string | Buffer)[], number][] = [
      ...parserCases('/metrics'),
      ['a body over the limit', [head('GET /metrics HTTP/1.1', [`Content-Length: ${MAX_REQUEST_BODY_BYTES + 1}`])], 413],
      ['a POST to a GET route', [head('POST /metrics HTTP/1.1', ['Content-Length: 2']), '{}'], 404],
    ];
    for (const [name, parts, status] of cases) {
      const reply = await sendRaw(port, ...parts);
      expect(reply.status, `${name}: ${reply.text.slice(0, 80)}`).toBe(status);
    }
    const metrics = await sendRaw(port, head('GET /metrics HTTP/1.1', []));
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('subops_');
  });
});

describe('a request handler that fails', () => {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('debug', { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  const failingRoutes: Route[] = [
    {
      method: 'GET',
      path: '/throws',
      handler: () => {
        throw new Error('handler threw');
      },
    },
    { method: 'GET', path: '/rejects', handler: async () => Promise.reject(new Error('handler rejected')) },
    {
      method: 'GET',
      path: '/throws-midway',
      handler: (_req, res) => {
        res.writeHead(200);
        res.write('partial');
        throw new Error('handler threw after it began');
      },
    },
    {
      method: 'GET',
      path: '/ok',
      handler: (_req, res) => {
        res.writeHead(200).end('ok');
      },
    },
  ];
  let stop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await stop?.();
    stop = undefined;
    lines.length = 0;
  });

  it('is answered 500 by the small listener and logged, and the listener serves on', async () => {
    const listener = await startHttpListener(failingRoutes, { port: 0, host: '127.0.0.1', logger });
    stop = () => listener.close();
    expect((await sendRaw(listener.port, head('GET /throws HTTP/1.1', []))).status).toBe(500);
    expect((await sendRaw(listener.port, head('GET /rejects HTTP/1.1', []))).status).toBe(500);
    // A response already under way is cut: the client sees it end early, never a second status line.
    const midway = await sendRaw(listener.port, head('GET /throws-midway HTTP/1.1', []));
    expect(midway.text).not.toContain(' 500 ');
    expect(midway.text.endsWith(`0${CRLF}${CRLF}`)).toBe(false);
    const ok = await sendRaw(listener.port, head('GET /ok HTTP/1.1', []));
    expect([ok.status, ok.text.slice(ok.text.indexOf(CRLF + CRLF))]).toEqual([200, `${CRLF}${CRLF}2${CRLF}ok${CRLF}0${CRLF}${CRLF}`]);
    expect(lines.filter((l) => l.msg === 'a request handler failed (HTTP 500)').map((l) => (l.err as { message: string }).message)).toEqual(['handler threw', 'handler rejected', 'handler threw after it began']);
  });

  it('is answered 500 on the Slack receiver too (Bolt for a throw, the gate for a rejection), and it serves on', async () => {
    const receiver = new HTTPReceiver({ signingSecret: SIGNING_SECRET, endpoints: ['/slack/events'], logger: boltLogger(logger), customRoutes: failingRoutes });
    receiver.requestListener = guardInbound(receiver.requestListener, { signingSecret: SIGNING_SECRET, endpoints: ['/slack/events'], logger });
    const server = await receiver.start({ port: 0, host: '127.0.0.1' });
    stop = () => receiver.stop();
    const { port } = server.address() as AddressInfo;
    expect((await sendRaw(port, head('GET /throws HTTP/1.1', []))).status).toBe(500);
    expect((await sendRaw(port, head('GET /rejects HTTP/1.1', []))).status).toBe(500);
    expect((await sendRaw(port, head('GET //[ HTTP/1.1', []))).status).toBe(400);
    expect((await sendRaw(port, head('GET /nowhere HTTP/1.1', []))).status).toBe(404);
    const ok = await sendRaw(port, head('GET /ok HTTP/1.1', []));
    expect([ok.status, ok.text.slice(ok.text.indexOf(CRLF + CRLF))]).toEqual([200, `${CRLF}${CRLF}2${CRLF}ok${CRLF}0${CRLF}${CRLF}`]);
    expect(lines.some((l) => l.msg === 'a request failed (HTTP 500)' && l.err === 'handler rejected')).toBe(true);
  });
});
