import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, LogLevel, type BlockAction, type ButtonAction, type StaticSelectAction, type types } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack, type RecordedResponse } from '../../src/playground/fake-slack.js';
import { signSlackRequest, SlackSender } from '../../src/playground/slack-sender.js';

const SIGNING_SECRET = 'playground-signing-secret';
// The java-slack-sdk's inbound payload samples (see test/fixtures/SOURCES.md).
const SAMPLES = new URL('../fixtures/slack/java-slack-sdk/json-logs/samples/app-backend/', import.meta.url);
const sampleKeys = (path: string): string[] => Object.keys(JSON.parse(readFileSync(new URL(path, SAMPLES), 'utf8')) as object);

const activateModal: types.ModalView = {
  type: 'modal',
  callback_id: 'activate',
  private_metadata: '{"jobId":7}',
  title: { type: 'plain_text', text: 'Activate' },
  submit: { type: 'plain_text', text: 'Go' },
  blocks: [
    { type: 'input', block_id: 'name', label: { type: 'plain_text', text: 'Name' }, element: { type: 'plain_text_input', action_id: 'value' } },
    {
      type: 'section',
      block_id: 'plan',
      text: { type: 'mrkdwn', text: 'Plan' },
      accessory: {
        type: 'static_select',
        action_id: 'pick_plan',
        options: [{ text: { type: 'plain_text', text: 'Basic' }, value: 'basic' }],
      },
    },
  ],
};

let fake: FakeSlack;
let app: App;
let sender: SlackSender;
let eventsUrl: string;
/** The raw bodies Bolt handed to listeners, in arrival order. */
let received: Record<string, any>[];

beforeEach(async () => {
  fake = await startFakeSlack();
  received = [];
  app = new App({ token: 'xoxb-test', signingSecret: SIGNING_SECRET, clientOptions: { slackApiUrl: fake.apiUrl }, logLevel: LogLevel.ERROR });
  app.use(async ({ body, next }) => {
    received.push(body);
    await next();
  });
  // app.start(0) resolves with the receiver's node:http Server; the OS picked its port.
  const server = (await app.start(0)) as Server;
  const { port } = server.address() as AddressInfo;
  eventsUrl = `http://127.0.0.1:${port}/slack/events`;
  sender = new SlackSender({ url: eventsUrl, signingSecret: SIGNING_SECRET, responseUrl: () => fake.responseUrl() });
});

afterEach(async () => {
  await app.stop();
  await fake.close();
});

const nextResponse = () => new Promise<RecordedResponse>((resolve) => fake.on('response', resolve));

describe('signSlackRequest', () => {
  it("reproduces Slack's published example", () => {
    const body =
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar' +
      '&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com' +
      '%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';

    expect(signSlackRequest('8f742231b10e8888abcd99yyyzzz85a5', 1531420618, body)).toBe(
      'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
    );
  });
});

describe('SlackSender against a real Bolt app', () => {
  it('delivers a slash command that Bolt verifies, parses and acks', async () => {
    app.command('/ping', async ({ command, ack, respond, client }) => {
      await ack(`pong ${command.text}`);
      await client.chat.postMessage({ channel: command.channel_id, text: `${command.user_name} pinged` });
      await respond({ text: 'done later' });
    });
    const responded = nextResponse();

    const reply = await sender.slashCommand({ command: '/ping', text: 'hello world', userId: 'U0AGENT', userName: 'alice', channelId: 'C0SUPPORT' });

    expect(reply).toEqual({ status: 200, body: 'pong hello world' });
    expect(received[0]).toMatchObject({ command: '/ping', text: 'hello world', user_id: 'U0AGENT', channel_id: 'C0SUPPORT', team_id: 'T0001' });
    expect(received[0]?.trigger_id).toMatch(/^\d+\.\d+\.[0-9a-f]+$/);
    expect(Object.keys(received[0]!).filter((key) => !sampleKeys('slash-commands/SlashCommandPayload.json').includes(key))).toEqual([]);
    expect((await fake.waitFor('chat.postMessage')).args).toMatchObject({ channel: 'C0SUPPORT', text: 'alice pinged' });
    expect((await responded).body).toEqual({ text: 'done later' });
  });

  it('returns a JSON ack parsed, and fresh trigger ids every time', async () => {
    app.command('/status', async ({ ack }) => ack({ response_type: 'ephemeral', text: 'all good' }));

    const first = await sender.slashCommand({ command: '/status', userId: 'U0AGENT', channelId: 'D0AGENT' });
    await sender.slashCommand({ command: '/status', userId: 'U0AGENT', channelId: 'D0AGENT' });

    expect(first).toEqual({ status: 200, body: { response_type: 'ephemeral', text: 'all good' } });
    expect(received[0]?.channel_name).toBe('directmessage');
    expect(received[0]?.trigger_id).not.toBe(received[1]?.trigger_id);
  });

  it('submits a modal the app opened, with the entered values', async () => {
    app.command('/activate', async ({ command, ack, client }) => {
      await ack();
      await client.views.open({ trigger_id: command.trigger_id, view: activateModal });
    });
    app.view('activate', async ({ ack }) => ack({ response_action: 'errors', errors: { name: 'Already active' } }));
    await sender.slashCommand({ command: '/activate', userId: 'U0AGENT', channelId: 'C0SUPPORT' });
    const opened = await fake.waitFor('views.open');
    const view = fake.views.get((opened.response.view as { id: string }).id)!;

    const reply = await sender.viewSubmission({
      userId: 'U0AGENT',
      view,
      values: { name: { value: { type: 'plain_text_input', value: 'Alice' } } },
    });

    expect(reply).toEqual({ status: 200, body: { response_action: 'errors', errors: { name: 'Already active' } } });
    const submission = received[1]!;
    expect(submission).toMatchObject({
      type: 'view_submission',
      user: { id: 'U0AGENT', team_id: 'T0001' },
      view: { id: view.id, hash: view.hash, callback_id: 'activate', private_metadata: '{"jobId":7}', state: { values: { name: { value: { value: 'Alice' } } } } },
    });
    // Slack sends response_urls with view submissions (Bolt's respond() reads it); the Java sample lacks the field.
    const submissionKeys = [...sampleKeys('views/ViewSubmissionPayload.json'), 'response_urls'];
    expect(Object.keys(submission).filter((key) => !submissionKeys.includes(key))).toEqual([]);
  });

  it('clicks a button on a message the app posted', async () => {
    let clicked: { action: ButtonAction; body: BlockAction } | undefined;
    app.action<BlockAction<ButtonAction>>('approve', async ({ ack, action, body }) => {
      clicked = { action, body };
      await ack();
    });
    await app.client.chat.postMessage({
      channel: 'C0SUPPORT',
      text: 'Approve activation?',
      blocks: [{ type: 'actions', block_id: 'decision', elements: [{ type: 'button', action_id: 'approve', value: 'job-7', text: { type: 'plain_text', text: 'Approve' } }] }],
    });
    const [message] = fake.messages('C0SUPPORT');

    const reply = await sender.blockAction({ userId: 'U0AGENT', actionId: 'approve', message: message! });

    expect(reply).toEqual({ status: 200, body: '' });
    expect(clicked?.action).toMatchObject({ type: 'button', action_id: 'approve', block_id: 'decision', value: 'job-7', text: { text: 'Approve' } });
    expect(clicked?.body).toMatchObject({
      container: { type: 'message', channel_id: 'C0SUPPORT', message_ts: message!.ts },
      channel: { id: 'C0SUPPORT' },
      message: { ts: message!.ts, text: 'Approve activation?' },
      response_url: expect.stringContaining('/commands/T0001/'),
    });
    const actionKeys = sampleKeys('interactive-components/BlockActionPayload.json');
    expect(Object.keys(clicked!.body).filter((key) => !actionKeys.includes(key))).toEqual([]);
  });

  it('picks an option inside a modal', async () => {
    let picked: StaticSelectAction | undefined;
    app.action<BlockAction<StaticSelectAction>>('pick_plan', async ({ ack, action }) => {
      picked = action;
      await ack();
    });
    const view = { ...activateModal, id: 'V0000000042', hash: '1700000000.12345678' };
    const basic = { text: { type: 'plain_text' as const, text: 'Basic' }, value: 'basic' };

    await sender.blockAction({ userId: 'U0AGENT', actionId: 'pick_plan', selectedOption: basic, view });

    expect(picked).toMatchObject({ type: 'static_select', block_id: 'plan', selected_option: basic });
    expect(received[0]).toMatchObject({ container: { type: 'view', view_id: 'V0000000042' }, view: { id: 'V0000000042', callback_id: 'activate' } });
  });

  it('closes a modal', async () => {
    let closedId: string | undefined;
    app.view({ callback_id: 'activate', type: 'view_closed' }, async ({ ack, view }) => {
      closedId = view.id;
      await ack();
    });

    const reply = await sender.viewClosed({ userId: 'U0AGENT', view: { ...activateModal, id: 'V0000000042' } });

    expect(reply.status).toBe(200);
    expect(closedId).toBe('V0000000042');
  });

  it('needs a message or a view to click in', async () => {
    await expect(sender.blockAction({ userId: 'U0AGENT', actionId: 'approve' })).rejects.toThrow(/needs either a view, or a message/);
  });

  it('gets 401 for a forged signature or a stale timestamp, and the app never sees them', async () => {
    app.command('/ping', async ({ ack }) => ack());
    const body = new URLSearchParams({ command: '/ping', text: '', user_id: 'U0AGENT', channel_id: 'C0SUPPORT' }).toString();
    const sixMinutesAgo = Math.floor(Date.now() / 1000) - 360;

    const forged = await sender.send(body, 'application/x-www-form-urlencoded', { signature: signSlackRequest('wrong-secret', Math.floor(Date.now() / 1000), body) });
    const stale = await sender.send(body, 'application/x-www-form-urlencoded', { timestamp: sixMinutesAgo });
    const staleClock = new SlackSender({ url: eventsUrl, signingSecret: SIGNING_SECRET, now: () => sixMinutesAgo });
    const staleCommand = await staleClock.slashCommand({ command: '/ping', userId: 'U0AGENT', channelId: 'C0SUPPORT' });

    expect([forged.status, stale.status, staleCommand.status]).toEqual([401, 401, 401]);
    expect(received).toEqual([]);
  });
});
