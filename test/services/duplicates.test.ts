/**
 * Late duplicates (issue §5): the pure removal decision, table-tested, and DuplicateService against the
 * simulator: found from what UISP holds, the late one removed only when it is still SubOps-made, never
 * invoiced (a site: no device, no CRM link; a client: a newer namesake of the kept one, named the same,
 * with no service, payment or invoice) and the kept one still there; otherwise nothing is written.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { recordMarker, siteMarker } from '../../src/services/activation/markers.js';
import { INTERFACE_NUMBERING, statusLabel } from '../../src/services/activation/service-status.js';
import { decideRemoval, type NamesakeReads, type RemovalReads, type RemovalRequest } from '../../src/services/duplicates.js';
import {
  ClientSchema,
  DeviceSchema,
  InvoiceSchema,
  PaymentSchema,
  ServiceSchema,
  SiteSchema,
  type Client,
  type Device,
  type Invoice,
  type Service,
  type Site,
} from '../../src/services/uisp/schemas.js';
import { buildData } from '../../src/simulator/index.js';
import { WORLD_FILTERS, type SimulatorFilter } from '../../src/simulator/world.js';
import { crm, nms } from '../simulator/helpers.js';
import { invoice, seedClientDuplicate, seedServiceDuplicate, seedSiteDuplicate, seedSubOpsSite } from '../support/late-duplicates.js';
import { startUisp, type UispFixture } from '../support/uisp.js';

const statuses = INTERFACE_NUMBERING;
const MARK = recordMarker('3f9a1c2e');

const service = (id: number, changes: Partial<Service> = {}): Service => ServiceSchema.parse({ id, clientId: 1002, status: statuses.active, name: 'Standard Monthly', note: MARK, ...changes });
const site = (id: string, changes: Partial<Site> = {}): Site =>
  SiteSchema.parse({ id, identification: { id, name: 'Priya Ramnarine', type: 'endpoint' }, description: { note: siteMarker(1002, '3f9a1c2e') }, ...changes });
const deviceOn = (siteId: string): Device => DeviceSchema.parse({ identification: { id: `d-${siteId}`, name: `cpe-${siteId}`, authorized: true, site: { id: siteId, name: 'x' } }, ipAddress: '10.0.0.9' });
const bill = (id: number, serviceId: number | null): Invoice => InvoiceSchema.parse({ id, clientId: 1002, items: [{ id: id * 10, serviceId }] });

const serviceRequest: RemovalRequest = { clientId: 1002, record: 'service', keptId: 5003, duplicateId: 5007 };
const siteRequest: RemovalRequest = { clientId: 1002, record: 'site', keptId: 's-kept', duplicateId: 's-late' };

/** `active`, unless given: the client's Active services among the two read. */
const services = (changes: Partial<Extract<RemovalReads, { record: 'service' }>> = {}): RemovalReads => {
  const reads = { record: 'service' as const, kept: service(5003), duplicate: service(5007), invoices: [], statusLabel: (status: number) => statusLabel(status, statuses), ...changes };
  return { active: [reads.kept, reads.duplicate].filter((s): s is Service => s?.status === statuses.active), ...reads };
};
const sites = (changes: Partial<Extract<RemovalReads, { record: 'site' }>> = {}): RemovalReads => ({ record: 'site', kept: site('s-kept'), duplicate: site('s-late'), devices: [deviceOn('s-kept')], ...changes });

// A customer's client (1010, the one activations use) and its newer SubOps-made namesake 1011, empty.
const LATE_MARK = recordMarker('7b2d4e6f');
const person = (id: number, changes: Partial<Client> = {}): Client => ClientSchema.parse({ id, firstName: 'Jane', lastName: 'Doe', note: MARK, ...changes });
const clientRequest: RemovalRequest = { clientId: 1010, record: 'client', keptId: 1010, duplicateId: 1011 };
const clients = (changes: Partial<Extract<RemovalReads, { record: 'client' }>> = {}): RemovalReads => ({
  record: 'client',
  kept: person(1010),
  duplicate: person(1011, { note: LATE_MARK }),
  services: [],
  payments: [],
  invoices: [],
  ...changes,
});

// A late site of client 1002 whose SubOps marker names 1012, a namesake of 1002 the activation's lookup left out.
const leftSite = (changes: Partial<Site> = {}) => site('s-late', { description: { note: siteMarker(1012, '7b2d4e6f'), ucrmId: null }, ...changes });
const priya = (id: number, changes: Partial<Client> = {}) => person(id, { firstName: 'Priya', lastName: 'Ramnarine', ...changes });
const namesake = (changes: Partial<NamesakeReads> = {}): NamesakeReads => ({ id: 1012, client: priya(1012, { note: LATE_MARK }), services: [], keptClient: priya(1002, { note: null }), ...changes });
const namesakeSites = (changes: Partial<NamesakeReads> = {}, siteChanges: Partial<Site> = {}): RemovalReads => sites({ duplicate: leftSite(siteChanges), namesake: namesake(changes) });

describe('decideRemoval', () => {
  it.each<[string, RemovalRequest, RemovalReads, unknown]>([
    ['a late SubOps service, never invoiced, beside an Active kept one: removed', serviceRequest, services(), { remove: true }],
    ['a person’s older Active service is never kept instead of SubOps’ one', serviceRequest, services({ kept: service(5003, { note: null }) }), { remove: false, refusal: { reason: 'kept' } }],
    ['a person’s Active service beside them changes nothing', serviceRequest, services({ active: [service(5001, { note: null }), service(5003), service(5007)] }), { remove: true }],
    ['an invoice of another service does not count', serviceRequest, services({ invoices: [bill(1, 5003), bill(2, null)] }), { remove: true }],
    ['the request names the kept one', { ...serviceRequest, duplicateId: 5003 }, services(), { remove: false, refusal: { reason: 'same-record' } }],
    ['the late one is gone', serviceRequest, services({ duplicate: null }), { remove: false, refusal: { reason: 'gone' } }],
    ['it is another client’s', serviceRequest, services({ duplicate: service(5007, { clientId: 1003 }) }), { remove: false, refusal: { reason: 'other-client', clientId: 1003 } }],
    ['its marker was removed', serviceRequest, services({ duplicate: service(5007, { note: 'moved here by hand' }) }), { remove: false, refusal: { reason: 'not-subops' } }],
    ['the kept one is gone', serviceRequest, services({ kept: null }), { remove: false, refusal: { reason: 'kept-gone' } }],
    ['the kept one is suspended', serviceRequest, services({ kept: service(5003, { status: statuses.suspended }) }), { remove: false, refusal: { reason: 'kept-not-active', status: 3, statusLabel: 'Suspended' } }],
    ['the "late" one is the older', { ...serviceRequest, keptId: 5009 }, services({ kept: service(5009) }), { remove: false, refusal: { reason: 'not-newer' } }],
    ['an invoice bills it', serviceRequest, services({ invoices: [bill(1, 5003), bill(2, 5007)] }), { remove: false, refusal: { reason: 'invoiced', invoiceIds: [2] } }],
    ['the CRM says it was invoiced', serviceRequest, services({ duplicate: service(5007, { lastInvoicedDate: '2026-02-01T00:00:00+0000' }) }), { remove: false, refusal: { reason: 'invoiced', invoiceIds: [] } }],
    ['a late empty SubOps site beside the kept one: removed', siteRequest, sites(), { remove: true }],
    ['the site is gone', siteRequest, sites({ duplicate: null }), { remove: false, refusal: { reason: 'gone' } }],
    ['the site lost its marker', siteRequest, sites({ duplicate: site('s-late', { description: { note: 'ours now', ucrmId: null } }) }), { remove: false, refusal: { reason: 'not-subops' } }],
    ['the site is linked in the CRM to another client', siteRequest, sites({ duplicate: site('s-late', { ucrm: { client: { id: '1003', name: 'Dwayne Fraser' } } }) }), { remove: false, refusal: { reason: 'linked', clientId: 1003 } }],
    ['the site is linked to this client (ucrm.client)', siteRequest, sites({ duplicate: site('s-late', { description: { note: siteMarker(1002, '7b2d4e6f'), ucrmId: '537' }, ucrm: { client: { id: '1002', name: null }, service: { id: '537' } } }) }), { remove: false, refusal: { reason: 'linked', clientId: 1002 } }],
    ['the site is bound to a service (ucrmId; a stock UISP read without ucrmDetails)', siteRequest, sites({ duplicate: site('s-late', { description: { note: siteMarker(1002, '7b2d4e6f'), ucrmId: '537' } }) }), { remove: false, refusal: { reason: 'linked', clientId: null } }],
    ['the site was made for another client', siteRequest, sites({ duplicate: site('s-late', { description: { note: siteMarker(1003, '7b2d4e6f'), ucrmId: null } }) }), { remove: false, refusal: { reason: 'other-client', clientId: 1003 } }],
    ['the kept site is gone', siteRequest, sites({ kept: null }), { remove: false, refusal: { reason: 'kept-gone' } }],
    ['a device is on the late site', siteRequest, sites({ devices: [deviceOn('s-late')] }), { remove: false, refusal: { reason: 'in-use', devices: [{ id: 'd-s-late', name: 'cpe-s-late' }] } }],
  ])('%s', (_what, request, reads, decision) => {
    expect(decideRemoval(request, reads)).toEqual(decision);
  });

  it.each<[string, RemovalRequest, RemovalReads, unknown]>([
    ['an empty SubOps namesake, newer than the kept client: removed', clientRequest, clients(), { remove: true }],
    ['names compare ignoring case and spacing', clientRequest, clients({ duplicate: person(1011, { note: LATE_MARK, firstName: ' jane', lastName: 'DOE ' }) }), { remove: true }],
    ['the kept client need not be SubOps-made', clientRequest, clients({ kept: person(1010, { note: null }) }), { remove: true }],
    ['the request names the kept client', { ...clientRequest, duplicateId: 1010 }, clients({ duplicate: person(1010) }), { remove: false, refusal: { reason: 'same-record' } }],
    ['the namesake is gone', clientRequest, clients({ duplicate: null }), { remove: false, refusal: { reason: 'gone' } }],
    ['the namesake lost its marker', clientRequest, clients({ duplicate: person(1011, { note: 'Jane’s shop account' }) }), { remove: false, refusal: { reason: 'not-subops' } }],
    ['the kept client is gone', clientRequest, clients({ kept: null }), { remove: false, refusal: { reason: 'kept-gone' } }],
    ['the "late" one is the older', { clientId: 1012, record: 'client', keptId: 1012, duplicateId: 1011 }, clients({ kept: person(1012) }), { remove: false, refusal: { reason: 'not-newer' } }],
    ['the namesake was renamed', clientRequest, clients({ duplicate: person(1011, { note: LATE_MARK, lastName: 'Smith' }) }), { remove: false, refusal: { reason: 'renamed' } }],
    ['the namesake became a company of another name', clientRequest, clients({ duplicate: person(1011, { note: LATE_MARK, firstName: null, lastName: null, companyName: 'Doe Hardware' }) }), { remove: false, refusal: { reason: 'renamed' } }],
    ['the namesake has a service (any status)', clientRequest, clients({ services: [service(5020, { clientId: 1011, status: statuses.quoted })] }), { remove: false, refusal: { reason: 'has-services', serviceIds: [5020] } }],
    ['the namesake has an invoice', clientRequest, clients({ invoices: [InvoiceSchema.parse({ id: 7, clientId: 1011, items: [] })] }), { remove: false, refusal: { reason: 'invoiced', invoiceIds: [7] } }],
    [
      'the namesake has a payment',
      clientRequest,
      clients({ payments: [PaymentSchema.parse({ id: 3301, clientId: 1011, createdDate: '2026-02-01T10:00:00+0000', amount: 5000, currencyCode: 'GYD' })] }),
      { remove: false, refusal: { reason: 'has-payments', paymentIds: [3301] } },
    ],
    ['renamed counts before a service', clientRequest, clients({ duplicate: person(1011, { note: LATE_MARK, lastName: 'Smith' }), services: [service(5020, { clientId: 1011 })] }), { remove: false, refusal: { reason: 'renamed' } }],
  ])('a late client: %s', (_what, request, reads, decision) => {
    expect(decideRemoval(request, reads)).toEqual(decision);
  });

  it.each<[string, RemovalReads, unknown]>([
    ['made for an empty SubOps namesake of the client, newer, named the same: removed like the client’s own', namesakeSites(), { remove: true }],
    ['its namesake no longer exists: removed', namesakeSites({ client: null, services: [] }), { remove: true }],
    ['…even when the kept client is not read', namesakeSites({ client: null, keptClient: null }), { remove: true }],
    ['its namesake has a service: another client’s', namesakeSites({ services: [service(5020, { clientId: 1012 })] }), { remove: false, refusal: { reason: 'other-client', clientId: 1012 } }],
    ['its namesake was renamed', namesakeSites({ client: priya(1012, { note: LATE_MARK, lastName: 'Persaud' }) }), { remove: false, refusal: { reason: 'other-client', clientId: 1012 } }],
    ['its namesake lost its marker', namesakeSites({ client: priya(1012, { note: null }) }), { remove: false, refusal: { reason: 'other-client', clientId: 1012 } }],
    ['the kept client could not be found to compare', namesakeSites({ keptClient: null }), { remove: false, refusal: { reason: 'other-client', clientId: 1012 } }],
    ['the namesake was not read', sites({ duplicate: leftSite() }), { remove: false, refusal: { reason: 'other-client', clientId: 1012 } }],
    ['what was read is another client', namesakeSites({ id: 1013 }), { remove: false, refusal: { reason: 'other-client', clientId: 1012 } }],
    [
      'its marker names an older client (never a left-out namesake)',
      namesakeSites({ id: 1001, client: priya(1001, { note: LATE_MARK }) }, { description: { note: siteMarker(1001, '7b2d4e6f'), ucrmId: null } }),
      { remove: false, refusal: { reason: 'other-client', clientId: 1001 } },
    ],
    ['it has a device on it', sites({ duplicate: leftSite(), namesake: namesake(), devices: [deviceOn('s-late')] }), { remove: false, refusal: { reason: 'in-use', devices: [{ id: 'd-s-late', name: 'cpe-s-late' }] } }],
    ['it is linked in the CRM', namesakeSites({}, { ucrm: { client: { id: '1012', name: 'Priya Ramnarine' } } }), { remove: false, refusal: { reason: 'linked', clientId: 1012 } }],
    ['it lost its marker', namesakeSites({}, { description: { note: 'ours now', ucrmId: null } }), { remove: false, refusal: { reason: 'not-subops' } }],
    ['the kept site is gone', sites({ duplicate: leftSite(), namesake: namesake(), kept: null }), { remove: false, refusal: { reason: 'kept-gone' } }],
  ])('a late site of a left-out namesake: %s', (_what, reads, decision) => {
    expect(decideRemoval(siteRequest, reads)).toEqual(decision);
  });
});

let uisp: UispFixture;
let running: UispFixture | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});
const start = async () => (running = uisp = await startUisp());

/** The requests made from now on, as "METHOD /path". */
function requestsFrom(): () => string[] {
  const since = uisp.sim.requests.length;
  return () => uisp.sim.requests.slice(since).map((r) => `${r.method} ${r.path}`);
}
const deletes = (requests: string[]) => requests.filter((r) => r.startsWith('DELETE'));
const serviceIds = (clientId: number) => uisp.sim.data.services.filter((s) => s.clientId === clientId).map((s) => s.id);

describe('DuplicateService against the simulator', () => {
  it('finds two SubOps-made Active services: the older kept, the newer late; the client card shows them too', async () => {
    await start();
    const { kept, late } = await seedServiceDuplicate(uisp.sim);
    const found = [{ record: 'service', client: { id: 1004, name: 'Shanice Williams' }, kept: { id: kept, name: 'Standard Monthly' }, others: [{ id: late, name: 'Standard Monthly' }] }];
    expect(await uisp.services.duplicates.find(1004)).toEqual(found);
    const card = await uisp.services.lookups.client('#1004');
    expect(card.kind === 'card' && card.card.duplicates).toEqual(found);
    expect(await uisp.services.duplicates.find(1001)).toEqual([]);
  });

  it('removes the newer: one DELETE, after reading the services and invoices again; pressed again, it is already removed', async () => {
    await start();
    const { kept, late } = await seedServiceDuplicate(uisp.sim);
    const requests = requestsFrom();
    const outcome = await uisp.services.duplicates.remove({ clientId: 1004, record: 'service', keptId: kept, duplicateId: late });
    expect(outcome).toMatchObject({ kind: 'removed', duplicate: { id: late }, kept: { id: kept } });
    expect(requests()).toEqual(expect.arrayContaining(['GET /crm/api/v1.0/clients/1004/services', 'GET /crm/api/v1.0/invoices']));
    expect(deletes(requests())).toEqual([`DELETE /crm/api/v1.0/clients/services/${late}`]);
    expect(serviceIds(1004)).toEqual([kept]);
    expect(await uisp.services.duplicates.find(1004)).toEqual([]);

    const again = await uisp.services.duplicates.remove({ clientId: 1004, record: 'service', keptId: kept, duplicateId: late });
    expect(again).toMatchObject({ kind: 'refused', refusal: { reason: 'gone' } });
    expect(deletes(requests())).toHaveLength(1);
  });

  it.each([
    ['invoiced since', (ids: { kept: number; late: number }) => void invoice(uisp.sim, 1004, [ids.late]), { reason: 'invoiced', invoiceIds: [1] }],
    [
      'no longer SubOps-made (a person changed its note)',
      async (ids: { kept: number; late: number }) => void (await crm(uisp.sim, 'PATCH', `/clients/services/${ids.late}`, { note: 'Second line for the shop' })),
      { reason: 'not-subops' },
    ],
    ['the kept one is gone', (ids: { kept: number; late: number }) => void uisp.sim.data.services.splice(uisp.sim.data.services.findIndex((s) => s.id === ids.kept), 1), { reason: 'kept-gone' }],
  ])('refuses when %s, and deletes nothing', async (_what, change, refusal) => {
    await start();
    const ids = await seedServiceDuplicate(uisp.sim);
    await change(ids);
    const before = serviceIds(1004);
    const requests = requestsFrom();
    const outcome = await uisp.services.duplicates.remove({ clientId: 1004, record: 'service', keptId: ids.kept, duplicateId: ids.late });
    expect(outcome).toMatchObject({ kind: 'refused', refusal });
    expect(requests().filter((r) => !r.startsWith('GET'))).toEqual([]);
    expect(serviceIds(1004)).toEqual(before);
  });

  it('sites: the one in use is kept; the empty late one is removed; the one with the device never is', async () => {
    await start();
    const { kept, late } = await seedSiteDuplicate(uisp.sim);
    expect(await uisp.services.duplicates.find(1004)).toEqual([
      { record: 'site', client: { id: 1004, name: 'Shanice Williams' }, kept: { id: kept, name: 'Shanice Williams' }, others: [{ id: late, name: 'Shanice Williams' }] },
    ]);
    const requests = requestsFrom();
    const inUse = await uisp.services.duplicates.remove({ clientId: 1004, record: 'site', keptId: late, duplicateId: kept });
    expect(inUse).toMatchObject({ kind: 'refused', refusal: { reason: 'in-use', devices: [{ name: 'LiteBeam-Williams' }] } });
    expect(deletes(requests())).toEqual([]);

    const site = uisp.sim.data.sites.find((s) => s.id === late)!;
    site.ucrm = { client: { id: '1003', name: 'Dwayne Fraser', isLead: false }, service: null };
    expect(await uisp.services.duplicates.remove({ clientId: 1004, record: 'site', keptId: kept, duplicateId: late })).toMatchObject({ kind: 'refused', refusal: { reason: 'linked', clientId: 1003 } });
    expect(deletes(requests())).toEqual([]);

    site.ucrm = null;
    expect(await uisp.services.duplicates.remove({ clientId: 1004, record: 'site', keptId: kept, duplicateId: late })).toMatchObject({ kind: 'removed' });
    expect(deletes(requests())).toEqual([`DELETE /nms/api/v2.1/sites/${late}`]);
    expect(uisp.sim.data.sites.some((s) => s.id === late)).toBe(false);
  });
});

describe('Remove duplicate (a site) on the reads narrowed to its records (issue #38)', () => {
  it.each<[string, SimulatorFilter | null]>([
    ['every filter the world has', null],
    ['no GET /devices?siteId=', 'devices.siteId'],
    ['no GET /sites?id=', 'sites.id'],
  ])('a device authorized onto the late site after it was named is read fresh: refused, nothing deleted (%s)', async (_what, missing) => {
    await start();
    if (missing) uisp.sim.honourFilters(WORLD_FILTERS[uisp.sim.world].filter((f) => f !== missing));
    const { kept, late } = await seedSiteDuplicate(uisp.sim);
    const [duplicate] = await uisp.services.duplicates.find(1004);
    expect(duplicate).toMatchObject({ record: 'site', kept: { id: kept }, others: [{ id: late }] });
    const station = uisp.sim.data.devices.find((d) => d.identification.name === 'NS-Fraser')!;
    expect((await nms(uisp.sim, 'POST', '/devices/authorize', { siteId: late, deviceIds: [station.identification.id] })).status).toBe(200);
    const requests = requestsFrom();
    const mark = uisp.sim.requests.length;
    const outcome = await uisp.services.duplicates.remove({ clientId: 1004, record: 'site', keptId: kept, duplicateId: late });
    expect(outcome).toMatchObject({ kind: 'refused', refusal: { reason: 'in-use', devices: [{ name: 'NS-Fraser' }] } });
    expect(deletes(requests())).toEqual([]);
    // Where NMS honours the filters, the removal reads the two sites by id and the devices on the late one: no whole list.
    if (uisp.sim.world === 'stock' && !missing) expect(uisp.sim.requests.slice(mark).filter((r) => r.method === 'GET' && ['/nms/api/v2.1/sites', '/nms/api/v2.1/devices'].includes(r.path) && !('id' in r.query || 'siteId' in r.query || 'type' in r.query))).toEqual([]);
  });
});

describe('DuplicateService: a left-out namesake client', () => {
  const clientIds = (name = 'Doe') => uisp.sim.data.clients.filter((c) => c.lastName === name).map((c) => c.id);

  it('removes the empty newer namesake: one DELETE of exactly it, after reading both clients, its services, a payment and its invoices; pressed again, already removed', async () => {
    await start();
    const { kept, late } = await seedClientDuplicate(uisp.sim);
    const requests = requestsFrom();
    const outcome = await uisp.services.duplicates.remove({ clientId: kept, record: 'client', keptId: kept, duplicateId: late });
    expect(outcome).toEqual({
      kind: 'removed',
      request: { clientId: kept, record: 'client', keptId: kept, duplicateId: late },
      duplicate: { id: late, name: 'Jane Doe' },
      kept: { id: kept, name: 'Jane Doe' },
    });
    expect(requests()).toEqual(
      expect.arrayContaining([
        `GET /crm/api/v1.0/clients/${kept}`,
        `GET /crm/api/v1.0/clients/${late}`,
        `GET /crm/api/v1.0/clients/${late}/services`,
        'GET /crm/api/v1.0/payments',
        'GET /crm/api/v1.0/invoices',
      ]),
    );
    expect(requests().filter((r) => !r.startsWith('GET'))).toEqual([`DELETE /crm/api/v1.0/clients/${late}`]);
    // The payments read asks for one, of that client.
    const paymentsRead = uisp.sim.requests.filter((r) => r.path === '/crm/api/v1.0/payments').at(-1);
    expect(paymentsRead?.query).toMatchObject({ clientId: String(late), limit: '1' });
    expect(clientIds()).toEqual([kept]);

    const again = await uisp.services.duplicates.remove({ clientId: kept, record: 'client', keptId: kept, duplicateId: late });
    expect(again).toMatchObject({ kind: 'refused', refusal: { reason: 'gone' } });
    expect(deletes(requests())).toHaveLength(1);
  });

  it.each<[string, (ids: { kept: number; late: number }) => Promise<unknown>, unknown]>([
    [
      'it has a service',
      (ids) => crm(uisp.sim, 'POST', `/clients/${ids.late}/services`, { status: 1, servicePlanPeriodId: 37, activeFrom: '2026-01-05', invoicingStart: '2026-01-05' }),
      { reason: 'has-services' },
    ],
    ['it has a payment', (ids) => crm(uisp.sim, 'POST', '/payments', { clientId: ids.late, amount: 5000 }), { reason: 'has-payments' }],
    ['it has an invoice', async (ids) => invoice(uisp.sim, ids.late, []), { reason: 'invoiced' }],
    ['it was renamed (someone’s now)', (ids) => crm(uisp.sim, 'PATCH', `/clients/${ids.late}`, { lastName: 'Doe-Persaud' }), { reason: 'renamed' }],
    ['it no longer carries SubOps’ note line', (ids) => crm(uisp.sim, 'PATCH', `/clients/${ids.late}`, { note: 'Jane’s shop' }), { reason: 'not-subops' }],
    ['the kept client is gone', (ids) => crm(uisp.sim, 'DELETE', `/clients/${ids.kept}`), { reason: 'kept-gone' }],
  ])('refuses when %s, and sends no DELETE', async (_what, change, refusal) => {
    await start();
    const ids = await seedClientDuplicate(uisp.sim);
    const answer = (await change(ids)) as { status?: number } | number;
    if (typeof answer === 'object') expect(answer.status).toBeLessThan(300);
    const before = uisp.sim.data.clients.map((c) => c.id);
    const requests = requestsFrom();
    const outcome = await uisp.services.duplicates.remove({ clientId: ids.kept, record: 'client', keptId: ids.kept, duplicateId: ids.late });
    expect(outcome).toMatchObject({ kind: 'refused', refusal });
    expect(requests().filter((r) => !r.startsWith('GET'))).toEqual([]);
    expect(uisp.sim.data.clients.map((c) => c.id)).toEqual(before);
  });

  it('a site made for the namesake: removed like the client’s own late sites while the namesake is empty; refused once it has a service; removable once it is gone', async () => {
    await start();
    const { kept, late } = await seedClientDuplicate(uisp.sim);
    const keptSite = await seedSubOpsSite(uisp.sim, kept, 'Jane Doe', '3f9a1c2e');
    const lateSite = await seedSubOpsSite(uisp.sim, late, 'Jane Doe');
    const request: RemovalRequest = { clientId: kept, record: 'site', keptId: keptSite, duplicateId: lateSite };
    const requests = requestsFrom();

    // The namesake has a service: it is someone's, and so is its site.
    const made = await crm(uisp.sim, 'POST', `/clients/${late}/services`, { status: 1, servicePlanPeriodId: 37, activeFrom: '2026-01-05', invoicingStart: '2026-01-05' });
    expect(await uisp.services.duplicates.remove(request)).toMatchObject({ kind: 'refused', refusal: { reason: 'other-client', clientId: late } });
    expect(deletes(requests())).toEqual([]);
    uisp.sim.data.services.splice(uisp.sim.data.services.findIndex((s) => s.id === made.body.id), 1);

    // Empty again: the site goes, like any late SubOps site of the client.
    const second = await seedSubOpsSite(uisp.sim, late, 'Jane Doe', '9c8d7e6f');
    expect(await uisp.services.duplicates.remove(request)).toMatchObject({ kind: 'removed', duplicate: { id: lateSite } });
    expect(requests()).toEqual(expect.arrayContaining([`GET /crm/api/v1.0/clients/${late}`, `GET /crm/api/v1.0/clients/${late}/services`, `GET /crm/api/v1.0/clients/${kept}`]));
    expect(deletes(requests())).toEqual([`DELETE /nms/api/v2.1/sites/${lateSite}`]);

    // The namesake removed: its other site is an orphan, removable too.
    expect(await uisp.services.duplicates.remove({ clientId: kept, record: 'client', keptId: kept, duplicateId: late })).toMatchObject({ kind: 'removed' });
    expect(await uisp.services.duplicates.remove({ ...request, duplicateId: second })).toMatchObject({ kind: 'removed', duplicate: { id: second } });
    expect(deletes(requests())).toEqual([`DELETE /nms/api/v2.1/sites/${lateSite}`, `DELETE /crm/api/v1.0/clients/${late}`, `DELETE /nms/api/v2.1/sites/${second}`]);
    expect(uisp.sim.data.sites.map((s) => s.id)).toContain(keptSite);
  });
});

describe('the simulator’s invoices', () => {
  it('GET /invoices lists a client’s invoices with the services their items bill; GET /invoices/{id} one', async () => {
    await start();
    const first = invoice(uisp.sim, 1001, [101]);
    invoice(uisp.sim, 1006, [105]);
    const listed = await uisp.services.crm.listInvoices(1001);
    expect(listed.map((i) => [i.id, i.clientId, i.items.map((item) => item.serviceId)])).toEqual([[first, 1001, [101]]]);
    expect((await crm(uisp.sim, 'GET', `/invoices/${first}`)).body).toMatchObject({ id: first, clientId: 1001, currencyCode: 'GYD', status: 1 });
    expect((await crm(uisp.sim, 'GET', '/invoices/999')).status).toBe(404);
  });

  it('a data file gives invoices; one naming no client is refused with its field', () => {
    const clients = [{ id: 1, firstName: 'Ada', lastName: 'Lovelace' }];
    expect(buildData({ clients, invoices: [{ id: 4, clientId: 1, items: [{ serviceId: 9 }] }] }).invoices).toMatchObject([{ id: 4, clientId: 1, status: 1, currencyCode: 'GYD', items: [{ serviceId: 9, type: 'service' }] }]);
    expect(() => buildData({ clients, invoices: [{ id: 4, clientId: 2 }] })).toThrow('invoices.0.clientId: no client with id 2');
  });
});
