/**
 * A loopback fake of the Slack Web API (and of response_url endpoints) for the playground demo and
 * for every Slack test: a Bolt app pointed at `apiUrl` talks real HTTP to it, and the fake records
 * each call, keeps the channel and modal state Slack would, and fails on demand.
 */
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { apiError, duplicateIdProblems, isRecord, PLAYGROUND_WORKSPACE, type ApiArgs, type ApiResult, type MethodHandler } from './fake-slack-api.js';
import { FakeDirectory, type FakeChannel, type FakeUser } from './fake-slack-directory.js';
import { FakeFiles, type AddedFile, type FakeFile, type SlackFileObject } from './fake-slack-files.js';
import { FakeMessages, type FakeMessage } from './fake-slack-messages.js';
import { authProblem, parseApiRequest } from './fake-slack-request.js';
import { FakeViews } from './fake-slack-views.js';

export type { FakeMessage } from './fake-slack-messages.js';
export type { AddedFile, FakeFile, SlackFileObject } from './fake-slack-files.js';

export interface RecordedCall {
  method: string;
  args: Record<string, unknown>;
  token: string | undefined;
  /** Date.now() when the call arrived. */
  at: number;
  /** HTTP status and JSON body the fake answered with. */
  status: number;
  response: Record<string, unknown>;
}

export interface RecordedResponse {
  url: string;
  body: Record<string, unknown>;
}

export type FakeSlackFailure = { error: string } | { status: 429; retryAfter: number } | { status: number };

export interface FakeSlackOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  botUserId?: string;
  teamId?: string;
  users?: Record<string, FakeUser>;
  /** usergroup id -> member user ids */
  usergroups?: Record<string, string[]>;
  /** Names for conversations.info; any well-formed conversation id works without one. */
  channels?: Record<string, FakeChannel>;
}

export interface FakeSlack {
  /** e.g. 'http://127.0.0.1:PORT/api/'; pass as Bolt's clientOptions.slackApiUrl. */
  apiUrl: string;
  /** Every Web API call in arrival order, failed ones included. */
  calls: RecordedCall[];
  callsTo(method: string): RecordedCall[];
  /** The first matching call, already recorded or future; rejects listing the calls seen so far. */
  waitFor(method: string, predicate?: (call: RecordedCall) => boolean, timeoutMs?: number): Promise<RecordedCall>;
  /** A fresh response_url on the fake; posts to it land in `responses`. */
  responseUrl(): string;
  responses: RecordedResponse[];
  /**
   * The next call of `method` fails that way; repeated calls queue up failures. With `when`, only the next
   * call whose arguments it accepts (e.g. a post to one channel); other calls go through.
   */
  failNext(method: string, failure: FakeSlackFailure, when?: (args: ApiArgs) => boolean): void;
  /** Holds every call of `method` unanswered (and unrecorded) until the gate is released: a slow Slack, without sleeps. */
  hold(method: string): SlackGate;
  on(event: 'call', listener: (call: RecordedCall) => void): void;
  on(event: 'response', listener: (response: RecordedResponse) => void): void;
  messages(channel: string): FakeMessage[];
  /** view id -> current view (after open/update/push) */
  views: Map<string, Record<string, unknown>>;
  /** user id -> the Home tab last published for them (views.publish) */
  homes: Map<string, Record<string, unknown>>;
  /** file id -> file uploaded with files.uploadV2 (upload URL, bytes, completion). */
  files: Map<string, FakeFile>;
  /** A file the agent uploaded (a modal's file_input): served at its url_private to the bot token; reference the answer in a file_input state. */
  addFile(file: AddedFile): SlackFileObject;
  close(): Promise<void>;
}

export interface SlackGate {
  /** Resolves once `count` calls (default 1) are waiting at the gate. */
  arrived(count?: number): Promise<void>;
  /** Answers the waiting calls, in arrival order, and lets later ones through. */
  release(): void;
}

const DEFAULT_WAIT_MS = 5000;
// Retry-After for a 429 injected without one; Slack always sends the header with a 429.
const DEFAULT_RETRY_AFTER_SECONDS = 1;

export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  const fake = new LoopbackFakeSlack(options);
  await fake.listen(options.port ?? 0);
  return fake;
}

interface Reply {
  status: number;
  headers?: Record<string, string>;
  body: ApiResult;
}

class LoopbackFakeSlack implements FakeSlack {
  apiUrl = '';
  readonly calls: RecordedCall[] = [];
  readonly responses: RecordedResponse[] = [];
  readonly views: Map<string, Record<string, unknown>>;
  readonly homes: Map<string, Record<string, unknown>>;
  readonly files: Map<string, FakeFile>;

  private origin = '';
  // A listener that throws fails the run as an unhandled rejection rather than vanishing.
  private readonly server: Server = createServer((req, res) => void this.route(req, res));
  private readonly events = new EventEmitter();
  private readonly handlers: Record<string, MethodHandler>;
  private readonly failures = new Map<string, { failure: FakeSlackFailure; when: (args: ApiArgs) => boolean }[]>();
  private readonly messageStore: FakeMessages;
  private readonly fileStore = new FakeFiles(() => this.origin);
  private readonly issuedResponseUrls = new Set<string>();
  private readonly teamId: string;
  private readonly gates = new Map<string, Promise<void>>();

  constructor(options: FakeSlackOptions) {
    const identity = {
      ...PLAYGROUND_WORKSPACE,
      ...(options.teamId === undefined ? {} : { teamId: options.teamId }),
      ...(options.botUserId === undefined ? {} : { botUserId: options.botUserId }),
    };
    this.teamId = identity.teamId;
    this.messageStore = new FakeMessages(identity);
    const viewStore = new FakeViews(identity);
    this.views = viewStore.views;
    this.homes = viewStore.homes;
    const directory = new FakeDirectory(identity, {
      users: options.users ?? {},
      usergroups: options.usergroups ?? {},
      channels: options.channels ?? {},
    });
    this.files = this.fileStore.files;
    this.handlers = { ...this.messageStore.methods, ...viewStore.methods, ...directory.methods, ...this.fileStore.methods };
    // Every pending waitFor listens here; tests can easily have more than Node's default of 10.
    this.events.setMaxListeners(0);
  }

  listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        const { port: boundPort } = this.server.address() as AddressInfo;
        this.origin = `http://127.0.0.1:${boundPort}`;
        this.apiUrl = `${this.origin}/api/`;
        resolve();
      });
    });
  }

  addFile(file: AddedFile): SlackFileObject {
    return this.fileStore.add(file);
  }

  callsTo(method: string): RecordedCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  waitFor(method: string, predicate: (call: RecordedCall) => boolean = () => true, timeoutMs = DEFAULT_WAIT_MS): Promise<RecordedCall> {
    const matches = (call: RecordedCall) => call.method === method && predicate(call);
    return new Promise((resolve, reject) => {
      const earlier = this.calls.find(matches);
      if (earlier) return resolve(earlier);
      const stop = () => {
        clearTimeout(timer);
        this.events.off('call', onCall);
      };
      const onCall = (call: RecordedCall) => {
        try {
          if (!matches(call)) return;
          stop();
          resolve(call);
        } catch (error) {
          stop();
          reject(error);
        }
      };
      const timer = setTimeout(() => {
        stop();
        reject(new Error(this.describeWait(method, timeoutMs)));
      }, timeoutMs);
      this.events.on('call', onCall);
    });
  }

  responseUrl(): string {
    const path = `/commands/${this.teamId}/${this.issuedResponseUrls.size + 1}/${randomBytes(12).toString('hex')}`;
    this.issuedResponseUrls.add(path);
    return `${this.origin}${path}`;
  }

  failNext(method: string, failure: FakeSlackFailure, when: (args: ApiArgs) => boolean = () => true): void {
    this.failures.set(method, [...(this.failures.get(method) ?? []), { failure, when }]);
  }

  hold(method: string): SlackGate {
    let open!: () => void;
    this.gates.set(method, new Promise((resolve) => (open = resolve)));
    let waiting = 0;
    const arrivals = new EventEmitter();
    const onHeld = (heldMethod: string) => {
      if (heldMethod !== method) return;
      waiting += 1;
      arrivals.emit('arrival');
    };
    this.events.on('held', onHeld);
    return {
      arrived: (count = 1) =>
        new Promise((resolve) => {
          const check = () => {
            if (waiting < count) return;
            arrivals.off('arrival', check);
            resolve();
          };
          arrivals.on('arrival', check);
          check();
        }),
      release: () => {
        this.events.off('held', onHeld);
        this.gates.delete(method);
        open();
      },
    };
  }

  on(event: 'call', listener: (call: RecordedCall) => void): void;
  on(event: 'response', listener: (response: RecordedResponse) => void): void;
  on(event: 'call' | 'response', listener: ((call: RecordedCall) => void) | ((response: RecordedResponse) => void)): void {
    this.events.on(event, listener);
  }

  messages(channel: string): FakeMessage[] {
    return this.messageStore.list(channel);
  }

  close(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.close((error) => (error ? reject(error) : resolve()));
      // Clients keep connections alive; without this close() would wait for them to idle out.
      this.server.closeAllConnections();
    });
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.origin);
    const body = await readBody(req);
    // A client that hung up mid-body has no one left to answer.
    if (body === undefined) return;
    const method = /^\/api\/([\w.]+)$/.exec(url.pathname)?.[1];
    if (method !== undefined) {
      const gate = this.gates.get(method);
      if (gate) {
        this.events.emit('held', method);
        await gate;
      }
      this.answerApiCall(method, req, url, body, res);
    } else if (req.method === 'POST' && this.issuedResponseUrls.has(url.pathname)) {
      this.answerResponseUrl(url, body, res);
    } else if (req.method === 'POST' && this.fileStore.isUploadPath(url.pathname)) {
      const { status, text } = await this.fileStore.receive(url.pathname, req.headers['content-type'] ?? '', body);
      res.writeHead(status, { 'content-type': 'text/plain' }).end(text);
    } else if (req.method === 'GET' && this.fileStore.isPrivatePath(url.pathname)) {
      const { status, headers, body: bytes } = this.fileStore.serve(url.pathname, req.headers.authorization);
      res.writeHead(status, headers).end(bytes);
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not_found');
    }
  }

  private answerApiCall(method: string, req: IncomingMessage, url: URL, body: string, res: ServerResponse): void {
    const at = Date.now();
    const parsed = parseApiRequest(req.headers, url.searchParams, body);
    const args = parsed.rejection ? {} : parsed.args;
    const token = parsed.rejection ? undefined : parsed.token;
    const reply = this.takeFailure(method, args) ?? { status: 200, body: parsed.rejection ?? this.invoke(method, args, token) };

    const call: RecordedCall = { method, args, token, at, status: reply.status, response: reply.body };
    this.calls.push(call);
    res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', ...reply.headers });
    res.end(JSON.stringify(reply.body));
    this.events.emit('call', call);
  }

  private invoke(method: string, args: ApiArgs, token: string | undefined): ApiResult {
    const handler = this.handlers[method];
    // Handlers get their own copy, so nothing they store aliases the recorded arguments.
    return authProblem(token) ?? (handler ? handler(structuredClone(args)) : apiError('unknown_method'));
  }

  private takeFailure(method: string, args: ApiArgs): Reply | undefined {
    const queued = this.failures.get(method) ?? [];
    const index = queued.findIndex((entry) => entry.when(args));
    if (index < 0) return undefined;
    const { failure } = queued.splice(index, 1)[0]!;
    if ('error' in failure) return { status: 200, body: apiError(failure.error) };
    if (failure.status === 429) {
      const retryAfter = 'retryAfter' in failure ? failure.retryAfter : DEFAULT_RETRY_AFTER_SECONDS;
      return { status: 429, headers: { 'retry-after': String(retryAfter) }, body: apiError('ratelimited') };
    }
    return { status: failure.status, body: apiError('fatal_error') };
  }

  private answerResponseUrl(url: URL, body: string, res: ServerResponse): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      parsed = undefined;
    }
    if (!isRecord(parsed)) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('invalid_payload');
      return;
    }
    if (Array.isArray(parsed.blocks) && duplicateIdProblems(parsed.blocks, '/blocks').length) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('invalid_blocks');
      return;
    }
    const response: RecordedResponse = { url: url.href, body: parsed };
    this.responses.push(response);
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ ok: true }));
    this.events.emit('response', response);
  }

  private describeWait(method: string, timeoutMs: number): string {
    const seen = this.calls.map((call, index) => `  ${index + 1}. ${describeCall(call)}`);
    return [
      `fake Slack: no matching ${method} call within ${timeoutMs}ms.`,
      seen.length > 0 ? `Calls seen so far:\n${seen.join('\n')}` : 'No Web API calls seen so far.',
    ].join('\n');
  }
}

const MAX_DESCRIBED_ARGS = 200;

/** One line per call for failure messages; args only, since the token must never reach a log. */
function describeCall(call: RecordedCall): string {
  const args = JSON.stringify(call.args);
  const shortArgs = args.length > MAX_DESCRIBED_ARGS ? `${args.slice(0, MAX_DESCRIBED_ARGS)}…` : args;
  const outcome = call.response.ok ? 'ok' : `${call.status} ${String(call.response.error)}`;
  return `${call.method} ${shortArgs} -> ${outcome}`;
}

/** The whole body as text, or undefined when the client aborted the request. */
async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of req) chunks.push(chunk as Buffer);
  } catch {
    return undefined;
  }
  return Buffer.concat(chunks).toString('utf8');
}
