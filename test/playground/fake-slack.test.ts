import { readFileSync } from 'node:fs';
import { webApi } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../../src/playground/fake-slack.js';

const { WebClient, ErrorCode, LogLevel } = webApi;
type WebClient = InstanceType<typeof WebClient>;

// The WebClient logs the [ERROR] lines of refused calls; these tests provoke them on purpose.
const quiet = { debug() {}, info() {}, warn() {}, error() {}, setLevel() {}, getLevel: () => LogLevel.ERROR, setName() {} };
const clientOf = (token: string | undefined, options: webApi.WebClientOptions = {}) =>
  // No retries, so an injected failure surfaces at once instead of being retried for minutes.
  new WebClient(token, { slackApiUrl: fake.apiUrl, logger: quiet, retryConfig: { retries: 0 }, ...options });

// The java-slack-sdk's Web API response samples, arrays emptied (see test/fixtures/SOURCES.md).
const SHAPES = JSON.parse(readFileSync(new URL('../fixtures/slack/web-api-response-shapes.json', import.meta.url), 'utf8')) as {
  methods: Record<string, Record<string, unknown>>;
};
const sample = (method: string): Record<string, unknown> => {
  const shape = SHAPES.methods[method];
  if (!shape) throw new Error(`no response shape for ${method} in test/fixtures/slack/web-api-response-shapes.json`);
  return shape;
};

/**
 * Paths of keys in `actual` that Slack's observed response shape (`shape`) never has. An empty
 * object in a sample stands for a map (e.g. view.state), whose keys are free.
 */
function keysOutside(actual: unknown, shape: unknown, path = ''): string[] {
  if (!isPlainObject(actual) || !isPlainObject(shape) || Object.keys(shape).length === 0) return [];
  return Object.entries(actual).flatMap(([key, value]) =>
    key in shape ? keysOutside(value, shape[key], `${path}.${key}`) : [`${path}.${key}`],
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The WebAPIPlatformError / WebAPIRateLimitedError / WebAPIHTTPError a WebClient call rejects with. */
async function failure(call: Promise<unknown>): Promise<Record<string, any>> {
  try {
    await call;
  } catch (error) {
    return error as Record<string, any>;
  }
  throw new Error('expected the call to fail');
}

const modal = (title: string, extra: Record<string, unknown> = {}) => ({
  type: 'modal' as const,
  title: { type: 'plain_text' as const, text: title },
  blocks: [{ type: 'section', block_id: 'intro', text: { type: 'mrkdwn', text: 'Hello' } }],
  ...extra,
});

let fake: FakeSlack;
let client: WebClient;

beforeEach(async () => {
  fake = await startFakeSlack({
    users: { U0AGENT: { name: 'alice', real_name: 'Alice Agent', tz: 'Europe/Prague' } },
    usergroups: { S0SUPPORT: ['U0AGENT'] },
    channels: { C0SUPPORT: { name: 'support' } },
  });
  client = clientOf('xoxb-test');
});

afterEach(async () => {
  await fake.close();
});

describe('fake Slack messages', () => {
  it('keeps a channel: post, thread reply and in-place update', async () => {
    const blocks = [{ type: 'section', block_id: 'status', text: { type: 'mrkdwn', text: 'Activating…' } }];
    const parent = await client.chat.postMessage({ channel: 'C0SUPPORT', text: 'Activating', blocks });
    const reply = await client.chat.postMessage({ channel: 'C0SUPPORT', thread_ts: parent.ts!, text: 'Step 1 done' });
    const updated = await client.chat.update({ channel: 'C0SUPPORT', ts: parent.ts!, text: 'Activated' });

    expect(parent.ts).toMatch(/^\d{10}\.\d{6}$/);
    expect(Number(reply.ts)).toBeGreaterThan(Number(parent.ts));
    expect(updated).toMatchObject({ ok: true, channel: 'C0SUPPORT', ts: parent.ts, text: 'Activated' });
    expect(fake.messages('C0SUPPORT')).toMatchObject([
      { ts: parent.ts, text: 'Activated', blocks, edited: { user: 'UBOT' } },
      { ts: reply.ts, thread_ts: parent.ts, parent_user_id: 'UBOT', text: 'Step 1 done' },
    ]);
    expect(fake.messages('C0OTHER')).toEqual([]);
  });

  it('records decoded arguments and the token of every call', async () => {
    await client.chat.postMessage({ channel: 'C0SUPPORT', text: 'hi', blocks: [{ type: 'divider' }] });

    const [call] = fake.callsTo('chat.postMessage');
    expect(call).toMatchObject({ token: 'xoxb-test', status: 200, args: { channel: 'C0SUPPORT', text: 'hi', blocks: [{ type: 'divider' }] } });
    expect(call?.args).not.toHaveProperty('token');
  });

  it('gives made-up block ids to blocks posted without one, as Slack does', async () => {
    await client.chat.postMessage({ channel: 'C0SUPPORT', text: 'x', blocks: [{ type: 'divider' }] });

    expect(fake.messages('C0SUPPORT')[0]?.blocks?.[0]).toMatchObject({ type: 'divider', block_id: expect.any(String) });
  });

  it('answers in the shapes of the java-slack-sdk samples', async () => {
    const posted = await client.chat.postMessage({ channel: 'C0SUPPORT', text: 'x' });
    await client.chat.update({ channel: 'C0SUPPORT', ts: posted.ts!, text: 'y' });
    await client.chat.postEphemeral({ channel: 'C0SUPPORT', user: 'U0AGENT', text: 'only you' });
    await client.chat.getPermalink({ channel: 'C0SUPPORT', message_ts: posted.ts! });
    await client.auth.test();
    await client.users.info({ user: 'U0AGENT' });
    await client.conversations.info({ channel: 'C0SUPPORT' });
    await client.views.open({ trigger_id: '1.2.abc', view: modal('Activate') });

    for (const call of fake.calls) {
      expect(call.response.ok, call.method).toBe(true);
      expect(keysOutside(call.response, sample(call.method)), call.method).toEqual([]);
    }
  });

  it('refuses calls a buggy app would make', async () => {
    const noChannel = await failure(client.apiCall('chat.postMessage', { text: 'lost' }));
    const noText = await failure(client.chat.postMessage({ channel: 'C0SUPPORT' } as never));
    const badChannel = await failure(client.chat.postMessage({ channel: '#support', text: 'x' }));
    const unknownTs = await failure(client.chat.update({ channel: 'C0SUPPORT', ts: '1.000001', text: 'x' }));
    const tooManyBlocks = await failure(
      client.chat.postMessage({ channel: 'C0SUPPORT', text: 'x', blocks: Array.from({ length: 51 }, () => ({ type: 'divider' })) }),
    );

    expect(noChannel.data).toMatchObject({
      error: 'invalid_arguments',
      response_metadata: { messages: ['[ERROR] missing required field: channel'] },
    });
    expect(noText.data.error).toBe('no_text');
    expect(badChannel.data.error).toBe('channel_not_found');
    expect(unknownTs).toMatchObject({ code: ErrorCode.PlatformError, data: { error: 'message_not_found' } });
    expect(tooManyBlocks.data.error).toBe('invalid_blocks');
  });

  it('refuses blocks whose ids collide, as Slack does: two buttons of one block with one action_id, two blocks with one block_id', async () => {
    const unsuspend = (serviceId: number) => ({ type: 'button' as const, action_id: 'uisp_unsuspend', text: { type: 'plain_text' as const, text: `Unsuspend #${serviceId}` }, value: String(serviceId) });
    const sameAction = await failure(client.chat.postMessage({ channel: 'C0SUPPORT', text: 'x', blocks: [{ type: 'actions', block_id: 'a', elements: [unsuspend(104), unsuspend(107)] }] }));
    const sameBlock = await failure(
      client.chat.postMessage({ channel: 'C0SUPPORT', text: 'x', blocks: [{ type: 'section', block_id: 'b', text: { type: 'mrkdwn', text: 'one' } }, { type: 'divider', block_id: 'b' }] }),
    );
    const update = await client.chat.postMessage({ channel: 'C0SUPPORT', text: 'x' });
    const sameActionOnUpdate = await failure(client.chat.update({ channel: 'C0SUPPORT', ts: update.ts!, text: 'x', blocks: [{ type: 'actions', elements: [unsuspend(104), unsuspend(107)] }] }));
    const sameActionInModal = await failure(client.views.open({ trigger_id: '1.2.dup', view: { ...modal('Unsuspend'), blocks: [{ type: 'actions', elements: [unsuspend(104), unsuspend(107)] }] } as never }));
    const response = await fetch(fake.responseUrl(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'x', blocks: [{ type: 'actions', elements: [unsuspend(104), unsuspend(107)] }] }) });
    // The same action_id in two blocks is allowed.
    await client.chat.postMessage({ channel: 'C0SUPPORT', text: 'x', blocks: [{ type: 'actions', elements: [unsuspend(104)] }, { type: 'actions', elements: [unsuspend(107)] }] });

    expect(sameAction.data).toMatchObject({ error: 'invalid_blocks', response_metadata: { messages: ['[ERROR] duplicate action_id "uisp_unsuspend" in one block [json-pointer:/blocks/0]'] } });
    expect(sameBlock.data).toMatchObject({ error: 'invalid_blocks', response_metadata: { messages: ['[ERROR] duplicate block_id "b" [json-pointer:/blocks/1/block_id]'] } });
    expect(sameActionOnUpdate.data.error).toBe('invalid_blocks');
    expect(sameActionInModal.data.error).toBe('invalid_arguments');
    expect(response.status).toBe(400);
  });

  it('links to messages and thread replies', async () => {
    const parent = await client.chat.postMessage({ channel: 'C0SUPPORT', text: 'x' });
    const reply = await client.chat.postMessage({ channel: 'C0SUPPORT', thread_ts: parent.ts!, text: 'y' });

    const top = await client.chat.getPermalink({ channel: 'C0SUPPORT', message_ts: parent.ts! });
    const threaded = await client.chat.getPermalink({ channel: 'C0SUPPORT', message_ts: reply.ts! });

    expect(top.permalink).toBe(`https://subops-playground.slack.com/archives/C0SUPPORT/p${parent.ts!.replace('.', '')}`);
    expect(threaded.permalink).toContain(`?thread_ts=${parent.ts}&cid=C0SUPPORT`);
  });
});

describe('fake Slack modals', () => {
  it('opens and updates a view, refusing a stale hash', async () => {
    const opened = await client.views.open({ trigger_id: '1.2.abc', view: modal('Activate', { callback_id: 'activate' }) });
    const view = opened.view!;
    const updated = await client.views.update({ view_id: view.id!, hash: view.hash!, view: modal('Activating…') });
    const stale = await failure(client.views.update({ view_id: view.id!, hash: view.hash!, view: modal('Late') }));

    expect(view.id).toMatch(/^V\w+$/);
    expect(view).toMatchObject({ callback_id: 'activate', state: { values: {} }, root_view_id: view.id, app_id: 'A0001' });
    expect(updated.view).toMatchObject({ id: view.id, title: { text: 'Activating…' }, callback_id: '' });
    expect(updated.view?.hash).not.toBe(view.hash);
    expect(stale.data.error).toBe('hash_conflict');
    expect(fake.views.get(view.id!)).toMatchObject({ title: { text: 'Activating…' } });
  });

  it('updates by external id and keeps external ids unique', async () => {
    await client.views.open({ trigger_id: '1.2.a', view: modal('One', { external_id: 'job-7' }) });
    const duplicate = await failure(client.views.open({ trigger_id: '1.2.b', view: modal('Two', { external_id: 'job-7' }) }));
    const updated = await client.views.update({ external_id: 'job-7', view: modal('One, done', { external_id: 'job-7' }) });
    const missing = await failure(client.views.update({ external_id: 'job-8', view: modal('None') }));

    expect(duplicate.data.error).toBe('duplicate_external_id');
    expect(updated.view).toMatchObject({ external_id: 'job-7', title: { text: 'One, done' } });
    expect(missing.data.error).toBe('not_found');
  });

  it('lets a trigger id open one view only, and pushes views', async () => {
    await client.views.open({ trigger_id: '1.2.a', view: modal('First') });
    const again = await failure(client.views.open({ trigger_id: '1.2.a', view: modal('Second') }));
    const pushed = await client.views.push({ trigger_id: '1.2.b', view: modal('Pushed') });

    expect(again.data.error).toBe('exchanged_trigger_id');
    expect(fake.views.get(pushed.view!.id!)).toMatchObject({ title: { text: 'Pushed' } });
  });

  it('refuses modals Slack would refuse, naming each problem', async () => {
    const input = { type: 'input', block_id: 'name', label: { type: 'plain_text', text: 'Name' }, element: { type: 'plain_text_input', action_id: 'v' } };
    const refused = await failure(
      client.views.open({ trigger_id: '1.2.a', view: { ...modal('A title longer than twenty-four'), blocks: [input] } as never }),
    );

    expect(refused.data.error).toBe('invalid_arguments');
    expect(refused.data.response_metadata.messages).toEqual([
      '[ERROR] must be at most 24 characters [json-pointer:/view/title/text]',
      '[ERROR] is required when the view has input blocks [json-pointer:/view/submit]',
    ]);
  });
});

describe('fake Slack directory', () => {
  it('answers auth.test as Bolt expects', async () => {
    expect(await client.auth.test()).toMatchObject({ ok: true, user_id: 'UBOT', bot_id: 'B0001', team_id: 'T0001' });
  });

  it('knows the configured users, usergroups and channels', async () => {
    const alice = await client.users.info({ user: 'U0AGENT' });
    const members = await client.usergroups.users.list({ usergroup: 'S0SUPPORT' });
    const channel = await client.conversations.info({ channel: 'C0SUPPORT' });
    const stranger = await failure(client.users.info({ user: 'U0NOBODY' }));
    const noGroup = await failure(client.usergroups.users.list({ usergroup: 'S0NONE' }));

    expect(alice.user).toMatchObject({ id: 'U0AGENT', name: 'alice', real_name: 'Alice Agent', tz: 'Europe/Prague', is_bot: false });
    expect([3600, 7200]).toContain(alice.user?.tz_offset);
    expect(members.users).toEqual(['U0AGENT']);
    expect(channel.channel).toMatchObject({ id: 'C0SUPPORT', name: 'support', is_channel: true });
    expect(stranger.data.error).toBe('user_not_found');
    expect(noGroup.data.error).toBe('no_such_subteam');
  });
});

describe('fake Slack transport', () => {
  it('reads JSON bodies and form bodies with the token as a field', async () => {
    const json = await fetch(`${fake.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', authorization: 'Bearer xoxb-json' },
      body: JSON.stringify({ channel: 'C0SUPPORT', text: 'json', blocks: [{ type: 'divider' }] }),
    });
    const form = await fetch(`${fake.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: 'xoxb-form', channel: 'C0SUPPORT', text: 'form', blocks: '[{"type":"divider"}]' }),
    });

    expect(await json.json()).toMatchObject({ ok: true });
    expect(await form.json()).toMatchObject({ ok: true });
    expect(fake.calls.map(({ token, args }) => ({ token, blocks: args.blocks }))).toEqual([
      { token: 'xoxb-json', blocks: [{ type: 'divider' }] },
      { token: 'xoxb-form', blocks: [{ type: 'divider' }] },
    ]);
  });

  it('refuses missing or foreign tokens and unknown methods', async () => {
    const anonymous = clientOf(undefined);
    const foreign = clientOf('not-a-token');

    expect((await failure(anonymous.auth.test())).data.error).toBe('not_authed');
    expect((await failure(foreign.auth.test())).data.error).toBe('invalid_auth');
    expect((await failure(client.apiCall('chat.teleport', {}))).data.error).toBe('unknown_method');
  });

  it('fails the next call of a method as told, then recovers', async () => {
    fake.failNext('chat.postMessage', { error: 'not_in_channel' });

    const failed = await failure(client.chat.postMessage({ channel: 'C0SUPPORT', text: 'x' }));
    const next = await client.chat.postMessage({ channel: 'C0SUPPORT', text: 'x' });

    expect(failed).toMatchObject({ code: ErrorCode.PlatformError, data: { ok: false, error: 'not_in_channel' } });
    expect(next.ok).toBe(true);
    expect(fake.messages('C0SUPPORT')).toHaveLength(1);
  });

  it('rate-limits with a Retry-After header', async () => {
    const impatient = clientOf('xoxb-test', { rejectRateLimitedCalls: true, retryConfig: undefined });
    fake.failNext('chat.postMessage', { status: 429, retryAfter: 7 });

    const limited = await failure(impatient.chat.postMessage({ channel: 'C0SUPPORT', text: 'x' }));

    expect(limited).toMatchObject({ code: ErrorCode.RateLimitedError, retryAfter: 7 });
    expect(fake.callsTo('chat.postMessage')[0]).toMatchObject({ status: 429, response: { error: 'ratelimited' } });
  });

  it('fails with any HTTP status', async () => {
    fake.failNext('views.open', { status: 503 });

    const unavailable = await failure(client.views.open({ trigger_id: '1.2.a', view: modal('x') }));

    expect(unavailable).toMatchObject({ code: ErrorCode.HTTPError, statusCode: 503 });
  });

  it('waits for a later call and feeds listeners live', async () => {
    const fed: string[] = [];
    fake.on('call', (call) => fed.push(call.method));
    const waiting = fake.waitFor('chat.postMessage', (call) => call.args.text === 'second');

    await client.chat.postMessage({ channel: 'C0SUPPORT', text: 'first' });
    await client.chat.postMessage({ channel: 'C0SUPPORT', text: 'second' });

    expect((await waiting).args.text).toBe('second');
    expect((await fake.waitFor('chat.postMessage')).args.text).toBe('first');
    expect(fed).toEqual(['chat.postMessage', 'chat.postMessage']);
  });

  it('times out listing the calls it saw, without tokens', async () => {
    await client.chat.postMessage({ channel: 'C0SUPPORT', text: 'hello' });

    const timeout = fake.waitFor('views.open', undefined, 50);

    await expect(timeout).rejects.toThrow(/no matching views\.open call within 50ms[\s\S]*1\. chat\.postMessage .*"text":"hello".* -> ok/);
    await expect(timeout).rejects.not.toThrow(/xoxb-test/);
  });

  it('records posts to issued response urls and refuses others', async () => {
    const heard: unknown[] = [];
    fake.on('response', (response) => heard.push(response.body));
    const url = fake.responseUrl();

    const accepted = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"done"}' });
    const unknown = await fetch(url.replace(/\w+$/, 'forged'), { method: 'POST', body: '{}' });

    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/commands\/T0001\/1\/\w+$/);
    expect(fake.responseUrl()).not.toBe(url);
    expect(accepted.status).toBe(200);
    expect(unknown.status).toBe(404);
    expect(fake.responses).toEqual([{ url, body: { text: 'done' } }]);
    expect(heard).toEqual([{ text: 'done' }]);
  });
});
