/**
 * Contract: every request CrmClient and NmsClient make (method + path) is documented by the interface
 * spec, the UISP NMS Swagger or the UISP CRM API Blueprint (their endpoint catalogues are in
 * test/fixtures/uisp/endpoints.json). Every public client method is driven against a recording
 * MockAgent; the recorded requests are then looked up in the catalogues.
 */
import type { MockCallHistoryLog } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrmClient } from '../../src/services/uisp/crm-client.js';
import { NmsClient } from '../../src/services/uisp/nms-client.js';
import { CRM_PREFIX, endpointsOf, findEndpoint, loadCatalogues, NMS_PREFIX, pathMatches, type Catalogue } from './api-catalogue.js';
import { createHarness, fixtures, JSON_HEADERS, type Harness } from './support.js';

const catalogues: Catalogue[] = loadCatalogues();

/** Public method names of a class instance type. */
type Methods<T> = { [K in keyof T]: T[K] extends (...args: never[]) => unknown ? K : never }[keyof T];

interface Drive<C> {
  /** A minimal body that passes the method's response schema. */
  reply: unknown;
  run: (client: C) => Promise<unknown> | AsyncIterable<unknown>;
}

// `satisfies Record<Methods<…>, …>`: adding a client method without a row here is a type error.
const crmDrives = {
  listClients: { reply: [fixtures.client()], run: (c) => c.listClients({ query: 'ada', email: 'a@b.c', phone: '1', userIdent: 'X1', isArchived: false }) },
  getClient: { reply: fixtures.client(1), run: (c) => c.getClient(1) },
  clientNamePages: { reply: [fixtures.client()], run: (c) => c.clientNamePages() },
  createClient: { reply: fixtures.client(2), run: (c) => c.createClient({ firstName: 'Ada', lastName: 'Lovelace', email: 'a@b.c' }) },
  updateClient: { reply: fixtures.client(2), run: (c) => c.updateClient(2, { lastName: 'King' }) },
  deleteClient: { reply: '', run: (c) => c.deleteClient(2) },
  listServices: { reply: [fixtures.service()], run: (c) => c.listServices(1) },
  getService: { reply: fixtures.service(5), run: (c) => c.getService(5) },
  createService: {
    reply: fixtures.service(6),
    run: (c) => c.createService(1, { status: 1, servicePlanPeriodId: 37, price: 10_000, activeFrom: '2025-03-01T00:00:00-0400', invoicingStart: '2025-03-01T00:00:00-0400' }),
  },
  deleteService: { reply: '', run: (c) => c.deleteService(5) },
  suspendService: { reply: '', run: (c) => c.suspendService(5, 3) },
  cancelSuspendService: { reply: '', run: (c) => c.cancelSuspendService(5) },
  listSuspensionReasons: { reply: [fixtures.suspensionReason()], run: (c) => c.listSuspensionReasons() },
  listServicePlans: { reply: [fixtures.servicePlan()], run: (c) => c.listServicePlans() },
  listPaymentMethods: { reply: [fixtures.paymentMethod()], run: (c) => c.listPaymentMethods() },
  payments: { reply: [fixtures.payment()], run: (c) => c.payments({ clientId: 1, createdDateFrom: '2025-01-01', createdDateTo: '2025-01-31' }) },
  paymentPages: { reply: [fixtures.payment()], run: (c) => c.paymentPages({ clientId: 1, createdDateFrom: '2025-01-01', createdDateTo: '2025-01-31' }) },
  createPayment: { reply: fixtures.payment(2), run: (c) => c.createPayment({ clientId: 1, amount: 100, methodId: 'm', note: 'n', currencyCode: 'GYD' }) },
  getPayment: { reply: fixtures.payment(2), run: (c) => c.getPayment(2) },
  listInvoices: { reply: [{ id: 7, clientId: 1, status: 1, items: [{ id: 70, serviceId: 5, type: 'service' }] }], run: (c) => c.listInvoices(1) },
  getWebhookEvent: { reply: fixtures.webhookEvent(), run: (c) => c.getWebhookEvent('2c6984d7-03ae-4e48-a212-7b99378837a2') },
  getVersion: { reply: { version: '2.4.205' }, run: (c) => c.getVersion() },
} satisfies Record<Methods<CrmClient>, Drive<CrmClient>>;

const nmsDrives = {
  listDevices: { reply: [fixtures.device()], run: (n) => n.listDevices() },
  listDiscoveredDevices: { reply: [fixtures.device()], run: (n) => n.listDiscoveredDevices() },
  deviceIdByMac: { reply: { id: 'd-1', type: 'airMax', series: 'AC' }, run: (n) => n.deviceIdByMac('fcecda000001') },
  getDevice: { reply: fixtures.device('d-1'), run: (n) => n.getDevice('d-1') },
  listSites: { reply: [fixtures.site()], run: (n) => n.listSites() },
  endpointSitesBelow: { reply: ['s-2'], run: (n) => n.endpointSitesBelow('s-1') },
  outagesInProgress: { reply: { pagination: { count: 100, total: 0, page: 1, pages: 1 }, items: [] }, run: (n) => n.outagesInProgress() },
  outages: { reply: { pagination: { count: 100, total: 0, page: 1, pages: 1 }, items: [] }, run: (n) => n.outages({ haveEnded: true, start: 1_764_000_000_000, period: 3_600_000 }) },
  createSite: { reply: fixtures.site('s-2'), run: (n) => n.createSite({ name: 'Ada Lovelace', type: 'endpoint', parentSiteId: 's-0' }) },
  deleteSite: { reply: fixtures.nmsStatus(), run: (n) => n.deleteSite('s-2') },
  authorizeDevice: { reply: fixtures.nmsStatus(), run: (n) => n.authorizeDevice('d-1', 's-2') },
} satisfies Record<Methods<NmsClient>, Drive<NmsClient>>;

const publicMethods = (cls: { prototype: object }) => Object.getOwnPropertyNames(cls.prototype).filter((name) => name !== 'constructor').sort();

/** Each client method → the requests it made. */
const recorded = new Map<string, MockCallHistoryLog[]>();
let h: Harness;

beforeAll(async () => {
  h = createHarness({ retry: { retries: 0 } });
  let reply: unknown = null;
  h.pool
    .intercept({ path: () => true, method: () => true })
    .reply(() => ({ statusCode: 200, data: typeof reply === 'string' ? reply : JSON.stringify(reply), responseOptions: { headers: JSON_HEADERS } }))
    .persist();

  const drive = async <C>(prefix: string, client: C, drives: Record<string, Drive<C>>) => {
    for (const [name, { reply: body, run }] of Object.entries(drives)) {
      reply = body;
      const before = h.calls().length;
      const result = run(client);
      if (Symbol.asyncIterator in result) for await (const _ of result);
      else await result;
      recorded.set(`${prefix}.${name}`, h.calls().slice(before));
    }
  };
  await drive('crm', h.crm, crmDrives);
  await drive('nms', h.nms, nmsDrives);
});

afterAll(async () => {
  await h.close();
});

const allCalls = () => [...recorded.values()].flat();
const describeCall = (call: MockCallHistoryLog) => `${call.method} ${call.path}`;

describe('the catalogues', () => {
  it('the spec tables give the endpoints of section 4, plus the PATCH on a client stated in prose', () => {
    expect(endpointsOf(catalogues, 'spec').map((e) => `${e.method} ${e.path}`)).toEqual([
      'GET /crm/api/v1.0/clients',
      'GET /crm/api/v1.0/clients/{id}',
      'POST /crm/api/v1.0/clients',
      'GET /crm/api/v1.0/clients/{id}/services',
      'POST /crm/api/v1.0/clients/{id}/services',
      'PATCH /crm/api/v1.0/clients/services/{id}/suspend',
      'PATCH /crm/api/v1.0/clients/services/{id}/cancel-suspend',
      'GET /crm/api/v1.0/service-suspension-reasons',
      'GET /crm/api/v1.0/payments',
      'POST /crm/api/v1.0/payments',
      'GET /nms/api/v2.1/devices',
      'GET /nms/api/v2.1/devices/{id}',
      'GET /nms/api/v2.1/sites',
      'PATCH /crm/api/v1.0/clients/{id}',
    ]);
  });

  it('the CRM blueprint yields resource actions, own-path actions and level-1 action headings', () => {
    const apib = endpointsOf(catalogues, 'crm-blueprint').map((e) => `${e.method} ${e.path}`);
    expect(apib.length).toBeGreaterThan(300);
    expect(apib).toEqual(
      expect.arrayContaining([
        'GET /crm/api/v1.0/clients', // `# /clients{?…}` then `## GET`
        'POST /crm/api/v1.0/clients', // `## POST /clients`
        'PATCH /crm/api/v1.0/clients/{id}', // `# /clients/{id}` then `## PATCH`
        'PATCH /crm/api/v1.0/clients/{id}/archive',
        'PATCH /crm/api/v1.0/clients/services/{id}/suspend', // `# PATCH /clients/services/{id}/suspend`
        'PATCH /crm/api/v1.0/clients/services/{id}/cancel-suspend',
        'DELETE /crm/api/v1.0/clients/services/{id}',
        'POST /crm/api/v1.0/clients/{id}/services', // `## /clients/{id}/services` then `## POST`
        'GET /crm/api/v1.0/service-plans',
        'GET /crm/api/v1.0/fees/{id}', // `#/fees/{id}` (no space) then `##GET`
      ]),
    );
    // No URI-template residue in any path.
    expect(apib.filter((e) => /[{][?]|%5B/.test(e))).toEqual([]);
    // The blueprint documents only POST on /clients/{id}/services; the GET comes from the spec alone.
    expect(apib).not.toContain('GET /crm/api/v1.0/clients/{id}/services');
  });

  it('blueprint query templates are kept as documented query names', () => {
    const payments = endpointsOf(catalogues, 'crm-blueprint').find((e) => e.method === 'GET' && e.path === `${CRM_PREFIX}/payments`);
    expect(payments?.query).toEqual(expect.arrayContaining(['limit', 'offset', 'clientId', 'order', 'direction']));
  });

  it('the NMS swagger yields basePath-prefixed operations', () => {
    const swagger = endpointsOf(catalogues, 'nms-swagger').map((e) => `${e.method} ${e.path}`);
    expect(swagger).toEqual(expect.arrayContaining([`POST ${NMS_PREFIX}/devices/authorize`, `POST ${NMS_PREFIX}/devices/{id}/authorize`, `GET ${NMS_PREFIX}/devices/discovered`, `POST ${NMS_PREFIX}/sites`]));
    expect(swagger.every((e) => e.includes(` ${NMS_PREFIX}/`))).toBe(true);
    const nms = endpointsOf(catalogues, 'nms-swagger');
    expect(nms.find((e) => e.method === 'POST' && e.path === `${NMS_PREFIX}/devices/authorize`)?.bodyFields).toEqual(['siteId', 'deviceIds']);
    expect(nms.find((e) => e.method === 'POST' && e.path === `${NMS_PREFIX}/devices/{id}/authorize`)?.bodyFields).toEqual(['siteId']);
    expect(nms.find((e) => e.method === 'GET' && e.path === `${NMS_PREFIX}/sites`)?.query).toContain('ucrmDetails');
  });

  it('path templates match segment by segment', () => {
    expect(pathMatches('/a/{id}/b', '/a/5/b')).toBe(true);
    expect(pathMatches('/a/{id}/b', '/a/5/c')).toBe(false);
    expect(pathMatches('/a/{id}', '/a/5/b')).toBe(false);
    expect(pathMatches('/a/{id}', '/a/')).toBe(false);
  });
});

describe('the matcher can fail', () => {
  it('/clients/services/{id}/unsuspend is in none of the sources', () => {
    expect(findEndpoint(catalogues, 'PATCH', '/crm/api/v1.0/clients/services/5/unsuspend')).toEqual([]);
    expect(findEndpoint(catalogues, 'POST', '/crm/api/v1.0/clients/services/5/unsuspend')).toEqual([]);
    // …while its real counterpart is in the spec and the blueprint.
    expect(findEndpoint(catalogues, 'PATCH', '/crm/api/v1.0/clients/services/5/cancel-suspend').map((e) => e.source)).toEqual(['spec', 'crm-blueprint']);
  });

  it('made-up paths, wrong methods and wrong prefixes match nothing', () => {
    expect(findEndpoint(catalogues, 'GET', '/crm/api/v1.0/subscribers/5')).toEqual([]);
    expect(findEndpoint(catalogues, 'GET', '/crm/api/v1.0/clients/services/5/suspend')).toEqual([]);
    expect(findEndpoint(catalogues, 'POST', '/nms/api/v2.1/devices/d-1/unauthorize')).toEqual([]);
    expect(findEndpoint(catalogues, 'GET', '/nms/api/v2.1/clients/1')).toEqual([]);
    expect(findEndpoint(catalogues, 'GET', '/crm/api/v2.1/devices')).toEqual([]);
  });
});

describe('every client request is documented', () => {
  it('every public method of both clients was driven', () => {
    expect(Object.keys(crmDrives).sort()).toEqual(publicMethods(CrmClient));
    expect(Object.keys(nmsDrives).sort()).toEqual(publicMethods(NmsClient));
    for (const [method, calls] of recorded) expect(calls.length, method).toBeGreaterThan(0);
  });

  it.each([...Object.keys(crmDrives).map((m) => `crm.${m}`), ...Object.keys(nmsDrives).map((m) => `nms.${m}`)])('%s', (name) => {
    const calls = recorded.get(name) ?? [];
    for (const call of calls) {
      const prefix = name.startsWith('crm.') ? CRM_PREFIX : NMS_PREFIX;
      expect(call.path.startsWith(`${prefix}/`), describeCall(call)).toBe(true);
      const matches = findEndpoint(catalogues, call.method, call.path);
      expect(matches, `${describeCall(call)} is not in the spec, the NMS swagger or the CRM blueprint`).not.toEqual([]);

      // Query parameters sent must be ones a matching description documents.
      const sent = Object.keys(call.searchParams);
      if (sent.length) {
        const documented = new Set(matches.flatMap((m) => m.query ?? []));
        expect(sent.filter((param) => !documented.has(param)), `undocumented query parameters on ${describeCall(call)}`).toEqual([]);
      }

      // Body fields sent must be ones the Swagger documents, where it documents the body.
      const fields = matches.flatMap((m) => m.bodyFields ?? []);
      if (fields.length && call.body) {
        const sentFields = Object.keys(JSON.parse(call.body) as object);
        expect(sentFields.filter((field) => !fields.includes(field)), `undocumented body fields on ${describeCall(call)}`).toEqual([]);
      }
    }
  });

  it('no client ever calls a path containing "unsuspend"', () => {
    expect(allCalls().filter((call) => /unsuspend/i.test(call.fullUrl))).toEqual([]);
  });

  it('requests not covered by the authoritative spec are the ones it says it leaves out', () => {
    const outsideSpec = allCalls()
      .filter((call) => !findEndpoint(catalogues, call.method, call.path).some((m) => m.source === 'spec'))
      .map(describeCall);
    // Spec §4: "Endpoints for deleting a service, creating a site, linking a device to a site, authorizing a
    // device and listing discovered devices: not shown". A device by its MAC (the Swagger's GET /devices/mac/{mac},
    // issue #38: asked for the record, not the list). Plans, payment methods, a single service, a single
    // payment, a client's invoices, a webhook event's confirmation and the CRM's version (which tells stock UISP's
    // status numbering) come from the CRM blueprint; deleting
    // SubOps' own duplicate clients and sites, and marking a new client's site with its id (PUT), from the
    // blueprint and Swagger; device authorization is the NMS Swagger's current POST /devices/authorize. The
    // customer sites below a site and the outages in progress and those of a window (issue #40) are the Swagger's.
    expect(outsideSpec).toEqual([
      'DELETE /crm/api/v1.0/clients/2',
      'GET /crm/api/v1.0/clients/services/5',
      'DELETE /crm/api/v1.0/clients/services/5',
      'GET /crm/api/v1.0/service-plans',
      'GET /crm/api/v1.0/payment-methods',
      'GET /crm/api/v1.0/payments/2',
      'GET /crm/api/v1.0/invoices',
      'GET /crm/api/v1.0/webhook-events/2c6984d7-03ae-4e48-a212-7b99378837a2',
      'GET /crm/api/v1.0/version',
      'GET /nms/api/v2.1/devices/discovered',
      'GET /nms/api/v2.1/devices/mac/fc:ec:da:00:00:01',
      'GET /nms/api/v2.1/sites/s-1/clients',
      'GET /nms/api/v2.1/outages',
      'GET /nms/api/v2.1/outages',
      'POST /nms/api/v2.1/sites',
      'DELETE /nms/api/v2.1/sites/s-2',
      'POST /nms/api/v2.1/devices/authorize',
    ]);
  });
});
