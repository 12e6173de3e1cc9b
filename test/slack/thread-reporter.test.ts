/**
 * The threaded-operation reporter against the loopback fake Slack: posts in order, off the caller's
 * path, parent updates coalesced while Slack is slow (a gate holds Slack's answers; nothing sleeps), and
 * the last update and the audit entry always delivered, with the agent told privately when Slack refused.
 */
import { webApi } from '@slack/bolt';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../../src/playground/fake-slack.js';
import { createAuditor } from '../../src/slack/audit.js';
import { InFlightOperations } from '../../src/slack/in-flight.js';
import { operationCheck } from '../../src/slack/operation-check.js';
import { createThreadReporter, type ThreadReporter } from '../../src/slack/thread-reporter.js';
import type { OperationLog } from '../../src/store/index.js';
import { WorkTracker } from '../../src/slack/work.js';
import { notice } from '../../src/views/help.js';
import type { SlackMessage } from '../../src/views/kit.js';
import { testStore } from '../support/store.js';

const CHANNEL = 'C0SUPPORT';
const AUDIT_CHANNEL = 'C0AUDIT';
const origin = { channelId: CHANNEL, userId: 'U0AGENT' };
const logger = pino({ level: 'silent' });
const text = (t: string): SlackMessage => notice(t);

let slack: FakeSlack;
let work: WorkTracker;
let reporter: ThreadReporter;

beforeEach(async () => {
  slack = await startFakeSlack();
  const client = new webApi.WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
  work = new WorkTracker();
  reporter = createThreadReporter({ client, audit: createAuditor({ client, channelId: AUDIT_CHANNEL, logger, store: await testStore() }), work });
});
afterEach(async () => {
  await slack.close();
});

const entry = { actorId: origin.userId, action: 'suspend' as const, targets: { service: 101 }, result: 'suspended', ok: true, summary: 'Service #101 suspended.' };
const threadTexts = (parentTs: string) => slack.messages(CHANNEL).filter((m) => m.thread_ts === parentTs && m.ts !== parentTs).map((m) => m.text);

describe('thread reporter', () => {
  it('posts the parent, the replies in order, the update, then the audit entry linked to the thread', async () => {
    const report = reporter.start({ origin, parent: text('parent'), logger });
    for (const n of [1, 2, 3, 4, 5]) report.reply(text(`step ${n}`));
    report.update(text('parent: done'));
    report.reply(text('last word'));
    await report.finish({ audit: entry, whenSlackRefused: () => text('told privately') });
    const thread = report.thread!;

    expect(threadTexts(thread.ts)).toEqual(['step 1', 'step 2', 'step 3', 'step 4', 'step 5', 'last word']);
    expect(slack.messages(CHANNEL).find((m) => m.ts === thread.ts)?.text).toBe('parent: done');
    const methods = slack.calls.map((call) => `${call.method} ${String(call.args.channel)}`);
    // The audit message comes after everything in the thread, and links it.
    expect(methods.at(-1)).toBe(`chat.postMessage ${AUDIT_CHANNEL}`);
    expect(methods.indexOf('chat.update C0SUPPORT')).toBeLessThan(methods.indexOf('chat.getPermalink C0SUPPORT'));
    expect(slack.callsTo('chat.postEphemeral')).toEqual([]);
  });

  it('returns at once from start, reply and update while Slack is slow, and counts the queue as work in flight', async () => {
    const gate = slack.hold('chat.postMessage');
    let idle = false;
    const report = reporter.start({ origin, parent: text('parent'), logger });
    report.reply(text('step 1'));
    report.reply(text('step 2'));
    // The caller went on: not even the parent was answered yet, and the work tracker knows the posts are pending.
    expect(report.thread).toBeUndefined();
    expect(work.inFlight).toBe(1);
    const settled = work.idle().then(() => (idle = true));
    await gate.arrived(1);
    expect(idle).toBe(false);
    gate.release();
    await settled;
    // The replies waited for the parent they hang under.
    expect(threadTexts(report.thread!.ts)).toEqual(['step 1', 'step 2']);
  });

  it('skips parent updates that wait behind a slow one, and always delivers the last', async () => {
    const report = reporter.start({ origin, parent: text('parent'), logger });
    await report.posted();
    const gate = slack.hold('chat.update');
    report.update(text('1 of 4'));
    await gate.arrived(1);
    report.update(text('2 of 4'));
    report.reply(text('a reply is never skipped'));
    report.update(text('3 of 4'));
    report.update(text('4 of 4'));
    gate.release();
    await report.finish({ audit: entry });

    expect(slack.callsTo('chat.update').map((call) => call.args.text)).toEqual(['1 of 4', '4 of 4']);
    expect(slack.messages(CHANNEL).find((m) => m.ts === report.thread!.ts)?.text).toBe('4 of 4');
    expect(threadTexts(report.thread!.ts)).toEqual(['a reply is never skipped']);
    expect(slack.callsTo('chat.postMessage').filter((call) => call.args.channel === AUDIT_CHANNEL)).toHaveLength(1);
  });

  it('delivers the last update and the audit entry when Slack refuses a post, and tells the agent privately', async () => {
    const report = reporter.start({ origin, parent: text('parent'), logger });
    await report.posted();
    slack.failNext('chat.postMessage', { error: 'channel_not_found' });
    report.reply(text('lost step'));
    report.reply(text('next step'));
    report.update(text('parent: done'));
    await report.finish({ audit: entry, whenSlackRefused: (problems) => text(`Slack refused: ${problems.join(', ')}`) });

    expect(threadTexts(report.thread!.ts)).toEqual(['next step']);
    expect(slack.messages(CHANNEL).find((m) => m.ts === report.thread!.ts)?.text).toBe('parent: done');
    expect(slack.callsTo('chat.postMessage').filter((call) => call.args.channel === AUDIT_CHANNEL)).toHaveLength(1);
    expect(slack.callsTo('chat.postEphemeral').map((call) => [call.args.user, call.args.text])).toEqual([['U0AGENT', 'Slack refused: channel_not_found']]);
  });

  it('posts nothing more when the parent was refused, yet records the audit entry unlinked and tells the agent', async () => {
    slack.failNext('chat.postMessage', { error: 'not_in_channel' });
    const report = reporter.start({ origin, parent: text('parent'), logger });
    // Queued behind the parent before Slack answered: dropped with it, never posted outside a thread.
    report.reply(text('never posted'));
    report.update(text('never shown'));
    expect(await report.posted()).toBeUndefined();
    expect(report.problems).toEqual(['not_in_channel']);
    report.reply(text('never posted either'));
    await report.finish({ audit: entry, whenSlackRefused: (problems, threadPosted) => text(`${threadPosted ? 'thread' : 'no thread'}: ${problems.join(', ')}`) });

    expect(slack.callsTo('chat.postMessage').map((call) => call.args.channel)).toEqual([CHANNEL, AUDIT_CHANNEL]);
    expect(slack.callsTo('chat.update')).toEqual([]);
    expect(slack.callsTo('chat.getPermalink')).toEqual([]);
    expect(slack.callsTo('chat.postEphemeral').map((call) => call.args.text)).toEqual(['no thread: not_in_channel']);
  });

  it('continues an existing thread on a retry without posting a new parent', async () => {
    const first = reporter.start({ origin, parent: text('parent'), logger });
    await first.posted();
    const retry = reporter.start({ origin, parent: text('ignored'), parentTs: first.thread!.ts, logger });
    retry.reply(text('retried'));
    await retry.finish();
    expect(retry.thread).toEqual(first.thread);
    expect(threadTexts(first.thread!.ts)).toEqual(['retried']);
    expect(slack.messages(CHANNEL).map((m) => m.text)).not.toContain('ignored');
  });
  it('keeps the operation in flight until its audit record is in the store: a process stopped in between leaves a thread to be told, never a record lost (issue #36 §6)', async () => {
    const client = new webApi.WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
    const store = await testStore();
    const ended: string[] = [];
    const operations: OperationLog = {
      begin: (row, leaseMs) => store.operations.begin(row, leaseMs),
      renew: (leaseMs) => store.operations.renew(leaseMs),
      end: async (id) => (await store.operations.end(id), void ended.push(id)),
      takeAbandoned: (leaseMs, limit) => store.operations.takeAbandoned(leaseMs, limit),
      giveUp: (id) => store.operations.giveUp(id),
    };
    const auditor = createAuditor({ client, channelId: AUDIT_CHANNEL, logger, store });
    let arrived!: () => void;
    const recording = new Promise<void>((resolve) => (arrived = resolve));
    let letThrough!: () => void;
    const through = new Promise<void>((resolve) => (letThrough = resolve));
    const slowAudit = { outbox: auditor.outbox, record: async (e: Parameters<typeof auditor.record>[0]) => (arrived(), await through, auditor.record(e)) };
    const inFlight = new InFlightOperations({ operations, client, logger, check: operationCheck('the-signing-secret') });
    const tracked = createThreadReporter({ client, audit: slowAudit, work, inFlight });

    const report = tracked.start({ origin, parent: text('parent'), logger, ifStopped: { kind: 'suspension', action: 'suspend', serviceId: 101, clientId: 1001 } });
    await report.posted();
    const finished = report.finish({ audit: entry });
    await recording;
    // The record is on its way to the store: the operation is still in flight.
    expect(ended).toEqual([]);
    letThrough();
    await finished;
    expect(ended).toHaveLength(1);
    expect(slack.callsTo('chat.postMessage').filter((call) => call.args.channel === AUDIT_CHANNEL)).toHaveLength(1);
  });
});
