/**
 * Someone other than SubOps writing in its channels: another app installed there, or a person. The fake
 * Slack stamps SubOps' bot on every message posted to it, whatever the token; this Web API in front of
 * it shows the messages named with `post` as the forger's instead, in what conversations.history and
 * conversations.replies answer (bot_id, app_id and user, as Slack would stamp them). Everything else
 * passes through unchanged, so the fake still records every call (`h.fake.calls`).
 *
 * The app is pointed here with SLACK_API_URL; until `forwardTo(h.fake)` the calls (the start-up checks,
 * made while the harness starts its fake) go to a fake of the forger's own, with the same workspace.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { webApi } from '@slack/bolt';
import { startFakeSlack, type FakeSlack } from '../../src/playground/fake-slack.js';

/** Another app in the workspace, with a bot of its own. */
export const OTHER_APP = { botId: 'B0OTHERAPP', appId: 'A0OTHERAPP', userId: 'U0OTHERBOT', token: 'xoxb-other-app-token' };
/** A member of the audit channel posting with their own (user) token. */
export const PERSON = { userId: 'U0MALLORY', token: 'xoxp-mallory-user-token' };

export type Forger = 'another app' | 'a person';

export interface ForgingSlack {
  /** SLACK_API_URL for the app under test. */
  apiUrl: string;
  /** From now on, forwards every call to this fake. */
  forwardTo(fake: FakeSlack): void;
  /** Posts the message in `channel` as `by` would (metadata included); returns its ts. */
  post(by: Forger, channel: string, message: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

export async function startForgingSlack(): Promise<ForgingSlack> {
  const own = await startFakeSlack();
  let target = own;
  const forged = new Map<string, Forger>();

  const disguise = (message: Record<string, unknown>) => {
    const by = typeof message.ts === 'string' ? forged.get(message.ts) : undefined;
    if (!by) return message;
    const { bot_id: _bot, app_id: _app, bot_profile: _profile, ...rest } = message;
    return by === 'a person' ? { ...rest, user: PERSON.userId } : { ...rest, user: OTHER_APP.userId, bot_id: OTHER_APP.botId, app_id: OTHER_APP.appId };
  };

  const relay = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://forger');
    const headers: Record<string, string> = {};
    for (const name of ['authorization', 'content-type']) if (typeof req.headers[name] === 'string') headers[name] = req.headers[name];
    const upstream = await fetch(new URL(`${url.pathname}${url.search}`, new URL(target.apiUrl).origin), {
      method: req.method ?? 'POST',
      headers,
      ...(chunks.length && { body: Buffer.concat(chunks) }),
    });
    let text = await upstream.text();
    const method = /^\/api\/([\w.]+)$/.exec(url.pathname)?.[1];
    if (method === 'conversations.history' || method === 'conversations.replies') {
      const answer = JSON.parse(text) as { messages?: Record<string, unknown>[] };
      if (answer.messages) text = JSON.stringify({ ...answer, messages: answer.messages.map(disguise) });
    }
    const retryAfter = upstream.headers.get('retry-after');
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json', ...(retryAfter && { 'retry-after': retryAfter }) }).end(text);
  };

  const server = createServer((req, res) => {
    relay(req, res).catch((error: unknown) => res.writeHead(502, { 'content-type': 'text/plain' }).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    apiUrl: `http://127.0.0.1:${port}/api/`,
    forwardTo(fake) {
      target = fake;
    },
    async post(by, channel, message) {
      const client = new webApi.WebClient(by === 'a person' ? PERSON.token : OTHER_APP.token, { slackApiUrl: target.apiUrl, retryConfig: { retries: 0 } });
      const posted = await client.chat.postMessage({ channel, ...message } as webApi.ChatPostMessageArguments);
      forged.set(posted.ts!, by);
      return posted.ts!;
    },
    async close() {
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      await own.close();
    },
  };
}
