/**
 * Every body the product reads parses with the product's own zod schemas (src/services/uisp/schemas.ts),
 * and the product's CRM and NMS clients work end to end against the simulator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CrmClient } from '../../src/services/uisp/crm-client.js';
import { createUispDispatcher, UispHttp } from '../../src/services/uisp/http.js';
import { NmsClient } from '../../src/services/uisp/nms-client.js';
import {
  ClientSchema,
  DeviceSchema,
  NmsStatusSchema,
  PaymentMethodSchema,
  PaymentSchema,
  ServicePlanSchema,
  ServiceSchema,
  SiteSchema,
  SuspensionReasonSchema,
  UispErrorBodySchema,
} from '../../src/services/uisp/schemas.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { call, CRM, crm, NMS, nms } from './helpers.js';

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(() => sim.close());

/** On failure the assertion message is zod’s description of every issue. */
function expectParses(schema: z.ZodType, body: unknown): void {
  const result = schema.safeParse(body);
  expect(result.success, result.success ? '' : z.prettifyError(result.error)).toBe(true);
}

describe('list endpoints parse with the product schemas', () => {
  it.each([
    ['CRM', '/clients', ClientSchema],
    ['CRM', '/clients?isArchived=1', ClientSchema],
    ['CRM', '/service-suspension-reasons', SuspensionReasonSchema],
    ['CRM', '/service-plans', ServicePlanSchema],
    ['CRM', '/payment-methods', PaymentMethodSchema],
    ['CRM', '/payments', PaymentSchema],
    ['NMS', '/devices', DeviceSchema],
    ['NMS', '/devices/discovered', DeviceSchema],
    ['NMS', '/sites', SiteSchema],
  ] as const)('%s %s', async (system, path, schema) => {
    const answer = await (system === 'CRM' ? crm : nms)(sim, 'GET', path);
    expect(answer.status).toBe(200);
    expect(answer.body.length).toBeGreaterThan(0);
    expectParses(z.array(schema), answer.body);
  });

  it('every client’s services', async () => {
    for (const client of sim.data.clients) expectParses(z.array(ServiceSchema), (await crm(sim, 'GET', `/clients/${client.id}/services`)).body);
  });
});

describe('single, created and error bodies parse too', () => {
  it('CRM', async () => {
    expectParses(ClientSchema, (await crm(sim, 'GET', '/clients/1006')).body);
    expectParses(ClientSchema, (await crm(sim, 'POST', '/clients', { firstName: 'Ada', lastName: 'Lovelace' })).body);
    expectParses(ClientSchema, (await crm(sim, 'PATCH', '/clients/1004', { note: 'n' })).body);
    expectParses(ServiceSchema, (await crm(sim, 'GET', '/clients/services/104')).body);
    expectParses(ServiceSchema, (await crm(sim, 'POST', '/clients/1004/services', { status: 1, servicePlanPeriodId: 37, activeFrom: '2026-01-01', invoicingStart: '2026-01-01' })).body);
    expectParses(ServiceSchema, (await crm(sim, 'PATCH', '/clients/services/101/suspend', { suspensionReasonId: 1 })).body);
    expectParses(PaymentSchema, (await crm(sim, 'POST', '/payments', { clientId: 1001, amount: 10 })).body);
  });

  it('NMS', async () => {
    const device = sim.data.devices.find((d) => !d.identification.authorized)!.identification.id;
    expectParses(DeviceSchema, (await nms(sim, 'GET', `/devices/${device}`)).body);
    const site = (await nms(sim, 'POST', '/sites', { name: 'New', type: 'endpoint', parentSiteId: sim.data.sites[0]!.id })).body;
    expectParses(SiteSchema, site);
    expectParses(SiteSchema, (await nms(sim, 'GET', `/sites/${site.id}`)).body);
    expectParses(NmsStatusSchema, (await nms(sim, 'POST', `/devices/${device}/authorize`, { siteId: site.id })).body);
  });

  it('errors', async () => {
    for (const answer of [
      await call(sim, 'GET', `${CRM}/clients`, undefined, {}),
      await call(sim, 'GET', `${NMS}/sites`, undefined, {}),
      await crm(sim, 'GET', '/clients/4242'),
      await crm(sim, 'POST', '/clients', {}),
      await nms(sim, 'POST', '/sites', {}),
      await nms(sim, 'GET', '/devices/nope'),
    ]) {
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expectParses(UispErrorBodySchema, answer.body);
    }
  });
});

describe('the product’s UISP clients against the simulator', () => {
  const timeouts = { connectMs: 1000, requestMs: 2000 };
  const dispatcher = createUispDispatcher(timeouts);
  afterAll(() => dispatcher.close());
  const http = (system: 'crm' | 'nms', path: string) =>
    new UispHttp({ system, baseUrl: sim.url + path, headers: { 'X-Auth-Token': sim.token }, dispatcher, timeouts, retry: { retries: 0, backoffMs: 1 } });

  it('CRM: clients, services, suspension, plans, methods and paged payments', async () => {
    const client = new CrmClient(http('crm', CRM));
    expect(await client.listClients({ query: 'kevin', isArchived: false })).toHaveLength(2);
    const created = await client.createClient({ firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.org' });
    expect(created.contacts[0]?.email).toBe('grace@example.org');
    const service = await client.createService(created.id, { status: 1, servicePlanPeriodId: 37, price: 10_000, activeFrom: '2026-01-01', invoicingStart: '2026-01-01' });
    expect(service.status).toBe(1);
    await client.suspendService(service.id, 1);
    expect((await client.getService(service.id)).status).toBe(3);
    await client.cancelSuspendService(service.id);
    expect((await client.listServices(created.id)).map((s) => s.status)).toEqual([1]);
    await client.deleteService(service.id);
    expect(await client.listServices(created.id)).toEqual([]);
    expect((await client.listServicePlans()).find((p) => p.name === 'Standard Monthly')?.periods[0]).toMatchObject({ id: 37, price: 10_000 });
    expect(await client.listSuspensionReasons()).toHaveLength(4);
    expect(await client.listPaymentMethods()).toHaveLength(4);
    let count = 0;
    for await (const payment of client.payments({ clientId: 1001 })) count += payment.clientId === 1001 ? 1 : 0;
    expect(count).toBe(sim.data.payments.filter((p) => p.clientId === 1001).length);
    expect(await client.createPayment({ clientId: created.id, amount: 5_000 })).toMatchObject({ clientId: created.id, currencyCode: 'GYD' });
  });

  it('NMS: devices, sites and authorization', async () => {
    const client = new NmsClient(http('nms', NMS));
    const pending = await client.listDiscoveredDevices();
    const site = await client.createSite({ name: 'Grace Hopper', type: 'endpoint', parentSiteId: (await client.listSites())[0]!.id });
    await client.authorizeDevice(pending[0]!.identification.id, site.id);
    expect((await client.getDevice(pending[0]!.identification.id)).identification.site?.id).toBe(site.id);
    expect((await client.listDevices()).map((d) => d.identification.id)).toContain(pending[0]!.identification.id);
  });
});
