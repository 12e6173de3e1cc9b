/**
 * The daily digest's data (issue #21 §3): what buildDigest makes of the audit trail and of UISP's
 * payments and sites, a seeded simulator day read through readDigest, the day's bounds in ISP_TIMEZONE,
 * and the two settings.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadAppConfig } from '../../src/config.js';
import { dayBoundsIn, instantIn } from '../../src/services/dates.js';
import { buildDigest, isQuiet, type TrailMessage } from '../../src/services/digest/build.js';
import { readDigest, type AuditSource } from '../../src/services/digest/read.js';
import type { Payment } from '../../src/services/uisp/schemas.js';
import { digestParts } from '../../src/render/digest.js';
import { WORLD_FILTERS, worldFromEnv } from '../../src/simulator/world.js';
import { startUisp, type UispFixture } from '../support/uisp.js';

const DIAMOND_AP = '1c0f5e8b-2a3d-4b4c-9e6f-7d8a9b0c1d02';
const ENMORE_AP = '2d1a6f9c-3b4e-4c5d-8f7a-8e9b0c1d2e03';
const CPE_PERSAUD = '5a4d9c2f-6e7b-4f8a-9c0d-1b2e3f4a5b06';

const ZONE = 'America/Guyana';
const DATE = '2025-03-04';
const day = dayBoundsIn(DATE, ZONE);
/** A Slack ts `hours` after the day's start in Guyana. */
const tsAt = (hours: number) => ((day.start.getTime() + hours * 3_600_000) / 1000).toFixed(6);

const audit = (hours: number, payload: Record<string, unknown>): TrailMessage => ({ ts: tsAt(hours), kind: 'audit', payload: { actor: 'U0AGENT', actor_via: 'slack', summary: '', ...payload } });
const thread = (n: number) => ({ thread_channel: 'C0SUPPORT', thread_ts: `1741100000.00000${n}`, permalink: `https://playground.slack.com/archives/C0SUPPORT/p174110000000000${n}` });

const CASH = { id: 'cash-id', name: 'Cash' };
const BANK = { id: 'bank-id', name: 'Bank transfer' };
const payment = (id: number, createdDate: string, amount: number, currencyCode: string, methodId: string | null): Payment => ({ id, clientId: 1001, methodId, createdDate, amount, currencyCode, note: null });

const build = (trail: TrailMessage[] | null, payments: Payment[] = []) => buildDigest({ date: DATE, timeZone: ZONE, day, payments, methods: [CASH, BANK], awaitingLink: [], outages: null, trail });

describe('buildDigest', () => {
  it('lists activations done, and failed ones not retried since, each with its thread and who ran it', () => {
    const digest = build([
      audit(9, { action: 'activate', result: 'activated', ok: true, device: 'dev-1', clientId: 1004, summary: 'Activated Shanice Williams: service #2001', ...thread(1) }),
      audit(10, { action: 'activate', result: 'failed', ok: false, device: 'dev-2', clientId: 1002, summary: 'Activation failed at the site step', ...thread(2) }),
      // Retried with the thread's Retry button the next morning: not listed as failed.
      audit(10.5, { action: 'activate', result: 'failed', ok: false, device: 'dev-3', summary: 'Activation failed at the service step', ...thread(3) }),
      audit(30, { action: 'activate', result: 'activated', ok: true, device: 'dev-3', summary: 'Activated on retry', ...thread(3) }),
      // Failed from the CLI (no thread), then activated again with a new /activate of the same device.
      audit(11, { action: 'activate', result: 'failed', ok: false, device: 'dev-4', actor: 'alice', actor_via: 'cli', summary: 'failed from the CLI' }),
      audit(12, { action: 'activate', result: 'activated', ok: true, device: 'dev-4', summary: 'Activated dev-4', ...thread(4) }),
      // Nothing changed: not an activation done.
      audit(13, { action: 'activate', result: 'already-activated', ok: true, device: 'dev-5', summary: 'Already activated' }),
    ]);
    expect(digest.audit!.activations.done).toEqual([
      { device: 'dev-1', clientId: 1004, summary: 'Activated Shanice Williams: service #2001', actor: 'U0AGENT', actorVia: 'slack', permalink: thread(1).permalink },
      { device: 'dev-4', clientId: null, summary: 'Activated dev-4', actor: 'U0AGENT', actorVia: 'slack', permalink: thread(4).permalink },
    ]);
    expect(digest.audit!.activations.failed).toEqual([{ device: 'dev-2', clientId: 1002, summary: 'Activation failed at the site step', actor: 'U0AGENT', actorVia: 'slack', permalink: thread(2).permalink }]);
  });

  it('a retry that failed again is listed itself; records of other days are left out', () => {
    const digest = build([
      audit(-1, { action: 'activate', result: 'activated', ok: true, device: 'dev-0', summary: 'yesterday' }),
      audit(9, { action: 'activate', result: 'failed', ok: false, device: 'dev-1', summary: 'first try', ...thread(1) }),
      audit(9.5, { action: 'activate', result: 'failed', ok: false, device: 'dev-1', summary: 'second try', ...thread(1) }),
      audit(25, { action: 'suspend', result: 'suspended', ok: true, serviceId: 101, clientId: 1001 }),
    ]);
    expect(digest.audit!.activations.failed.map((a) => a.summary)).toEqual(['second try']);
    expect(digest.audit!.activations.done).toEqual([]);
    expect(digest.audit!.suspensions).toEqual([]);
  });

  it('suspensions and lifts done; refusals, no-ops and records SubOps cannot read are not', () => {
    const digest = build([
      audit(8, { action: 'suspend', result: 'suspended', ok: true, serviceId: 101, clientId: 1001, ...thread(5) }),
      audit(8.1, { action: 'suspend', result: 'already-suspended', ok: true, serviceId: 104, clientId: 1005 }),
      audit(8.2, { action: 'suspend', result: 'refused', ok: false, serviceId: 102, clientId: 1002 }),
      audit(9, { action: 'unsuspend', result: 'unsuspended', ok: true, serviceId: 104, clientId: 1005, actor: 'bob', actor_via: 'cli' }),
      { ts: tsAt(9.5), kind: 'audit', payload: { action: 'suspend', result: 'suspended' } },
    ]);
    expect(digest.audit!.suspensions).toEqual([{ serviceId: 101, clientId: 1001, actor: 'U0AGENT', actorVia: 'slack', summary: '', permalink: thread(5).permalink }]);
    expect(digest.audit!.lifts).toEqual([{ serviceId: 104, clientId: 1005, actor: 'bob', actorVia: 'cli', summary: '', permalink: null }]);
  });

  it('late duplicates of the day need a person', () => {
    const digest = build([
      { ts: tsAt(14), kind: 'late-duplicate', payload: { record: 'service', client_id: 1004, kept_id: 2001, late_ids: '2002,2003' } },
      { ts: tsAt(-2), kind: 'late-duplicate', payload: { record: 'client', client_id: 1010, kept_id: 1010, late_ids: '1011' } },
    ]);
    expect(digest.audit!.lateDuplicates).toEqual([{ record: 'service', clientId: 1004, keptId: '2001', lateIds: ['2002', '2003'] }]);
  });

  it('suspensions and lifts made in UISP itself come from the UISP-change notices, marked as such', () => {
    const uuid = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;
    const digest = build([
      { ts: tsAt(7), kind: 'uisp-change', payload: { change: 'service-suspended', uuid: uuid(1), serviceId: 103, clientId: 1003 } },
      { ts: tsAt(7.5), kind: 'uisp-change', payload: { change: 'service-unsuspended', uuid: uuid(2), serviceId: 104, clientId: 1005 } },
      { ts: tsAt(8), kind: 'uisp-change', payload: { change: 'payment-added', uuid: uuid(3), clientId: 1005 } },
      { ts: tsAt(-3), kind: 'uisp-change', payload: { change: 'service-suspended', uuid: uuid(4), serviceId: 101, clientId: 1001 } },
    ]);
    expect(digest.audit!.suspensions).toEqual([{ serviceId: 103, clientId: 1003, actor: 'UISP', actorVia: 'uisp', summary: '', permalink: null }]);
    expect(digest.audit!.lifts).toEqual([{ serviceId: 104, clientId: 1005, actor: 'UISP', actorVia: 'uisp', summary: '', permalink: null }]);
  });

  it('webhook events SubOps gave up on need a person, unless UISP sent them again and they were processed since', () => {
    const digest = build([
      { ts: tsAt(5), kind: 'webhook-failed', payload: { uuid: 'aaaaaaaa-0000-4000-8000-000000000001', event: 'service' } },
      { ts: tsAt(6), kind: 'webhook-failed', payload: { uuid: 'aaaaaaaa-0000-4000-8000-000000000002', event: 'unknown' } },
      { ts: tsAt(6.5), kind: 'webhook-failed', payload: { uuid: 'aaaaaaaa-0000-4000-8000-000000000002', event: 'unknown' } },
      { ts: tsAt(9), kind: 'uisp-change', payload: { change: 'service-suspended', uuid: 'aaaaaaaa-0000-4000-8000-000000000001', serviceId: 103 } },
    ]);
    expect(digest.audit!.failedWebhooks).toEqual([{ uuid: 'aaaaaaaa-0000-4000-8000-000000000002', event: 'unknown' }]);
    expect(isQuiet(build([{ ts: tsAt(5), kind: 'webhook-failed', payload: { uuid: 'x', event: 'payment' } }]))).toBe(false);
  });

  it('payments of the local day: count and total per currency and per method (by name), summed to the cent', () => {
    const digest = build(null, [
      payment(1, '2025-03-04T04:00:00+0000', 0.1, 'GYD', 'cash-id'),
      payment(2, '2025-03-04T12:00:00+0000', 0.2, 'GYD', 'cash-id'),
      payment(3, '2025-03-04T15:00:00+0000', 5000, 'GYD', 'bank-id'),
      payment(4, '2025-03-05T03:30:00+0000', 25.5, 'USD', 'cash-id'),
      payment(5, '2025-03-04T16:00:00+0000', 7, 'GYD', null),
      // 23:59 local the day before, and midnight local the day after.
      payment(6, '2025-03-04T03:59:00+0000', 1, 'GYD', 'cash-id'),
      payment(7, '2025-03-05T04:00:00+0000', 1, 'GYD', 'cash-id'),
    ]);
    expect(digest.payments).toEqual({
      count: 5,
      byCurrency: [
        { currency: 'GYD', count: 4, total: 5007.3 },
        { currency: 'USD', count: 1, total: 25.5 },
      ],
      byMethod: [
        { method: 'Cash', currency: 'GYD', count: 2, total: 0.3 },
        { method: 'Bank transfer', currency: 'GYD', count: 1, total: 5000 },
        { method: 'Cash', currency: 'USD', count: 1, total: 25.5 },
        { method: null, currency: 'GYD', count: 1, total: 7 },
      ],
    });
    expect(digest.audit).toBeNull();
  });

  it('a day with nothing is quiet; one payment, one pending link or one audit record is not', () => {
    expect(isQuiet(build([]))).toBe(true);
    expect(isQuiet(build(null))).toBe(true);
    expect(isQuiet(build([], [payment(1, '2025-03-04T12:00:00+0000', 1, 'GYD', null)]))).toBe(false);
    expect(isQuiet(build([audit(3, { action: 'unsuspend', result: 'unsuspended', ok: true, serviceId: 104 })]))).toBe(false);
    expect(isQuiet(buildDigest({ date: DATE, timeZone: ZONE, day, payments: [], methods: [], awaitingLink: [{ siteId: 's', siteName: 'S', clientId: 1 }], outages: null, trail: [] }))).toBe(false);
    expect(isQuiet(buildDigest({ date: DATE, timeZone: ZONE, day, payments: [], methods: [], awaitingLink: [], outages: { count: 0, downSeconds: 0, customerMinutes: 0 }, trail: [] }))).toBe(true);
    expect(isQuiet(buildDigest({ date: DATE, timeZone: ZONE, day, payments: [], methods: [], awaitingLink: [], outages: { count: 1, downSeconds: 120, customerMinutes: 2 }, trail: [] }))).toBe(false);
  });
});

describe('the day in ISP_TIMEZONE', () => {
  it('a Guyana day (UTC−4) runs from 04:00 UTC to 04:00 UTC; DIGEST_TIME is read on the local clock', () => {
    expect(dayBoundsIn('2025-03-04', 'America/Guyana')).toEqual({ start: new Date('2025-03-04T04:00:00Z'), end: new Date('2025-03-05T04:00:00Z') });
    expect(instantIn('2025-03-05', { hour: 8, minute: 0 }, 'America/Guyana')).toEqual(new Date('2025-03-05T12:00:00Z'));
  });

  it('across a DST change the day is 23 hours long and 08:00 is still 08:00 local', () => {
    expect(dayBoundsIn('2025-03-09', 'America/New_York')).toEqual({ start: new Date('2025-03-09T05:00:00Z'), end: new Date('2025-03-10T04:00:00Z') });
    expect(instantIn('2025-03-09', { hour: 8, minute: 0 }, 'America/New_York')).toEqual(new Date('2025-03-09T12:00:00Z'));
    expect(instantIn('2025-03-08', { hour: 8, minute: 0 }, 'America/New_York')).toEqual(new Date('2025-03-08T13:00:00Z'));
  });
});

describe('readDigest on a seeded simulator day', () => {
  let uisp: UispFixture | undefined;
  afterEach(async () => {
    await uisp?.close();
    uisp = undefined;
  });

  it('payments of the Guyana day (23:30 local is 03:30 UTC the next day), method names from the CRM, sites awaiting the link, the audit trail from the day start', async () => {
    uisp = await startUisp();
    const { data } = uisp.sim;
    const [cash, check] = data.paymentMethods;
    const template = data.payments[0]!;
    data.payments.length = 0;
    data.payments.push(
      { ...template, id: 1, clientId: 1001, amount: 10_000, currencyCode: 'GYD', methodId: cash!.id, createdDate: '2025-03-04T03:30:00+0000' },
      { ...template, id: 2, clientId: 1001, amount: 10_000, currencyCode: 'GYD', methodId: cash!.id, createdDate: '2025-03-04T14:00:00+0000' },
      { ...template, id: 3, clientId: 1006, amount: 25_000, currencyCode: 'GYD', methodId: check!.id, createdDate: '2025-03-05T03:30:00+0000' },
      { ...template, id: 4, clientId: 1006, amount: 1, currencyCode: 'GYD', methodId: check!.id, createdDate: '2025-03-05T04:30:00+0000' },
    );
    const endpoint = data.sites.find((site) => site.identification.name === 'Marcus Baptiste')!;
    data.sites.push({
      ...structuredClone(endpoint),
      id: '9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f',
      identification: { ...endpoint.identification, name: 'Shanice Williams', id: '9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f' },
      // SubOps' marker and no CRM binding yet: the manual link is still to be made.
      description: { ...endpoint.description, note: 'Created by SubOps for CRM client 1004 (activation 0a1b2c3d)', ucrmId: null },
      ucrm: { client: null, service: null },
    });
    const asked: [Date, Date][] = [];
    const trail: AuditSource = async function* (from, to) {
      asked.push([from, to]);
      yield audit(2, { action: 'unsuspend', result: 'unsuspended', ok: true, serviceId: 104, clientId: 1005 });
    };
    const now = new Date('2025-03-05T12:00:00Z');
    const digest = await readDigest({ crm: uisp.services.crm, network: uisp.services.network, outages: uisp.services.outages, timeZone: ZONE, audit: trail, now: () => now }, DATE);

    expect(digest.payments).toEqual({
      count: 2,
      byCurrency: [{ currency: 'GYD', count: 2, total: 35_000 }],
      byMethod: [
        { method: 'Cash', currency: 'GYD', count: 1, total: 10_000 },
        { method: 'Check', currency: 'GYD', count: 1, total: 25_000 },
      ],
    });
    expect(digest.awaitingLink).toEqual([{ siteId: '9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f', siteName: 'Shanice Williams', clientId: 1004 }]);
    expect(digest.audit!.lifts).toMatchObject([{ serviceId: 104, clientId: 1005 }]);
    expect(asked).toEqual([[day.start, now]]);
  });

  /** Hours after the Guyana day's start. */
  const hoursIn = (hours: number) => new Date(day.start.getTime() + hours * 3_600_000);
  const world = worldFromEnv();

  it("counts the day's outages, their time down within the day and the customer-minutes lost (one began the evening before)", async () => {
    uisp = await startUisp({ simulator: { world, filters: [...new Set([...WORLD_FILTERS[world], 'outages' as const])] } });
    const { sim, services } = uisp;
    // Diamond Tower's AP (2 customers below it) from 23:00 the day before until 01:00: 60 minutes of the day.
    sim.takeDown(DIAMOND_AP, hoursIn(-1));
    sim.bringBack(DIAMOND_AP, hoursIn(1));
    // Ravi Persaud's own radio (1 customer), 10:00 to 10:30.
    sim.takeDown(CPE_PERSAUD, hoursIn(10));
    sim.bringBack(CPE_PERSAUD, hoursIn(10.5));
    // Enmore Tower's AP the day before only: not this day's.
    sim.takeDown(ENMORE_AP, hoursIn(-5));
    sim.bringBack(ENMORE_AP, hoursIn(-4));
    const digest = await readDigest({ crm: services.crm, network: services.network, outages: services.outages, timeZone: ZONE, audit: undefined, now: () => hoursIn(30) }, DATE);
    expect(digest.outages).toEqual({ count: 2, downSeconds: 90 * 60, customerMinutes: 2 * 60 + 30 });
    expect(digestParts(digest)).toContainEqual({ heading: 'Outages (2)', lines: [{ text: '1h 30m down in all, 150 customer-minutes lost' }] });
  });

  it('an NMS without GET /outages: the digest has no outages line', async () => {
    uisp = await startUisp({ simulator: { world, filters: WORLD_FILTERS.interface } });
    uisp.sim.takeDown(DIAMOND_AP, hoursIn(2));
    const { services } = uisp;
    const digest = await readDigest({ crm: services.crm, network: services.network, outages: services.outages, timeZone: ZONE, audit: undefined, now: () => hoursIn(30) }, DATE);
    expect(digest.outages).toBeNull();
    expect(digestParts(digest).map((part) => part.heading)).not.toContainEqual(expect.stringMatching(/^Outages/));
  });
});

describe('DIGEST_CHANNEL_ID and DIGEST_TIME', () => {
  const base = { UISP_URL: 'https://uisp.example.net', UISP_TOKEN: 't', SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's', ALLOWED_EVERYONE: 'true' };

  it('no channel, no digest (as before); the time defaults to 08:00', () => {
    expect(loadAppConfig(base).digest).toBeUndefined();
    expect(loadAppConfig({ ...base, DIGEST_CHANNEL_ID: 'C0DIGEST' }).digest).toEqual({ channelId: 'C0DIGEST', time: { hour: 8, minute: 0 } });
    expect(loadAppConfig({ ...base, DIGEST_CHANNEL_ID: 'C0DIGEST', DIGEST_TIME: '23:05' }).digest).toEqual({ channelId: 'C0DIGEST', time: { hour: 23, minute: 5 } });
  });

  it.each(['8:00', '24:00', '08:60', 'eight', '08:00:00'])('DIGEST_TIME=%s is a configuration error naming the variable', (value) => {
    expect(() => loadAppConfig({ ...base, DIGEST_TIME: value })).toThrow(ConfigError);
    expect(() => loadAppConfig({ ...base, DIGEST_TIME: value })).toThrow(`DIGEST_TIME must be a time of day as HH:MM, 24-hour, e.g. 08:00 (got "${value}")`);
  });
});
