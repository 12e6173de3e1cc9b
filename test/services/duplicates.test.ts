/**
 * Late duplicates (issue §5): the pure removal decision, table-tested, and DuplicateService against the
 * simulator: found from what UISP holds, the late one removed only when it is still SubOps-made, never
 * invoiced (a site: no device, no CRM link) and the kept one still there; otherwise nothing is written.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { recordMarker, siteMarker } from '../../src/services/activation/markers.js';
import { DEFAULT_SERVICE_STATUSES } from '../../src/services/activation/service-status.js';
import { decideRemoval, type RemovalReads, type RemovalRequest } from '../../src/services/duplicates.js';
import { DeviceSchema, InvoiceSchema, ServiceSchema, SiteSchema, type Device, type Invoice, type Service, type Site } from '../../src/services/uisp/schemas.js';
import { buildData } from '../../src/simulator/index.js';
import { crm } from '../simulator/helpers.js';
import { invoice, seedServiceDuplicate, seedSiteDuplicate } from '../support/late-duplicates.js';
import { startUisp, type UispFixture } from '../support/uisp.js';

const statuses = DEFAULT_SERVICE_STATUSES;
const MARK = recordMarker('3f9a1c2e');

const service = (id: number, changes: Partial<Service> = {}): Service => ServiceSchema.parse({ id, clientId: 1002, status: statuses.active, name: 'Standard Monthly', note: MARK, ...changes });
const site = (id: string, changes: Partial<Site> = {}): Site =>
  SiteSchema.parse({ id, identification: { id, name: 'Priya Ramnarine', type: 'endpoint' }, description: { note: siteMarker(1002, '3f9a1c2e') }, ...changes });
const deviceOn = (siteId: string): Device => DeviceSchema.parse({ identification: { id: `d-${siteId}`, name: `cpe-${siteId}`, authorized: true, site: { id: siteId, name: 'x' } }, ipAddress: '10.0.0.9' });
const bill = (id: number, serviceId: number | null): Invoice => InvoiceSchema.parse({ id, clientId: 1002, items: [{ id: id * 10, serviceId }] });

const serviceRequest: RemovalRequest = { clientId: 1002, record: 'service', keptId: 5003, duplicateId: 5007 };
const siteRequest: RemovalRequest = { clientId: 1002, record: 'site', keptId: 's-kept', duplicateId: 's-late' };

const services = (changes: Partial<Extract<RemovalReads, { record: 'service' }>> = {}): RemovalReads => ({
  record: 'service',
  kept: service(5003),
  duplicate: service(5007),
  invoices: [],
  statuses,
  ...changes,
});
const sites = (changes: Partial<Extract<RemovalReads, { record: 'site' }>> = {}): RemovalReads => ({ record: 'site', kept: site('s-kept'), duplicate: site('s-late'), devices: [deviceOn('s-kept')], ...changes });

describe('decideRemoval', () => {
  it.each<[string, RemovalRequest, RemovalReads, unknown]>([
    ['a late SubOps service, never invoiced, beside an Active kept one: removed', serviceRequest, services(), { remove: true }],
    ['the kept one need not be SubOps-made', serviceRequest, services({ kept: service(5003, { note: null }) }), { remove: true }],
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
    ['the site is linked to this client (by ucrmId)', siteRequest, sites({ duplicate: site('s-late', { description: { note: siteMarker(1002, '7b2d4e6f'), ucrmId: '1002' } }) }), { remove: false, refusal: { reason: 'linked', clientId: 1002 } }],
    ['the site was made for another client', siteRequest, sites({ duplicate: site('s-late', { description: { note: siteMarker(1003, '7b2d4e6f'), ucrmId: null } }) }), { remove: false, refusal: { reason: 'other-client', clientId: 1003 } }],
    ['the kept site is gone', siteRequest, sites({ kept: null }), { remove: false, refusal: { reason: 'kept-gone' } }],
    ['a device is on the late site', siteRequest, sites({ devices: [deviceOn('s-late')] }), { remove: false, refusal: { reason: 'in-use', devices: [{ id: 'd-s-late', name: 'cpe-s-late' }] } }],
  ])('%s', (_what, request, reads, decision) => {
    expect(decideRemoval(request, reads)).toEqual(decision);
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
