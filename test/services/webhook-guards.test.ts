/**
 * What keeps the webhook consumer honest under abuse, piece by piece: the per-source rate limit, the
 * backlog served round-robin per source (a flood cannot delay another source's events by more than a
 * turn), and the check that an event still matches what the CRM says now (an old payment or a
 * suspension since lifted is ignored). Clocks are injected; nothing waits for real time.
 */
import { describe, expect, it } from 'vitest';
import { SHARED_STATUSES } from '../../src/services/activation/service-status.js';
import { OwnChanges } from '../../src/services/events/own-changes.js';
import { TaskQueue } from '../../src/services/events/queue.js';
import { RateLimiter } from '../../src/services/events/webhook-endpoint.js';
import { WebhookProcessor, type ChangeNotice, type WebhookOutcome } from '../../src/services/events/webhooks.js';
import type { CrmClient } from '../../src/services/uisp/crm-client.js';
import { createLogger } from '../../src/slack/logging.js';
import { memoryClaims } from '../support/store.js';

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

describe('RateLimiter: per-source token buckets', () => {
  it('allows a minute’s worth at once, then refuses with the seconds until the next one; sources are independent', () => {
    let t = 1_000_000;
    const limiter = new RateLimiter(5, () => t);
    expect(Array.from({ length: 5 }, () => limiter.take('10.0.0.9').ok)).toEqual([true, true, true, true, true]);
    expect(limiter.take('10.0.0.9')).toEqual({ ok: false, retryAfterS: 12, first: true });
    // The same episode: not "first" again (logged once).
    expect(limiter.take('10.0.0.9')).toEqual({ ok: false, retryAfterS: 12, first: false });
    // Another address is not affected.
    expect(limiter.take('10.0.0.1').ok).toBe(true);
    t += 6_000;
    expect(limiter.take('10.0.0.9')).toEqual({ ok: false, retryAfterS: 6, first: false });
    t += 6_000;
    expect(limiter.take('10.0.0.9').ok).toBe(true);
    expect(limiter.take('10.0.0.9').ok).toBe(false);
    // Quiet for a minute: the bucket is full again and the next refusal starts a new episode.
    t += 60_000;
    for (let i = 0; i < 5; i++) expect(limiter.take('10.0.0.9').ok).toBe(true);
    expect(limiter.take('10.0.0.9')).toMatchObject({ ok: false, first: true });
  });

  it('remembers a bounded number of sources, forgetting refilled ones first', () => {
    let t = 0;
    const limiter = new RateLimiter(1, () => t, 10);
    for (let i = 0; i < 10; i++) limiter.take(`10.0.0.${i}`);
    // All ten are spent; a new source makes room by forgetting the oldest, not by failing.
    expect(limiter.take('10.0.1.1').ok).toBe(true);
    // 10.0.0.9 is still remembered as spent.
    expect(limiter.take('10.0.0.9').ok).toBe(false);
    t += 60_000;
    expect(limiter.take('10.0.0.9').ok).toBe(true);
  });
});

describe('TaskQueue: lanes served round-robin', () => {
  it('a lane full of tasks delays another lane’s task by one turn, not by its backlog; each lane is bounded', async () => {
    const queue = new TaskQueue(1, 1_000, 50);
    const started: string[] = [];
    let release!: () => void;
    const parked = new Promise<void>((resolve) => (release = resolve));
    const task = (name: string) => async () => {
      started.push(name);
      await parked;
    };
    const done = Array.from({ length: 51 }, (_, i) => queue.push(task(`flood-${i}`), '203.0.113.9'));
    // The first runs; 50 wait; the 52nd of that lane is refused.
    expect(done.at(-1)).toBeDefined();
    expect(queue.push(task('flood-extra'), '203.0.113.9')).toBeUndefined();
    expect(queue.waitingIn('203.0.113.9')).toBe(50);
    const real = queue.push(task('real'), '192.0.2.1');
    expect(real).toBeDefined();
    release();
    await Promise.all([...done, real]);
    // flood-0 was running, flood-1 had the first turn, then the real one.
    expect(started.indexOf('real')).toBe(2);
    expect(started).toHaveLength(52);
  });
});

describe('WebhookProcessor: an event is acted on only while the CRM still says what it says', () => {
  const HOUR = 3_600_000;
  const NOW = Date.parse('2026-03-10T12:00:00Z');

  function processor(records: { event: Record<string, unknown>; payment?: Record<string, unknown>; service?: Record<string, unknown>; client?: Record<string, unknown> }) {
    const crm = {
      getWebhookEvent: async (id: string) => ({ uuid: id, eventName: null, ...records.event }),
      getPayment: async () => records.payment,
      getService: async () => records.service,
      getClient: async () => records.client ?? { id: 1001, firstName: 'Marcus', lastName: 'Baptiste' },
      listServices: async () => [{ id: 101, clientId: 1001, status: 3 }],
    } as unknown as CrmClient;
    const outcomes: WebhookOutcome[] = [];
    const notices: ChangeNotice[] = [];
    const webhooks = new WebhookProcessor({
      crm,
      claims: memoryClaims(),
      ownChanges: new OwnChanges(),
      statuses: SHARED_STATUSES,
      logger: createLogger('silent'),
      onOutcome: (_entity, outcome) => outcomes.push(outcome),
      paymentWindowMs: 24 * HOUR,
      now: () => NOW,
    });
    webhooks.subscribe((notice) => void notices.push(notice));
    return { webhooks, outcomes, notices };
  }

  const payment = (createdDate: string) => ({
    event: { entity: 'payment', changeType: 'insert', entityId: 3201 },
    payment: { id: 3201, clientId: 1001, methodId: null, createdDate, amount: 2500, currencyCode: 'GYD', note: null },
  });

  it.each([
    ['made an hour ago', '2026-03-10T11:00:00+0000', 'notified'],
    ['made 23 h ago, in another zone', '2026-03-09T09:00:00-0400', 'notified'],
    ['made 25 h ago', '2026-03-09T11:00:00+0000', 'stale'],
    ['made a month ago', '2026-02-08T12:00:00+0000', 'stale'],
    ['with a date that cannot be read', 'yesterday', 'stale'],
    // A clock a little ahead of ours is allowed for; a date weeks ahead is no payment made just now.
    ['dated 2 h ahead (clock skew)', '2026-03-10T14:00:00+0000', 'notified'],
    ['dated 30 days ahead', '2026-04-09T12:00:00+0000', 'stale'],
    ['dated 25 h ahead', '2026-03-11T13:00:00+0000', 'stale'],
  ])('a payment %s: %s', async (_what, createdDate, outcome) => {
    const { webhooks, outcomes, notices } = processor(payment(createdDate));
    webhooks.receive({ uuid: uuid(1) });
    await webhooks.idle();
    expect(outcomes).toEqual([outcome]);
    expect(notices).toHaveLength(outcome === 'notified' ? 1 : 0);
  });

  it.each([
    ['a suspension of a service suspended now', 'suspend', 3, 'notified'],
    ['a suspension of a service active again', 'suspend', 1, 'stale'],
    ['a lift of a service active now', 'unsuspend', 1, 'notified'],
    ['a lift of a service suspended again', 'unsuspend', 3, 'stale'],
    ['an activation of a service suspended since', 'activate', 3, 'stale'],
  ])('%s: %s', async (_what, changeType, status, outcome) => {
    const { webhooks, outcomes, notices } = processor({ event: { entity: 'service', changeType, entityId: 101 }, service: { id: 101, clientId: 1001, status, name: 'Standard Monthly' } });
    webhooks.receive({ uuid: uuid(2) });
    await webhooks.idle();
    expect(outcomes).toEqual([outcome]);
    expect(notices).toHaveLength(outcome === 'notified' ? 1 : 0);
  });

  it('an archive of a client restored since: stale', async () => {
    const { webhooks, outcomes } = processor({ event: { entity: 'client', changeType: 'archive', entityId: 1004 }, client: { id: 1004, firstName: 'Shanice', lastName: 'Williams', isArchived: false } });
    webhooks.receive({ uuid: uuid(3) });
    await webhooks.idle();
    expect(outcomes).toEqual(['stale']);
  });
});
