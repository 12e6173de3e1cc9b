/** The pieces of the webhook consumer on their own: own writes, the kinds reported, the bounded queue. */
import { describe, expect, it } from 'vitest';
import { reportedKind } from '../../src/services/events/changes.js';
import { auditRecordMakes, changeOfWrite, OWN_CHANGE_WINDOW_MS, OwnChanges } from '../../src/services/events/own-changes.js';
import { TaskQueue } from '../../src/services/events/queue.js';
import { WebhookProcessor } from '../../src/services/events/webhooks.js';
import type { CrmClient } from '../../src/services/uisp/crm-client.js';
import { UispUnavailableError } from '../../src/services/uisp/errors.js';
import { endpointOf } from '../../src/services/uisp/exchange.js';
import { SHARED_STATUSES } from '../../src/services/activation/service-status.js';
import { createLogger } from '../../src/slack/logging.js';
import { memoryClaims } from '../support/store.js';

const CRM = '/crm/api/v1.0';

describe('changeOfWrite: the webhook event a CRM write causes', () => {
  it.each([
    ['POST', '/clients', { id: 1010 }, { entity: 'client', id: 1010, changeType: 'insert' }],
    ['PATCH', '/clients/1004', {}, { entity: 'client', id: 1004, changeType: 'edit' }],
    ['PATCH', '/clients/1004/archive', {}, { entity: 'client', id: 1004, changeType: 'archive' }],
    ['POST', '/clients/1004/services', { id: 106 }, { entity: 'service', id: 106, changeType: 'insert' }],
    ['DELETE', '/clients/services/102', null, { entity: 'service', id: 102, changeType: 'delete' }],
    ['PATCH', '/clients/services/101/suspend', null, { entity: 'service', id: 101, changeType: 'suspend' }],
    ['PATCH', '/clients/services/104/cancel-suspend', null, { entity: 'service', id: 104, changeType: 'unsuspend' }],
    ['PATCH', '/clients/services/101/end', null, { entity: 'service', id: 101, changeType: 'end' }],
    ['POST', '/payments', { id: 3201 }, { entity: 'payment', id: 3201, changeType: 'insert' }],
  ])('%s %s', (method, path, body, change) => {
    expect(changeOfWrite(method, `${CRM}${path}`, body)).toEqual(change);
  });

  it('reads, NMS writes and a POST without the new id cause none SubOps can name', () => {
    expect(changeOfWrite('GET', `${CRM}/clients/1`, {})).toBeUndefined();
    expect(changeOfWrite('POST', '/nms/api/v2.1/sites', { id: 'x' })).toBeUndefined();
    expect(changeOfWrite('POST', `${CRM}/payments`, undefined)).toBeUndefined();
  });
});

describe('OwnChanges', () => {
  const write = (own: OwnChanges, method: string, path: string) => own.request({ system: 'crm', method, path: `${CRM}${path}`, endpoint: endpointOf(`${CRM}${path}`) });

  it('waits for a write in flight: the webhook may arrive before the POST’s answer names the new id', async () => {
    const own = new OwnChanges();
    const finish = write(own, 'POST', '/payments');
    const asked = own.madeBySubOps({ entity: 'payment', id: 3201, changeType: 'insert' });
    finish({ status: '2xx', durationMs: 5, body: { id: 3201 } });
    expect(await asked).toBe(true);
    expect(await own.madeBySubOps({ entity: 'payment', id: 3202, changeType: 'insert' })).toBe(false);
  });

  it('a write refused by UISP changed nothing; one that got no answer may have, and counts as ours', async () => {
    const own = new OwnChanges();
    write(own, 'PATCH', '/clients/services/101/suspend')({ status: '422', durationMs: 5 });
    write(own, 'PATCH', '/clients/services/102/suspend')({ status: 'none', durationMs: 5 });
    expect(await own.madeBySubOps({ entity: 'service', id: 101, changeType: 'suspend' })).toBe(false);
    expect(await own.madeBySubOps({ entity: 'service', id: 102, changeType: 'suspend' })).toBe(true);
  });

  it('a service SubOps created is also the one UISP calls activated; memory lasts ttlMs', async () => {
    let t = 0;
    const own = new OwnChanges({ ttlMs: 1000, now: () => t });
    write(own, 'POST', '/clients/1004/services')({ status: '2xx', durationMs: 5, body: { id: 106 } });
    expect(await own.madeBySubOps({ entity: 'service', id: 106, changeType: 'activate' })).toBe(true);
    t = 1000;
    expect(await own.madeBySubOps({ entity: 'service', id: 106, changeType: 'insert' })).toBe(false);
  });
});

describe('reportedKind', () => {
  it.each([
    [{ entity: 'service', changeType: 'suspend', entityId: 1 }, 'service-suspended'],
    [{ entity: 'service', changeType: 'unsuspend', entityId: 1 }, 'service-unsuspended'],
    [{ entity: 'service', changeType: 'end', entityId: 1 }, 'service-ended'],
    [{ entity: 'payment', changeType: 'insert', entityId: 1 }, 'payment-added'],
    [{ entity: 'client', changeType: 'archive', entityId: 1 }, 'client-archived'],
    [{ entity: 'client', changeType: 'edit', entityId: 1 }, undefined],
    [{ entity: 'invoice', changeType: 'insert', entityId: 1 }, undefined],
    [{ entity: 'webhook', changeType: 'test', entityId: null }, undefined],
  ])('%o → %s', (event, kind) => {
    expect(reportedKind(event)).toBe(kind);
  });
});

describe('the queue', () => {
  it('runs at most `concurrency` tasks, refuses past `maxWaiting`, and runs the waiting ones in order', async () => {
    const queue = new TaskQueue(1, 1);
    const order: string[] = [];
    let release!: () => void;
    const first = queue.push(() => new Promise<void>((resolve) => (release = resolve)).then(() => void order.push('first')));
    const second = queue.push(async () => void order.push('second'));
    expect(queue.push(async () => void order.push('third'))).toBeUndefined();
    expect(queue.size).toBe(2);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first', 'second']);
  });

  it('a full backlog answers "busy" (the endpoint says 503: UISP sends it again) and forgets nothing it accepted', async () => {
    let release!: () => void;
    const parked = new Promise<void>((resolve) => (release = resolve));
    const asked: string[] = [];
    const crm = {
      getWebhookEvent: async (uuid: string) => {
        asked.push(uuid);
        await parked;
        return { uuid, entity: 'invoice', changeType: 'insert', entityId: 1, eventName: null };
      },
    } as unknown as CrmClient;
    const processor = new WebhookProcessor({ crm, claims: memoryClaims(), ownChanges: new OwnChanges(), statuses: SHARED_STATUSES, logger: createLogger('silent'), concurrency: 1, maxWaiting: 1 });
    const uuid = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;
    expect([1, 2, 3].map((n) => processor.receive({ uuid: uuid(n) }))).toEqual(['accepted', 'accepted', 'busy']);
    expect(processor.receive({ uuid: uuid(1) })).toBe('duplicate');
    release();
    await processor.idle();
    expect(asked).toEqual([uuid(1), uuid(2)]);
    // The refused one is not remembered: UISP's next attempt is taken.
    expect(processor.receive({ uuid: uuid(3) })).toBe('accepted');
    await processor.idle();
  });
});

describe('auditRecordMakes: the audit record of another SubOps process that made a change', () => {
  const at = { recordedAt: 1_800_000_000_000, changedAt: 1_800_000_010_000 };
  const suspended = { ok: true, result: 'suspended' };
  it.each([
    [{ action: 'suspend', serviceId: 101, ...suspended }, { entity: 'service', id: 101, changeType: 'suspend' }, true],
    [{ action: 'suspend', serviceId: 102, ...suspended }, { entity: 'service', id: 101, changeType: 'suspend' }, false],
    [{ action: 'unsuspend', serviceId: 104, ok: true, result: 'unsuspended' }, { entity: 'service', id: 104, changeType: 'unsuspend' }, true],
    [{ action: 'suspend', serviceId: 104, ...suspended }, { entity: 'service', id: 104, changeType: 'unsuspend' }, false],
    [{ action: 'activate', clientId: 1010, serviceId: 106, ok: true, result: 'activated' }, { entity: 'service', id: 106, changeType: 'insert' }, true],
    [{ action: 'activate', clientId: 1010, serviceId: 106, ok: true, result: 'activated' }, { entity: 'client', id: 1010, changeType: 'insert' }, true],
    [{ action: 'payment', paymentId: 3201, clientId: 1001, ok: true, result: 'recorded' }, { entity: 'payment', id: 3201, changeType: 'insert' }, true],
    [{ action: 'payment', paymentId: 3201, clientId: 1001, ok: true, result: 'recorded' }, { entity: 'client', id: 1001, changeType: 'insert' }, false],
    [{ action: 'activate', clientId: 1004, ok: true, result: 'activated' }, { entity: 'client', id: 1004, changeType: 'archive' }, false],
    // Records of writes that changed nothing, or did not happen, explain no change.
    [{ action: 'unsuspend', serviceId: 101, ok: true, result: 'not-suspended' }, { entity: 'service', id: 101, changeType: 'unsuspend' }, false],
    [{ action: 'suspend', serviceId: 101, ok: true, result: 'already-suspended' }, { entity: 'service', id: 101, changeType: 'suspend' }, false],
    [{ action: 'activate', clientId: 1010, serviceId: 106, ok: true, result: 'already-activated' }, { entity: 'service', id: 106, changeType: 'insert' }, false],
    [{ action: 'payment', paymentId: 3201, ok: true, result: 'already-recorded' }, { entity: 'payment', id: 3201, changeType: 'insert' }, false],
    [{ action: 'suspend', serviceId: 101, ok: false, result: 'suspended' }, { entity: 'service', id: 101, changeType: 'suspend' }, false],
    [{ action: 'suspend', serviceId: 101, ok: false, result: 'refused' }, { entity: 'service', id: 101, changeType: 'suspend' }, false],
    [{ action: 'suspend', serviceId: 101, ok: false, result: 'failed' }, { entity: 'service', id: 101, changeType: 'suspend' }, false],
    [{ action: 'suspend', serviceId: 101 }, { entity: 'service', id: 101, changeType: 'suspend' }, false],
  ])('%o makes %o: %s', (record, change, expected) => {
    expect(auditRecordMakes(record, change, at)).toBe(expected);
  });

  it(`counts only a record written within ${OWN_CHANGE_WINDOW_MS / 60_000} minutes of the change, either side`, () => {
    const record = { action: 'suspend', serviceId: 101, ...suspended };
    const change = { entity: 'service', id: 101, changeType: 'suspend' };
    const changedAt = 1_800_000_000_000;
    const makes = (offsetMs: number) => auditRecordMakes(record, change, { recordedAt: changedAt + offsetMs, changedAt });
    expect([0, OWN_CHANGE_WINDOW_MS, -OWN_CHANGE_WINDOW_MS].map(makes)).toEqual([true, true, true]);
    expect([OWN_CHANGE_WINDOW_MS + 1, -OWN_CHANGE_WINDOW_MS - 1, -3_600_000, Number.NaN].map(makes)).toEqual([false, false, false, false]);
  });
});

describe('WebhookProcessor: a UISP error while processing', () => {
  const uuid = '00000000-0000-4000-8000-000000000009';
  const unavailable = () => new UispUnavailableError({ system: 'crm', method: 'GET', path: `/crm/api/v1.0/webhook-events/${uuid}` }, 'connection reset');

  function processor(failures: number) {
    const asked: string[] = [];
    const outcomes: string[] = [];
    const crm = {
      getWebhookEvent: async (id: string) => {
        asked.push(id);
        if (asked.length <= failures) throw unavailable();
        // A kind SubOps does not report: processing ends once the CRM confirms it.
        return { uuid: id, entity: 'invoice', changeType: 'insert', entityId: 1, eventName: null };
      },
    } as unknown as CrmClient;
    const webhooks = new WebhookProcessor({ crm, claims: memoryClaims(), ownChanges: new OwnChanges(), statuses: SHARED_STATUSES, logger: createLogger('silent'), attempts: 3, retryBackoffMs: 0, onOutcome: (_entity, outcome) => outcomes.push(outcome) });
    return { webhooks, asked, outcomes };
  }

  it('is tried again (UISP will not send the event again after our 200): two failures, then processed once', async () => {
    const { webhooks, asked, outcomes } = processor(2);
    expect(webhooks.receive({ uuid })).toBe('accepted');
    await webhooks.idle();
    expect(asked).toEqual([uuid, uuid, uuid]);
    expect(outcomes).toEqual(['ignored']);
  });

  it('after the last attempt the event is counted failed, told to the failure listeners and forgotten, so a later delivery is processed', async () => {
    const { webhooks, asked, outcomes } = processor(3);
    const failures: unknown[] = [];
    webhooks.onFailure((failure) => void failures.push(failure));
    webhooks.receive({ uuid });
    await webhooks.idle();
    expect(outcomes).toEqual(['failed']);
    expect(failures).toEqual([{ uuid, entity: 'unknown' }]);
    expect(webhooks.receive({ uuid })).toBe('accepted');
    await webhooks.idle();
    expect(asked).toHaveLength(4);
    expect(outcomes).toEqual(['failed', 'ignored']);
  });
});
