/** CRM clients, services and suspension: the rules of spec §2, §3 and §7 as a client of the API sees them. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { crm, ids, UISP_DATE } from './helpers.js';

let sim: RunningSimulator;
beforeEach(async () => {
  sim = await startSimulator();
});
afterEach(() => sim.close());

const newService = { servicePlanPeriodId: 37, activeFrom: '2026-01-05', invoicingStart: '2026-01-05' };

describe('GET /clients', () => {
  it('lists clients that are not archived by default; isArchived=1 lists the archived ones', async () => {
    const active = await crm(sim, 'GET', '/clients');
    expect(active.status).toBe(200);
    expect(ids(active.body)).toEqual([1001, 1002, 1003, 1004, 1005, 1006, 1008, 1009]);
    expect(ids((await crm(sim, 'GET', '/clients?isArchived=1')).body)).toEqual([1007]);
  });

  it.each([
    ['query=kevin', [1008, 1009]],
    ['query=KEVIN%20SINGH', [1008, 1009]],
    ['query=marine', [1006]],
    ['query=dw-1003', [1003]],
    ['email=Marcus.Baptiste@Example.com', [1001]],
    ['phone=600-1001', [1001]],
    ['userIdent=DW-1005', [1005]],
    ['query=kevin&limit=1&offset=1', [1009]],
    ['query=nobody', []],
  ])('filters with %s', async (query, expected) => {
    expect(ids((await crm(sim, 'GET', `/clients?${query}`)).body)).toEqual(expected);
  });

  it('GET /clients/{id} returns one client (archived too), 404 for an unknown id', async () => {
    expect((await crm(sim, 'GET', '/clients/1007')).body).toMatchObject({ id: 1007, isArchived: true, firstName: 'Leon' });
    expect(await crm(sim, 'GET', '/clients/4242')).toEqual({ status: 404, body: { code: 404, message: 'Object is not found.' } });
  });

  it('says which client has a suspended service', async () => {
    const clients = (await crm(sim, 'GET', '/clients')).body as { id: number; hasSuspendedService: boolean }[];
    expect(clients.filter((c) => c.hasSuspendedService).map((c) => c.id)).toEqual([1005]);
  });
});

describe('POST and PATCH /clients', () => {
  it('creates a residential client with contacts, no tags and the organization currency (201)', async () => {
    const answer = await crm(sim, 'POST', '/clients', { clientType: 1, firstName: 'Ada', lastName: 'Lovelace', contacts: [{ email: 'ada@example.org', phone: '+592 600 0000' }] });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ id: 1010, firstName: 'Ada', lastName: 'Lovelace', tags: [], currencyCode: 'GYD', isArchived: false });
    expect(answer.body.contacts).toEqual([expect.objectContaining({ id: expect.any(Number), clientId: 1010, email: 'ada@example.org' })]);
    expect(answer.body.registrationDate).toMatch(UISP_DATE);
    expect((await crm(sim, 'GET', '/clients/1010')).body.firstName).toBe('Ada');
  });

  it('refuses a residential client without first or last name (422 naming them)', async () => {
    expect(await crm(sim, 'POST', '/clients', { firstName: 'Ada' })).toEqual({
      status: 422,
      body: { code: 422, message: 'Validation failed.', errors: { lastName: [expect.any(String)] } },
    });
    expect(Object.keys((await crm(sim, 'POST', '/clients', { lastName: '  ', contacts: [] })).body.errors).sort()).toEqual(['firstName', 'lastName']);
  });

  it('refuses a company without a company name, and mistyped fields', async () => {
    expect((await crm(sim, 'POST', '/clients', { clientType: 2, firstName: 'A', lastName: 'B' })).body.errors).toHaveProperty('companyName');
    expect((await crm(sim, 'POST', '/clients', { firstName: 5, lastName: 'B' })).body.errors).toHaveProperty('firstName');
  });

  it('PATCH updates the given fields and silently ignores tags (spec §2)', async () => {
    const answer = await crm(sim, 'PATCH', '/clients/1002', { tags: [{ id: 1, name: 'VIP' }], note: 'Prefers WhatsApp', city: 'Providence' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id: 1002, tags: [], note: 'Prefers WhatsApp', city: 'Providence', firstName: 'Priya' });
    expect((await crm(sim, 'GET', '/clients/1002')).body.tags).toEqual([]);
    // A client that has tags keeps them.
    expect((await crm(sim, 'PATCH', '/clients/1001', { tags: [] })).body.tags).toEqual([expect.objectContaining({ name: 'VIP' })]);
  });

  it('PATCH refuses blanking a required name, and 404s an unknown client', async () => {
    expect((await crm(sim, 'PATCH', '/clients/1002', { lastName: '' })).body.errors).toHaveProperty('lastName');
    expect((await crm(sim, 'PATCH', '/clients/4242', { note: 'x' })).status).toBe(404);
  });
});

describe('services', () => {
  it('lists a client’s services; 404 for an unknown client', async () => {
    expect((await crm(sim, 'GET', '/clients/1001/services')).body).toEqual([expect.objectContaining({ id: 101, clientId: 1001, status: 1 })]);
    expect((await crm(sim, 'GET', '/clients/1004/services')).body).toEqual([]);
    expect((await crm(sim, 'GET', '/clients/4242/services')).status).toBe(404);
  });

  it('creates an Active service with status 1, priced from the plan period', async () => {
    const answer = await crm(sim, 'POST', '/clients/1004/services', { ...newService, status: 1 });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({
      id: 106,
      clientId: 1004,
      status: 1,
      servicePlanPeriodId: 37,
      servicePlanId: 12,
      servicePlanName: 'Standard Monthly',
      name: 'Standard Monthly',
      price: 10000,
      currencyCode: 'GYD',
      activeFrom: '2026-01-05T00:00:00+0000',
      invoicingStart: '2026-01-05T00:00:00+0000',
    });
    expect((await crm(sim, 'GET', '/clients/services/106')).body.status).toBe(1);
  });

  it('takes dates as YYYY-MM-DD or, as the CRM documents them, as an ISO 8601 date-time with an offset (kept as given)', async () => {
    const zoned = await crm(sim, 'POST', '/clients/1004/services', { ...newService, status: 1, activeFrom: '2026-11-22T00:00:00-0400', invoicingStart: '2026-11-22T00:00:00-04:00' });
    expect(zoned.body).toMatchObject({ activeFrom: '2026-11-22T00:00:00-0400', invoicingStart: '2026-11-22T00:00:00-0400' });
    const eastern = await crm(sim, 'POST', '/clients/1004/services', { ...newService, status: 1, activeFrom: '2026-01-01T00:00:00+0530', invoicingStart: '2026-01-01' });
    expect(eastern.body).toMatchObject({ activeFrom: '2026-01-01T00:00:00+0530', invoicingStart: '2026-01-01T00:00:00+0000' });
  });

  it.each([[{}], [{ status: 6 }], [{ status: 7 }], [{ status: 0 }]])('without status 1 (%o) the service comes out Quoted (spec §7)', async (extra) => {
    expect(await crm(sim, 'POST', '/clients/1004/services', { ...newService, ...extra })).toMatchObject({ status: 201, body: { status: 6 } });
  });

  it('requires servicePlanPeriodId, activeFrom and invoicingStart (422 naming the missing ones)', async () => {
    const answer = await crm(sim, 'POST', '/clients/1004/services', { status: 1 });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors).sort()).toEqual(['activeFrom', 'invoicingStart', 'servicePlanPeriodId']);
    expect((await crm(sim, 'POST', '/clients/1004/services', { ...newService, servicePlanPeriodId: 999 })).body.errors).toHaveProperty('servicePlanPeriodId');
    expect((await crm(sim, 'POST', '/clients/1004/services', { ...newService, activeFrom: 'tomorrow' })).body.errors).toHaveProperty('activeFrom');
    expect((await crm(sim, 'POST', '/clients/4242/services', newService)).status).toBe(404);
  });

  it('PATCH leaves status, activeFrom and invoicingStart unchanged whatever is sent (spec §3)', async () => {
    const answer = await crm(sim, 'PATCH', '/clients/services/102', { status: 1, activeFrom: '2020-01-01', invoicingStart: '2020-01-01', name: 'Home internet' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id: 102, status: 6, activeFrom: '2025-09-15T00:00:00+0000', invoicingStart: '2025-09-15T00:00:00+0000', name: 'Home internet' });
    expect((await crm(sim, 'GET', '/clients/services/102')).body).toMatchObject({ status: 6, activeFrom: '2025-09-15T00:00:00+0000' });
  });

  it('PATCH of the price makes it individual', async () => {
    expect((await crm(sim, 'PATCH', '/clients/services/101', { price: 9000 })).body).toMatchObject({ price: 9000, hasIndividualPrice: true, servicePlanPrice: 10000 });
  });

  it('DELETE removes the service: delete-and-create is how a Quoted one becomes Active', async () => {
    expect((await crm(sim, 'DELETE', '/clients/services/102')).status).toBe(200);
    expect((await crm(sim, 'GET', '/clients/services/102')).status).toBe(404);
    expect((await crm(sim, 'DELETE', '/clients/services/102')).status).toBe(404);
    await crm(sim, 'POST', '/clients/1002/services', { ...newService, status: 1 });
    expect((await crm(sim, 'GET', '/clients/1002/services')).body.map((s: { status: number }) => s.status)).toEqual([1]);
  });
});

describe('suspension', () => {
  it('suspend → status 3 with the reason; cancel-suspend → Active again', async () => {
    const suspended = await crm(sim, 'PATCH', '/clients/services/101/suspend', { suspensionReasonId: 2 });
    expect(suspended).toMatchObject({ status: 200, body: { id: 101, status: 3, suspensionReasonId: 2 } });
    expect(suspended.body.suspensionPeriods).toEqual([expect.objectContaining({ startDate: expect.stringMatching(UISP_DATE), endDate: null })]);
    expect((await crm(sim, 'GET', '/clients/1001')).body.hasSuspendedService).toBe(true);

    const lifted = await crm(sim, 'PATCH', '/clients/services/101/cancel-suspend');
    expect(lifted).toMatchObject({ status: 200, body: { id: 101, status: 1, suspensionReasonId: null } });
    expect(lifted.body.suspensionPeriods[0].endDate).toMatch(UISP_DATE);
    expect((await crm(sim, 'GET', '/clients/services/101')).body.status).toBe(1);
  });

  it('lifts the sample suspension of service 104', async () => {
    expect((await crm(sim, 'PATCH', '/clients/services/104/cancel-suspend', {})).body).toMatchObject({ status: 1, suspensionReasonId: null });
  });

  it.each([
    ['no reason', {}],
    ['an unknown reason', { suspensionReasonId: 99 }],
    ['a reason that is not a number', { suspensionReasonId: 'Non-payment' }],
  ])('refuses to suspend with %s (422 on suspensionReasonId)', async (_case, body) => {
    const answer = await crm(sim, 'PATCH', '/clients/services/101/suspend', body);
    expect(answer).toMatchObject({ status: 422, body: { code: 422, errors: { suspensionReasonId: [expect.any(String)] } } });
    expect(sim.data.services.find((s) => s.id === 101)?.status).toBe(1);
  });

  it('suspends only an Active service, and cancels only a suspended one (422 saying so)', async () => {
    const again = await crm(sim, 'PATCH', '/clients/services/104/suspend', { suspensionReasonId: 1 });
    expect(again).toMatchObject({ status: 422, body: { message: expect.stringMatching(/only an active service/i) } });
    expect((await crm(sim, 'PATCH', '/clients/services/102/suspend', { suspensionReasonId: 1 })).status).toBe(422);
    const notSuspended = await crm(sim, 'PATCH', '/clients/services/101/cancel-suspend');
    expect(notSuspended).toMatchObject({ status: 422, body: { message: expect.stringMatching(/only a suspended service/i) } });
  });

  it('404s an unknown service', async () => {
    expect((await crm(sim, 'PATCH', '/clients/services/999/suspend', { suspensionReasonId: 1 })).status).toBe(404);
    expect((await crm(sim, 'PATCH', '/clients/services/999/cancel-suspend')).status).toBe(404);
  });

  it('lists the suspension reasons', async () => {
    expect((await crm(sim, 'GET', '/service-suspension-reasons')).body.map((r: { name: string }) => r.name)).toEqual(['Non-payment', 'Customer request', 'Equipment issue', 'Relocation']);
  });
});
