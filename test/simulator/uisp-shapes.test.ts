/**
 * The simulator answers in UISP's real shapes: NMS bodies validate against the NMS Swagger definitions,
 * and CRM records carry every field the CRM API Blueprint lists for them. Both files are read from
 * ../shared in place.
 */
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import ajvFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { call, crm, NMS, nms } from './helpers.js';

const SHARED = new URL('../../../shared/uisp/', import.meta.url);

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(() => sim.close());

describe('NMS bodies match the Swagger definitions', () => {
  type Schema = Record<string, unknown>;
  /** UISP sends null for values it does not have; the Swagger never says so. Allow null everywhere. */
  function allowNull(node: unknown): unknown {
    if (Array.isArray(node)) return node.map(allowNull);
    if (node === null || typeof node !== 'object') return node;
    const out: Schema = Object.fromEntries(
      Object.entries(node).map(([key, value]) => [key, key === 'properties' ? Object.fromEntries(Object.entries(value as Schema).map(([name, schema]) => [name, allowNull(schema)])) : allowNull(value)]),
    );
    if (typeof out.$ref === 'string') return { anyOf: [{ $ref: out.$ref }, { type: 'null' }] };
    if (typeof out.type === 'string') {
      out.type = [out.type, 'null'];
      if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
    }
    return out;
  }

  const swagger = JSON.parse(readFileSync(new URL('uisp-nms-api-swagger.json', SHARED), 'utf8')) as { definitions: Schema };
  // The Swagger's own schemas are not all valid JSON Schema (duplicate `required` items): do not validate them.
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  // ajv-formats is CommonJS: under NodeNext its default import is module.exports, whose .default is the plugin.
  ajvFormats.default(ajv);
  ajv.addSchema({ $id: 'nms', definitions: allowNull(swagger.definitions) });
  const validator = (definition: string) => ajv.compile({ $ref: `nms#/definitions/${definition}` });
  const expectValid = (definition: string, body: unknown) => {
    const validate = validator(definition);
    expect(validate(body), ajv.errorsText(validate.errors)).toBe(true);
  };

  it.each([
    ['/devices', 'ListOfDevices'],
    ['/devices/discovered', 'ListOfDevices'],
    ['/sites', 'SitesList'],
  ])('GET %s is a %s', async (path, definition) => {
    expectValid(definition, (await nms(sim, 'GET', path)).body);
  });

  it('created sites, authorization replies and errors too', async () => {
    const site = (await nms(sim, 'POST', '/sites', { name: 'Shape check', type: 'endpoint', parentSiteId: sim.data.sites[0]!.id, contactEmail: 'a@example.org' })).body;
    expectValid('Site', site);
    const device = sim.data.devices.find((d) => !d.identification.authorized)!.identification.id;
    expectValid('Status', (await nms(sim, 'POST', `/devices/${device}/authorize`, { siteId: site.id })).body);
    expectValid('DeviceStatusOverview', (await nms(sim, 'GET', `/devices/${device}`)).body);
    expectValid('Error', (await nms(sim, 'GET', '/devices/nope')).body);
    expectValid('Error', (await nms(sim, 'POST', '/sites', {})).body);
    expectValid('Error', (await call(sim, 'GET', `${NMS}/sites`, undefined, {})).body);
  });

  it('the check bites: a device with an impossible status or no ipAddress fails it', () => {
    const validate = validator('DeviceStatusOverview');
    const device = structuredClone(sim.data.devices[0]!);
    expect(validate({ ...device, identification: { ...device.identification, status: 'asleep' } })).toBe(false);
    const { ipAddress: _ipAddress, ...withoutIp } = device;
    expect(validate(withoutIp)).toBe(false);
  });
});

describe('CRM records carry every field the Blueprint lists', () => {
  const blueprint = readFileSync(new URL('uisp-crm-api.apib', SHARED), 'utf8');

  /** Top-level attribute names of an MSON data structure, following `+ Include Other`. */
  function fieldsOf(structure: string): string[] {
    const start = blueprint.search(new RegExp(`^## ${structure}( \\(object\\))?$`, 'm'));
    expect(start, `${structure} in the Blueprint`).toBeGreaterThanOrEqual(0);
    const body = blueprint.slice(start).split('\n').slice(1);
    const end = body.findIndex((line) => line.startsWith('## '));
    return body.slice(0, end).flatMap((line) => {
      const include = /^\+ Include (\w+)/.exec(line);
      if (include) return fieldsOf(include[1]!);
      const field = /^\+ (\w+)/.exec(line);
      return field ? [field[1]!] : [];
    });
  }

  const missing = (structure: string, record: object) => {
    const fields = fieldsOf(structure);
    expect(fields.length, `fields of ${structure}`).toBeGreaterThan(1);
    return fields.filter((field) => !(field in record));
  };

  it.each([
    ['ClientReadOnly', '/clients/1006'],
    ['ServiceReadOnly', '/clients/services/104'],
    ['ServiceSuspensionReasonReadOnly', '/service-suspension-reasons'],
    ['TariffReadOnly', '/service-plans'],
    ['PaymentMethodReadOnly', '/payment-methods'],
    ['PaymentReadOnly', '/payments?limit=1'],
  ])('%s (GET %s)', async (structure, path) => {
    const body = (await crm(sim, 'GET', path)).body;
    const record = Array.isArray(body) ? body[0] : body;
    expect(missing(structure, record)).toEqual([]);
  });

  it('nested records: contacts, plan periods, suspension periods', async () => {
    expect(missing('ClientContactReadOnly', (await crm(sim, 'GET', '/clients/1001')).body.contacts[0])).toEqual([]);
    expect(missing('TariffPeriodReadOnly', (await crm(sim, 'GET', '/service-plans')).body[0].periods[0])).toEqual([]);
    expect(missing('SuspensionPeriod', (await crm(sim, 'GET', '/clients/services/104')).body.suspensionPeriods[0])).toEqual([]);
  });

  it('created records too', async () => {
    expect(missing('ClientReadOnly', (await crm(sim, 'POST', '/clients', { firstName: 'A', lastName: 'B' })).body)).toEqual([]);
    const service = (await crm(sim, 'POST', '/clients/1004/services', { servicePlanPeriodId: 37, activeFrom: '2026-01-01', invoicingStart: '2026-01-01' })).body;
    expect(missing('ServiceReadOnly', service)).toEqual([]);
    expect(missing('PaymentReadOnly', (await crm(sim, 'POST', '/payments', { clientId: 1004, amount: 1 })).body)).toEqual([]);
  });

  it('errors have the Error401/404/422 shapes', async () => {
    expect((await call(sim, 'GET', '/crm/api/v1.0/clients', undefined, {})).body).toEqual({ code: 401, message: 'User authentication failed.' });
    expect((await crm(sim, 'GET', '/clients/4242')).body).toEqual({ code: 404, message: 'Object is not found.' });
    expect((await crm(sim, 'POST', '/clients', {})).body).toEqual({ code: 422, message: 'Validation failed.', errors: { firstName: [expect.any(String)], lastName: [expect.any(String)] } });
  });
});
