/**
 * The simulator's CRM webhooks: each change is recorded as a webhook event the CRM can be asked about,
 * and POSTed to the configured URL in UISP's body shape once the change is answered.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { crm } from './helpers.js';

let sim: RunningSimulator;
let receiver: Server;
let received: Record<string, unknown>[];
let status: number;

beforeEach(async () => {
  received = [];
  status = 200;
  receiver = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      received.push(JSON.parse(text) as Record<string, unknown>);
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  sim = await startSimulator({ webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/uisp/webhook?token=t` });
});

afterEach(async () => {
  await sim.close();
  await new Promise((resolve) => receiver.close(resolve));
});

describe('webhook events', () => {
  it('a suspension is POSTed in UISP’s shape, and GET /webhook-events/{uuid} confirms it', async () => {
    expect((await crm(sim, 'PATCH', '/clients/services/101/suspend', { suspensionReasonId: 1 })).status).toBe(200);
    await sim.webhooksSettled();
    expect(received).toEqual([
      {
        uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
        changeType: 'suspend',
        entity: 'service',
        entityId: '101',
        eventName: 'service.suspend',
        extraData: { entity: expect.objectContaining({ id: 101, status: 3 }), entityBeforeEdit: null },
      },
    ]);
    const uuid = String(received[0]!.uuid);
    expect(sim.webhookDeliveries).toEqual([{ uuid, url: expect.stringContaining("/uisp/webhook?token=t"), status: 200, ms: expect.any(Number) }]);
    expect(await crm(sim, 'GET', `/webhook-events/${uuid}`)).toEqual({ status: 200, body: { uuid, changeType: 'suspend', entity: 'service', entityId: 101 } });
    expect((await crm(sim, 'GET', '/webhook-events/2c6984d7-03ae-4e48-a212-7b99378837a2')).status).toBe(404);
  });

  it.each([
    ['a client added', 'POST', '/clients', { firstName: 'Ada', lastName: 'Lovelace' }, ['client', 'insert', 'client.add']],
    ['a client archived', 'PATCH', '/clients/1004/archive', undefined, ['client', 'archive', 'client.archive']],
    ['a service added', 'POST', '/clients/1004/services', { status: 1, servicePlanPeriodId: 37, activeFrom: '2026-01-01', invoicingStart: '2026-01-01' }, ['service', 'insert', 'service.add']],
    ['a suspension lifted', 'PATCH', '/clients/services/104/cancel-suspend', undefined, ['service', 'unsuspend', 'service.suspend_cancel']],
    ['a service ended', 'PATCH', '/clients/services/101/end', undefined, ['service', 'end', 'service.end']],
    ['a payment added', 'POST', '/payments', { clientId: 1005, amount: 5000 }, ['payment', 'insert', 'payment.add']],
  ])('%s', async (_what, method, path, body, [entity, changeType, eventName]) => {
    expect((await crm(sim, method, path, body)).status).toBeLessThan(300);
    await sim.webhooksSettled();
    expect(received).toEqual([expect.objectContaining({ entity, changeType, eventName })]);
    expect(sim.webhookEvents).toEqual([expect.objectContaining({ entity, changeType, eventName, entityId: Number(received[0]!.entityId) })]);
  });

  it('a refused change sends nothing; reads send nothing', async () => {
    expect((await crm(sim, 'PATCH', '/clients/services/104/suspend', { suspensionReasonId: 1 })).status).toBe(422);
    expect((await crm(sim, 'GET', '/clients/1001')).status).toBe(200);
    await sim.webhooksSettled();
    expect(received).toEqual([]);
    expect(sim.webhookEvents).toEqual([]);
  });

  it('records the receiver’s answer and sends an event again on request, with the same uuid', async () => {
    status = 500;
    await crm(sim, 'POST', '/payments', { clientId: 1005, amount: 5000 });
    await sim.webhooksSettled();
    const uuid = sim.webhookEvents[0]!.uuid;
    status = 200;
    sim.resendWebhook(uuid);
    await sim.webhooksSettled();
    expect(sim.webhookDeliveries.map((d) => [d.uuid, d.status])).toEqual([
      [uuid, 500],
      [uuid, 200],
    ]);
    expect(received.map((body) => body.uuid)).toEqual([uuid, uuid]);
  });

  it('without a webhook URL, events are recorded and nothing is sent', async () => {
    sim.setWebhookUrl(undefined);
    await crm(sim, 'POST', '/payments', { clientId: 1005, amount: 5000 });
    await sim.webhooksSettled();
    expect(sim.webhookEvents).toHaveLength(1);
    expect(received).toEqual([]);
  });
});

describe('reads the webhook consumer needs', () => {
  it('GET /payments/{id}', async () => {
    expect((await crm(sim, 'GET', '/payments/1')).body).toMatchObject({ id: 1, currencyCode: 'GYD' });
    expect((await crm(sim, 'GET', '/payments/999999')).status).toBe(404);
  });
});
