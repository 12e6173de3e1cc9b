/**
 * Contract for what SubOps sends, not only where: every request body CrmClient and NmsClient make is
 * valid against its endpoint's request schema in the UISP NMS Swagger or the UISP CRM API Blueprint
 * (test/fixtures/uisp/request-bodies.json; the interface spec's rules laid over, see request-schemas.ts),
 * and sends no field they do not document.
 *
 * 1. Every public write method of both clients is driven against a recording MockAgent, with arguments
 *    like the ones SubOps' services pass; each recorded body is checked.
 * 2. A suspension, a recorded payment and a new customer's activation run end to end against the
 *    simulator over loopback; every body the simulator received is checked.
 */
import type { MockCallHistoryLog } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCoreConfig } from '../../src/config.js';
import type { ActivationResult } from '../../src/services/activation/types.js';
import { createServices, type Services } from '../../src/services/container.js';
import { CrmClient } from '../../src/services/uisp/crm-client.js';
import { NmsClient } from '../../src/services/uisp/nms-client.js';
import { startSimulator, type RecordedRequest, type RunningSimulator } from '../../src/simulator/index.js';
import { checkBody, fixture, formatViolations, requestEndpoint, requestSchema, type Violation } from './request-schemas.js';
import { bodyOf, createHarness, fixtures, JSON_HEADERS, NMS_BASE, type Harness } from './support.js';

/** Ids shaped like the ones UISP hands out (the simulator's sample data). */
const CASH = '6efe0fa8-36b2-4dd1-b049-427bffc7d369';
const DIAMOND_TOWER = '7c1d9e2a-4b3f-4a6c-8e5d-2f9b0c1a7d12';
const NEW_SITE = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d';
const POWERBEAM = 'af9c4b7e-1d2a-4e3f-8b5c-6a7d8e9f0a11';

/** A site as the NMS answers its creation: the description's unknowns are nulls. */
const createdSite = {
  id: NEW_SITE,
  identification: { id: NEW_SITE, name: 'Ada Lovelace', type: 'endpoint', status: 'active', parent: { id: DIAMOND_TOWER, name: 'Diamond Tower' } },
  description: {
    address: null,
    note: 'Created by SubOps (activation 1f2e3d4c)',
    contact: { name: null, phone: null, email: null },
    location: null,
    height: null,
    elevation: null,
    ucrmId: null,
  },
};

type Reply = { status?: number; body: unknown };

interface Drive {
  /** `crm.<method>` or `nms.<method>`, and what this row varies. */
  name: string;
  /** The answer to each request, by its path; a body passing the method's response schema. */
  reply: (path: string) => Reply;
  run: (harness: Harness) => Promise<unknown>;
}

const answer =
  (body: unknown): Drive['reply'] =>
  () => ({ body });

/** Arguments as SubOps' services pass them (activation, payments, suspensions; see src/services/). */
const drives: Drive[] = [
  {
    name: 'crm.createClient (activation, email given)',
    reply: answer(fixtures.client(1010)),
    run: ({ crm }) => crm.createClient({ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.gy', note: 'Created by SubOps (activation 1f2e3d4c)' }),
  },
  {
    name: 'crm.createClient (activation, phone given)',
    reply: answer(fixtures.client(1010)),
    run: ({ crm }) => crm.createClient({ firstName: 'Ada', lastName: 'Lovelace', phone: '+592 600 1088', note: 'Created by SubOps (activation 1f2e3d4c)' }),
  },
  {
    name: 'crm.createClient (activation, email and phone)',
    reply: answer(fixtures.client(1010)),
    run: ({ crm }) => crm.createClient({ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.gy', phone: '+592 600 1088', note: 'Created by SubOps (activation 1f2e3d4c)' }),
  },
  {
    name: 'crm.createClient (activation, no contact)',
    reply: answer(fixtures.client(1010)),
    run: ({ crm }) => crm.createClient({ firstName: 'Ada', lastName: 'Lovelace', note: 'Created by SubOps (activation 1f2e3d4c)' }),
  },
  { name: 'crm.updateClient', reply: answer(fixtures.client(1010)), run: ({ crm }) => crm.updateClient(1010, { firstName: 'Ada', lastName: 'Lovelace' }) },
  { name: 'crm.deleteClient', reply: answer(''), run: ({ crm }) => crm.deleteClient(1010) },
  {
    name: 'crm.createService (activation: Standard Monthly from today)',
    reply: answer(fixtures.service(106, 1010)),
    run: ({ crm }) =>
      crm.createService(1010, {
        status: 1,
        servicePlanPeriodId: 37,
        price: 10_000,
        activeFrom: '2026-11-22T00:00:00-0400',
        invoicingStart: '2026-11-22T00:00:00-0400',
        note: 'Created by SubOps (activation 1f2e3d4c)',
      }),
  },
  { name: 'crm.deleteService', reply: answer(''), run: ({ crm }) => crm.deleteService(102) },
  { name: 'crm.suspendService', reply: answer(''), run: ({ crm }) => crm.suspendService(101, 1) },
  { name: 'crm.cancelSuspendService', reply: answer(''), run: ({ crm }) => crm.cancelSuspendService(104) },
  {
    name: 'crm.createPayment (a method chosen)',
    reply: answer(fixtures.payment(3201)),
    run: ({ crm }) => crm.createPayment({ clientId: 1005, amount: 10_000, methodId: CASH, note: 'June\nsubops:op=slack-7f3a' }),
  },
  {
    name: 'crm.createPayment (no method chosen)',
    reply: answer(fixtures.payment(3202)),
    run: ({ crm }) => crm.createPayment({ clientId: 1005, amount: 2_500.5, note: 'subops:op=cli-0123456789abcdef' }),
  },
  {
    name: 'nms.createSite (under a parent site)',
    reply: answer(createdSite),
    run: ({ nms }) => nms.createSite({ name: 'Ada Lovelace', type: 'endpoint', parentSiteId: DIAMOND_TOWER, note: 'Created by SubOps (activation 1f2e3d4c)' }),
  },
  {
    name: 'nms.createSite (no parent site)',
    reply: answer(createdSite),
    run: ({ nms }) => nms.createSite({ name: 'Ada Lovelace', type: 'endpoint', note: 'Created by SubOps (activation 1f2e3d4c)' }),
  },
  { name: 'nms.deleteSite', reply: answer(fixtures.nmsStatus()), run: ({ nms }) => nms.deleteSite(NEW_SITE) },
  { name: 'nms.authorizeDevice (POST /devices/authorize)', reply: answer(fixtures.nmsStatus()), run: ({ nms }) => nms.authorizeDevice(POWERBEAM, NEW_SITE) },
  {
    name: 'nms.authorizeDevice (an older NMS: POST /devices/{id}/authorize)',
    reply: (path) => (path === `${NMS_BASE}/devices/authorize` ? { status: 404, body: { statusCode: 404, error: 'Not Found', message: 'Not Found' } } : { body: fixtures.nmsStatus() }),
    // A client of its own: the harness's has already found the bulk endpoint.
    run: ({ nmsHttp }) => new NmsClient(nmsHttp).authorizeDevice(POWERBEAM, NEW_SITE),
  },
];

/** The public methods that only read: they send no body (the simulator flow below checks that too). */
const READS = [
  'crm.listClients',
  'crm.clientNamePages',
  'crm.getClient',
  'crm.listServices',
  'crm.getService',
  'crm.listSuspensionReasons',
  'crm.listServicePlans',
  'crm.listPaymentMethods',
  'crm.payments',
  'crm.paymentPages',
  'crm.getPayment',
  'crm.getWebhookEvent',
  'crm.listInvoices',
  'crm.getVersion',
  'nms.listDevices',
  'nms.listDiscoveredDevices',
  'nms.deviceIdByMac',
  'nms.endpointSitesBelow',
  'nms.outages',
  'nms.outagesInProgress',
  'nms.getDevice',
  'nms.listSites',
];

const publicMethods = (prefix: string, cls: { prototype: object }) =>
  Object.getOwnPropertyNames(cls.prototype)
    .filter((name) => name !== 'constructor')
    .map((name) => `${prefix}.${name}`);
const methodOf = (drive: string) => drive.split(' ')[0]!;

/** Each drive → the requests it made, with their bodies parsed. */
const recorded = new Map<string, Array<{ method: string; path: string; body: unknown }>>();
let h: Harness;

beforeAll(async () => {
  h = createHarness({ retry: { retries: 0 } });
  let reply: Drive['reply'] = answer(null);
  h.pool
    .intercept({ path: () => true, method: () => true })
    .reply(({ path }) => {
      const { status = 200, body } = reply(path.split('?')[0]!);
      return { statusCode: status, data: typeof body === 'string' ? body : JSON.stringify(body), responseOptions: { headers: JSON_HEADERS } };
    })
    .persist();
  for (const drive of drives) {
    reply = drive.reply;
    const before = h.calls().length;
    await drive.run(h);
    recorded.set(
      drive.name,
      h.calls()
        .slice(before)
        .map((call: MockCallHistoryLog) => ({ method: call.method, path: call.path, body: bodyOf(call) })),
    );
  }
});

afterAll(async () => {
  await h.close();
});

const violationsOf = (requests: Iterable<{ method: string; path: string; body: unknown }>): Violation[] => [...requests].flatMap((r) => checkBody(r.method, r.path, r.body));

describe('the request schemas (test/fixtures/uisp/request-bodies.json)', () => {
  it('hold the Swagger body parameter and the Blueprint request Attributes of each endpoint SubOps writes to', () => {
    const refs = (source: keyof typeof fixture) => Object.fromEntries(Object.entries(fixture[source].requests).map(([endpoint, schema]) => [endpoint, schema.$ref]));
    expect(refs('nms-swagger')).toEqual({
      'POST /nms/api/v2.1/sites': '#/definitions/CreateSite',
      'PUT /nms/api/v2.1/sites/{id}': '#/definitions/SiteUpdate',
      'POST /nms/api/v2.1/devices/authorize': '#/definitions/Model169',
      'POST /nms/api/v2.1/devices/{id}/authorize': '#/definitions/Model183',
    });
    expect(refs('crm-blueprint')).toEqual({
      'POST /crm/api/v1.0/clients': '#/definitions/ClientWritable',
      'PATCH /crm/api/v1.0/clients/{id}': '#/definitions/ClientWritable',
      'POST /crm/api/v1.0/clients/{id}/services': '#/definitions/ServiceWritable',
      'PATCH /crm/api/v1.0/clients/services/{id}/suspend': '#/definitions/ServiceSuspend',
      'POST /crm/api/v1.0/payments': '#/definitions/PaymentWritable',
    });
  });

  it('the MSON is converted as the Blueprint marks it: types, required, nullable, includes, enums', () => {
    const crm = fixture['crm-blueprint'].definitions as Record<string, any>;
    // `+ phone` has no type: a string, and not null (not marked nullable).
    expect(crm.ClientContactWritable.properties).toMatchObject({ email: { type: 'string' }, phone: { type: 'string' }, isBilling: { type: 'boolean' } });
    // `+ Include Client`, `clientType (enum[number])` with Members 1 and 2.
    expect(crm.ClientWritable.properties).toMatchObject({ firstName: { type: 'string' }, note: { type: 'string' }, clientType: { type: 'number', enum: [1, 2] }, contacts: { type: 'array', items: { $ref: '#/definitions/ClientContactWritable' } } });
    expect(crm.ClientWritable.required).toBeUndefined();
    // `currencyCode: \`USD\` (string, nullable)`; `amount: \`10.0\` (number, required)`.
    expect(crm.PaymentWritable.properties).toMatchObject({ currencyCode: { type: ['string', 'null'] }, methodId: { type: 'string' }, amount: { type: 'number' } });
    expect(crm.PaymentWritable.required).toEqual(['amount']);
    expect(crm.ServiceWritable.required).toEqual(['servicePlanPeriodId']);
    expect(crm.ServiceWritable.properties.status).toBeUndefined();
  });

  it('the NMS definitions are the Swagger’s, unmodified', () => {
    const nms = fixture['nms-swagger'].definitions as Record<string, any>;
    expect(nms.CreateSite.required).toEqual(['name']);
    expect(nms.SiteUpdate.required).toEqual(['identification', 'description']);
    expect(nms.SiteIdentificationDetail2.required).toEqual(['id', 'type', 'name', 'status']);
    expect(nms.Model169).toEqual({ type: 'object', properties: { siteId: expect.any(Object), deviceIds: { $ref: '#/definitions/deviceIds' } }, required: ['siteId'] });
  });

  it('the spec’s rules are laid over the Blueprint’s where it says more (status on a new service, integer ids)', () => {
    const { schema } = requestSchema('POST /crm/api/v1.0/clients/{id}/services');
    expect(schema.required).toEqual(['servicePlanPeriodId', 'status', 'activeFrom', 'invoicingStart']);
    expect((schema.properties as Record<string, unknown>).status).toEqual({ type: 'integer' });
    expect(requestSchema('PATCH /crm/api/v1.0/clients/services/{id}/suspend').schema.required).toEqual(['suspensionReasonId']);
  });

  it('requests find their endpoint like a router: the most specific template', () => {
    expect(requestEndpoint('POST', '/nms/api/v2.1/devices/authorize')?.template).toBe('POST /nms/api/v2.1/devices/authorize');
    expect(requestEndpoint('POST', `/nms/api/v2.1/devices/${POWERBEAM}/authorize`)?.template).toBe('POST /nms/api/v2.1/devices/{id}/authorize');
    expect(requestEndpoint('PATCH', '/crm/api/v1.0/clients/services/5/suspend')?.template).toBe('PATCH /crm/api/v1.0/clients/services/{id}/suspend');
    expect(requestEndpoint('GET', '/crm/api/v1.0/clients')).toBeUndefined();
  });
});

describe('the check bites', () => {
  const sitePut = `${NMS_BASE}/sites/${NEW_SITE}`;

  it('the PUT /sites/{id} body of the issue breaks SiteUpdate 10 times: nulls where strings and numbers are typed, identification.id and status missing', () => {
    const body = { identification: { name: 'Ada Lovelace', type: 'endpoint', parent: { id: DIAMOND_TOWER } }, description: { ...createdSite.description, note: 'subops:crm-client=1010' } };
    const violations = checkBody('PUT', sitePut, body);
    expect(violations.map((v) => `${v.instancePath}: ${v.message}`)).toEqual([
      "/identification: must have required property 'id'",
      "/identification: must have required property 'status'",
      '/description/address: must be string',
      '/description/contact/name: must be string',
      '/description/contact/phone: must be string',
      '/description/contact/email: must be string',
      '/description/location: must be object',
      '/description/height: must be number',
      '/description/elevation: must be number',
      '/description/ucrmId: must be string',
    ]);
    expect(formatViolations(violations)).toContain('PUT /nms/api/v2.1/sites/{id} /description/address: must be string');
  });

  it('CRM: a null contact phone, a null method, a missing amount; a service without status or with a fractional plan period', () => {
    const lines = (method: string, path: string, body: unknown) => checkBody(method, path, body).map((v) => `${v.instancePath || '(body)'}: ${v.message}`);
    expect(lines('POST', '/crm/api/v1.0/clients', { clientType: 1, isLead: false, firstName: 'Ada', lastName: 'Lovelace', contacts: [{ email: 'ada@example.gy', phone: null, isBilling: true, isContact: true }] })).toEqual([
      '/contacts/0/phone: must be string',
    ]);
    expect(lines('POST', '/crm/api/v1.0/clients', { clientType: 3, firstName: 'Ada' })).toEqual(['/clientType: must be equal to one of the allowed values: [1,2]']);
    expect(lines('POST', '/crm/api/v1.0/payments', { clientId: 1005, methodId: null, currencyCode: null })).toEqual(["(body): must have required property 'amount'", '/methodId: must be string']);
    expect(lines('POST', '/crm/api/v1.0/clients/1010/services', { servicePlanPeriodId: 37.5, activeFrom: '2026-11-22T00:00:00-0400', invoicingStart: '2026-11-22T00:00:00-0400' })).toEqual([
      "(body): must have required property 'status'",
      '/servicePlanPeriodId: must be integer',
    ]);
    expect(lines('PATCH', '/crm/api/v1.0/clients/services/101/suspend', undefined)).toEqual(['(body): no body; it must have suspensionReasonId']);
  });

  it('NMS: an id that is no GUID, an undocumented field; a body on a GET or to an endpoint the fixture lacks', () => {
    expect(formatViolations(checkBody('POST', `${NMS_BASE}/devices/authorize`, { siteId: 's-2', deviceIds: ['d-1'] }))).toBe(
      ['POST /nms/api/v2.1/devices/authorize /siteId: must be a GUID', 'POST /nms/api/v2.1/devices/authorize /deviceIds/0: must be a GUID'].join('\n'),
    );
    expect(formatViolations(checkBody('POST', `${NMS_BASE}/sites`, { name: 'Ada Lovelace', parentId: DIAMOND_TOWER }))).toBe('POST /nms/api/v2.1/sites (body): undocumented field "parentId"');
    expect(checkBody('GET', `${NMS_BASE}/sites`, { name: 'x' })[0]?.message).toBe('a body where the references document none');
    expect(checkBody('POST', '/crm/api/v1.0/invoices', { clientId: 1 })[0]?.message).toContain('add it to REQUEST_BODIES in scripts/reference-fixtures.ts');
    expect(checkBody('PATCH', '/crm/api/v1.0/clients/services/104/cancel-suspend', undefined)).toEqual([]);
  });
});

describe('every body the clients send is valid against the reference', () => {
  it('every public method of both clients is driven here or listed as a read', () => {
    const methods = [...publicMethods('crm', CrmClient), ...publicMethods('nms', NmsClient)].sort();
    const covered = [...new Set([...drives.map((d) => methodOf(d.name)), ...READS])].sort();
    expect(covered).toEqual(methods);
    for (const [name, calls] of recorded) expect(calls.length, name).toBeGreaterThan(0);
  });

  it('the methods that write with a body sent one', () => {
    const withBody = [...recorded].filter(([, calls]) => calls.some((call) => call.body !== undefined)).map(([name]) => methodOf(name));
    expect(new Set(withBody)).toEqual(
      new Set(['crm.createClient', 'crm.updateClient', 'crm.createService', 'crm.suspendService', 'crm.createPayment', 'nms.createSite', 'nms.authorizeDevice']),
    );
  });

  it.each(drives.map((d) => d.name))('%s', (name) => {
    const calls = recorded.get(name)!;
    const violations = violationsOf(calls);
    expect(violations, `${name}:\n${formatViolations(violations)}`).toEqual([]);
  });


  it('both forms of device authorization were asked', () => {
    const paths = [...recorded].filter(([name]) => name.startsWith('nms.authorizeDevice')).flatMap(([, calls]) => calls.map((call) => `${call.method} ${call.path}`));
    expect(paths).toEqual([`POST ${NMS_BASE}/devices/authorize`, `POST ${NMS_BASE}/devices/authorize`, `POST ${NMS_BASE}/devices/${POWERBEAM}/authorize`]);
  });
});

describe('a SubOps flow against the simulator: every body it received is valid', () => {
  let sim: RunningSimulator;
  let services: Services;

  beforeAll(async () => {
    sim = await startSimulator();
    const config = loadCoreConfig({ UISP_URL: sim.url, UISP_TOKEN: sim.token, ISP_TIMEZONE: 'America/Guyana', UISP_RETRY_BACKOFF_MS: '1', UISP_WRITE_BACKOFF_MS: '1' });
    services = createServices(config);
  });

  afterAll(async () => {
    await services?.close();
    await sim?.close();
  });

  /** Runs a flow, then checks every request the simulator received meanwhile; the writes it made, as `METHOD /path`. */
  async function received(flow: () => Promise<void>): Promise<string[]> {
    const from = sim.requests.length;
    await flow();
    await sim.settled();
    const requests: RecordedRequest[] = sim.requests.slice(from);
    const violations = violationsOf(requests);
    expect(violations, formatViolations(violations)).toEqual([]);
    return requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);
  }

  it('a suspension, and lifting it', async () => {
    const writes = await received(async () => {
      const reason = await services.suspensions.resolveReason('Non-payment');
      expect((await services.suspensions.suspend(101, reason)).kind).toBe('done');
      expect((await services.suspensions.unsuspend(101)).kind).toBe('done');
    });
    expect(writes).toEqual(['PATCH /crm/api/v1.0/clients/services/101/suspend', 'PATCH /crm/api/v1.0/clients/services/101/cancel-suspend']);
  });

  it('a recorded payment', async () => {
    const writes = await received(async () => {
      const recorded = await services.payments.record({ clientId: 1005, amount: 10_000, method: 'Cash', note: 'June' }, { operationKey: 'request-bodies-1' });
      expect(recorded.alreadyRecorded).toBe(false);
    });
    expect(writes).toEqual(['POST /crm/api/v1.0/payments']);
  });

  it('a new customer’s activation (PowerBeam 5AC, 10.20.1.88)', async () => {
    let result: ActivationResult | undefined;
    const writes = await received(async () => {
      for await (const event of services.activation.run({ device: '10.20.1.88', firstName: 'ada', lastName: 'lovelace' })) if (event.type === 'result') result = event;
    });
    expect(result?.outcome).toBe('activated');
    const templates = writes.map((write) => write.replace(/\/\d+(?=\/|$)/g, '/{id}'));
    expect(templates).toEqual(expect.arrayContaining(['POST /crm/api/v1.0/clients', 'POST /crm/api/v1.0/clients/{id}/services', 'POST /nms/api/v2.1/sites', 'POST /nms/api/v2.1/devices/authorize']));
  });
});
