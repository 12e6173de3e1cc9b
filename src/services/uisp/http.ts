/**
 * The one HTTP core for both UISP systems: auth headers, JSON, timeouts, retries and typed errors.
 * Per-system clients (crm-client.ts, nms-client.ts) sit on top and never touch undici directly.
 */
import type { Agent, Dispatcher } from 'undici';
import type { z } from 'zod';
import {
  UispAuthError,
  UispBadResponseError,
  UispError,
  UispNotFoundError,
  UispRejectedError,
  UispUnavailableError,
  UispValidationError,
  type UispRequestInfo,
  type UispSystem,
} from './errors.js';
import { endpointOf, type UispObserver } from './exchange.js';
import { UispErrorBodySchema } from './schemas.js';

export interface UispTimeouts {
  /** TCP/TLS connect; applies to the shared dispatcher. */
  connectMs: number;
  /** Time to the response headers, and between body chunks. */
  requestMs: number;
  /**
   * Total time for a request: connect, headers and the whole body. For a read this is the budget of
   * the whole read, its retries and backoff included (each attempt gets only what is left, and one
   * that ran out of it is not started again); a write's single attempt gets it all. undici's own
   * timeouts are per chunk, so a proxy trickling a body would otherwise hold a step (and its locks)
   * for ever.
   */
  deadlineMs?: number;
}

/** The total request deadline when none is configured (UISP_DEADLINE_MS). */
export const DEFAULT_DEADLINE_MS = 30_000;

/**
 * Least time a read's deadline must still have left, after the backoff, for another attempt to be
 * started: less would only end in "no complete answer" a moment later.
 */
export const MIN_RETRY_BUDGET_MS = 100;

export interface RetryPolicy {
  /**
   * Extra attempts for GETs after a 5xx, 429, timeout or reset, all within the read's deadline
   * (UispTimeouts.deadlineMs). Writes are never repeated here: the services layer retries a write
   * step only after reading UISP again (services/converge.ts).
   */
  retries: number;
  /** First backoff delay; doubles each attempt. */
  backoffMs: number;
}

export interface UispHttpOptions {
  system: UispSystem;
  /** e.g. https://uisp.example.net/crm/api/v1.0 */
  baseUrl: string;
  headers: Record<string, string>;
  /** A dispatcher (a MockAgent in tests), or the shared one made on first use (`createUispDispatcher`). */
  dispatcher: Dispatcher | LazyDispatcher;
  timeouts: UispTimeouts;
  retry: RetryPolicy;
  /** Told of every attempt and its outcome (metrics, SubOps' own writes); optional. */
  observer?: UispObserver | undefined;
}

/** A list value is sent as the key repeated (`id=a&id=b`), as the NMS Swagger's array parameters are. */
export type Query = Record<string, string | number | boolean | readonly string[] | undefined | null>;

/** Connections per origin when the caller names no pool size (UISP_POOL_CONNECTIONS). */
export const DEFAULT_POOL_CONNECTIONS = 64;

/**
 * undici, loaded with the first UISP request rather than at start: `subops serve` listens before any
 * UISP request is made, and undici is a large share of what it would otherwise load first.
 */
let undici: Promise<typeof import('undici')> | undefined;
const loadUndici = () => (undici ??= import('undici'));

/** The shared dispatcher, made (and undici loaded) when the first request needs it. */
export class LazyDispatcher {
  private agent: Promise<Agent> | undefined;
  constructor(private readonly make: (loaded: typeof import('undici')) => Agent) {}

  get(): Promise<Dispatcher> {
    return (this.agent ??= loadUndici().then(this.make));
  }

  async close(): Promise<void> {
    if (this.agent) await (await this.agent).close();
  }

  async destroy(): Promise<void> {
    if (this.agent) await (await this.agent).destroy();
  }
}

/**
 * A keep-alive dispatcher shared by both systems: undici keeps one pool of at most `connections` per
 * origin. Requests beyond it queue for a free connection, so the pool must cover the requests a busy
 * bot has in flight (200 agents' /payments at once need about 200 for one round trip each).
 */
export function createUispDispatcher(timeouts: UispTimeouts, connections = DEFAULT_POOL_CONNECTIONS): LazyDispatcher {
  return new LazyDispatcher(
    ({ Agent }) =>
      new Agent({
        connect: { timeout: timeouts.connectMs },
        keepAliveTimeout: 10_000,
        headersTimeout: timeouts.requestMs,
        bodyTimeout: timeouts.requestMs,
        connections,
      }),
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class UispHttp {
  readonly system: UispSystem;
  private readonly base: URL;

  constructor(private readonly options: UispHttpOptions) {
    this.system = options.system;
    this.base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
  }

  get<S extends z.ZodType>(path: string, schema: S, query?: Query): Promise<z.output<S>> {
    return this.send('GET', path, schema, { query });
  }

  /**
   * A GET whose answer is read now but decoded and checked against `schema` only when the returned
   * function is called. A reader that holds answers for a while (the payments read-ahead) then keeps one
   * string per answer rather than the thousands of objects it decodes to, which would outlive V8's young
   * generation and pile up in the old one. Failing to get an answer throws here (after the retries); a
   * body that is not JSON or not the schema throws when decoded.
   */
  async getLater<S extends z.ZodType>(path: string, schema: S, query?: Query): Promise<() => z.output<S>> {
    const answer = await this.exchange('GET', path, { query }, { decodeNow: false });
    return () => checked(answer, schema);
  }

  post<S extends z.ZodType>(path: string, body: unknown, schema: S): Promise<z.output<S>> {
    return this.send('POST', path, schema, { body });
  }

  patch<S extends z.ZodType>(path: string, body: unknown, schema: S): Promise<z.output<S>> {
    return this.send('PATCH', path, schema, { body });
  }

  put<S extends z.ZodType>(path: string, body: unknown, schema: S): Promise<z.output<S>> {
    return this.send('PUT', path, schema, { body });
  }

  delete<S extends z.ZodType>(path: string, schema: S): Promise<z.output<S>> {
    return this.send('DELETE', path, schema, {});
  }

  private async send<S extends z.ZodType>(method: string, path: string, schema: S, request: { query?: Query | undefined; body?: unknown }): Promise<z.output<S>> {
    return checked(await this.exchange(method, path, request, { decodeNow: true }), schema);
  }

  /** Sends the request (a GET again after a failure to answer, see RetryPolicy) and returns its successful answer. */
  private async exchange(method: string, path: string, { query, body }: { query?: Query | undefined; body?: unknown }, { decodeNow }: { decodeNow: boolean }): Promise<Answer> {
    const url = new URL(path.replace(/^\//, ''), this.base);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (Array.isArray(value)) for (const each of value as readonly string[]) url.searchParams.append(key, each);
      else if (value !== undefined && value !== null) url.searchParams.set(key, String(value));
    }
    const info: UispRequestInfo = { system: this.system, method, path: url.pathname + url.search };
    const attempts = method === 'GET' ? this.options.retry.retries + 1 : 1;
    // One budget for the whole exchange: a read's retries and backoff come out of it, so a slow UISP
    // ends the step at the deadline rather than at (retries + 1) deadlines.
    const deadlineMs = this.options.timeouts.deadlineMs ?? DEFAULT_DEADLINE_MS;
    const ends = performance.now() + deadlineMs;
    const left = () => ends - performance.now();
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.observed(info, url, async () => {
          const answer = await this.once(method, url, body, info, { deadlineMs, attempt, leftMs: Math.max(left(), 1) });
          return decodeNow ? decoded(answer) : answer;
        });
      } catch (error) {
        // An attempt cut off by the deadline used up the whole budget: nothing is left to retry with.
        if (!(error instanceof UispUnavailableError) || attempt >= attempts || outOfTime.has(error)) throw error;
        // A 429's Retry-After is UISP telling us how long to wait; never wait less than our own backoff.
        const backoffMs = Math.max(this.options.retry.backoffMs * 2 ** (attempt - 1), Math.min(error.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
        if (left() - backoffMs < MIN_RETRY_BUDGET_MS) throw noTimeLeft(error, deadlineMs, attempt);
        await sleep(backoffMs);
      }
    }
  }

  /** Runs one attempt, reporting it to the observer when there is one (with the body when it was decoded). */
  private async observed(info: UispRequestInfo, url: URL, attempt: () => Promise<Answer>): Promise<Answer> {
    const finish = this.options.observer?.request({ system: info.system, method: info.method, path: url.pathname, endpoint: endpointOf(url.pathname) });
    if (!finish) return attempt();
    const started = performance.now();
    try {
      const answer = await attempt();
      finish({ status: '2xx', durationMs: performance.now() - started, ...('json' in answer && { body: answer.json }) });
      return answer;
    } catch (error) {
      // A 2xx whose body was not JSON still got an answer; a timeout or reset got none.
      const status = error instanceof UispError && error.status !== undefined ? (error.status < 300 ? '2xx' : String(error.status)) : 'none';
      finish({ status, durationMs: performance.now() - started });
      throw error;
    }
  }

  /**
   * One attempt: a 2xx answer's text, or the error its status or failure means. It is given what is
   * left of the exchange's deadline (`leftMs`); running out of that is "no complete answer within
   * `deadlineMs`", with the number of attempts when there was more than one.
   */
  private async once(method: string, url: URL, body: unknown, info: UispRequestInfo, { deadlineMs, attempt, leftMs }: { deadlineMs: number; attempt: number; leftMs: number }): Promise<Answer> {
    const headers: Record<string, string> = { accept: 'application/json', ...this.options.headers };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const { timeouts } = this.options;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), leftMs);
    const unavailable = (error: unknown, status?: number) => {
      if (!deadline.signal.aborted) return new UispUnavailableError(info, describeNetworkError(error, timeouts), status, { cause: error });
      const failure = new UispUnavailableError(info, `no complete answer within ${deadlineMs} ms${attempt > 1 ? ` (${attempt} attempts)` : ''}`, status, { cause: error });
      outOfTime.add(failure);
      return failure;
    };
    let response: Dispatcher.ResponseData;
    let text: string;
    const { dispatcher } = this.options;
    try {
      try {
        const { request } = await loadUndici();
        response = await request(url, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          dispatcher: dispatcher instanceof LazyDispatcher ? await dispatcher.get() : dispatcher,
          headersTimeout: timeouts.requestMs,
          bodyTimeout: timeouts.requestMs,
          signal: deadline.signal,
        });
      } catch (error) {
        throw unavailable(error);
      }
      try {
        text = await response.body.text();
      } catch (error) {
        throw unavailable(error, response.statusCode);
      }
    } finally {
      clearTimeout(timer);
    }
    const status = response.statusCode;
    if (status >= 200 && status < 300) return { info, status, text };
    throw errorForStatus(info, status, text, retryAfterMs(response.headers['retry-after']));
  }
}

/** Failures of an attempt cut off by the exchange's deadline: nothing is left of it for another. */
const outOfTime = new WeakSet<UispUnavailableError>();

/**
 * A read that failed and has too little of its deadline left for another attempt: the failure, as
 * "no complete answer within the deadline", with the attempts made and what the last one got.
 */
function noTimeLeft(last: UispUnavailableError, deadlineMs: number, attempts: number): UispUnavailableError {
  const detail = last.message.slice(`${last.system.toUpperCase()} ${last.method} ${last.path}: `.length);
  const made = `${attempts} attempt${attempts === 1 ? '' : 's'}`;
  return new UispUnavailableError(last, `no complete answer within ${deadlineMs} ms (${made}; the last: ${detail})`, last.status, { cause: last }, last.retryAfterMs);
}

/** A successful answer: its text as read, or its JSON once decoded (null for an empty body). */
type Answer = { info: UispRequestInfo; status: number } & ({ text: string } | { json: unknown });

function decoded(answer: Answer): Answer & { json: unknown } {
  if ('json' in answer) return answer;
  const { info, status, text } = answer;
  if (text.trim() === '') return { info, status, json: null };
  try {
    return { info, status, json: JSON.parse(text) };
  } catch {
    throw new UispBadResponseError(info, 'body is not JSON', status);
  }
}

/** The answer's JSON as the schema reads it, or the first way it differs. */
function checked<S extends z.ZodType>(answer: Answer, schema: S): z.output<S> {
  const { info, json } = decoded(answer);
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UispBadResponseError(info, `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** Longest Retry-After honoured; past that the read fails rather than holding an agent's request. */
const MAX_RETRY_AFTER_MS = 10_000;

/** Retry-After in seconds (UISP's form) or as an HTTP date, in ms; undefined when absent or unreadable. */
function retryAfterMs(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function errorForStatus(info: UispRequestInfo, status: number, text: string, retryAfter?: number): UispError {
  let parsedBody: z.output<typeof UispErrorBodySchema> | undefined;
  try {
    const result = UispErrorBodySchema.safeParse(JSON.parse(text));
    if (result.success) parsedBody = result.data;
  } catch {
    // Not JSON (a proxy's HTML error page, say): the status code alone decides.
  }
  const message = parsedBody?.message ?? parsedBody?.error;
  if (status === 401 || status === 403) return new UispAuthError(info, status);
  if (status === 404) return new UispNotFoundError(info, message ? `${message} (HTTP 404)` : undefined);
  if (status === 422 || (status === 400 && parsedBody?.errors)) {
    const fieldErrors: Record<string, string[]> = {};
    for (const [field, errors] of Object.entries(parsedBody?.errors ?? {})) {
      fieldErrors[field] = Array.isArray(errors) ? errors : [errors];
    }
    return new UispValidationError(info, fieldErrors, message, status);
  }
  if (status === 429 || status >= 500) {
    return new UispUnavailableError(info, `UISP is unavailable (HTTP ${status}${message ? `: ${message}` : ''})`, status, {}, retryAfter);
  }
  return new UispRejectedError(info, status, message);
}

function describeNetworkError(error: unknown, timeouts: UispTimeouts): string {
  const code = (error as { code?: string } | undefined)?.code;
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `could not connect within ${timeouts.connectMs} ms`;
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return `no answer within ${timeouts.requestMs} ms`;
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'connection reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    default:
      return `network error${code ? ` (${code})` : ''}`;
  }
}
