/**
 * The activation planner as a pure function: reads in, typed decision out, no I/O. One table per rule
 * of issue 8 §2 (devices already in use) and §3 (client identity). Refusals carry facts; where a test
 * checks what the agent reads, it words them with the renderer.
 */
import { describe, expect, it } from 'vitest';
import { parseDeviceQuery } from '../../src/services/activation/device-match.js';
import { decideActivation, siteMarker, type ActivationReads, type ClientLookup } from '../../src/services/activation/planner.js';
import { describeMove, errorSentence } from '../../src/render/activation.js';
import { DEFAULT_SERVICE_STATUSES } from '../../src/services/activation/service-status.js';
import type { ActivationDecision } from '../../src/services/activation/types.js';
import { ClientSchema, DeviceSchema, ServicePlanSchema, ServiceSchema, SiteSchema } from '../../src/services/uisp/schemas.js';

const ROOT = 'root';
const TOWER = 'tower';
const site = (id: string, name: string, type: 'site' | 'endpoint' | null, extra: Record<string, unknown> = {}) =>
  SiteSchema.parse({ id, identification: { name, type, parent: id === ROOT ? null : { id: ROOT } }, ...extra });
const SITES = [
  site(ROOT, 'NOC', 'site'),
  site(TOWER, 'Tower 1', 'site'),
  site('s-ada', 'Ada Lovelace', 'endpoint', { ucrm: { client: { id: '7', name: 'Ada Lovelace' } } }),
  site('s-ada-marked', 'Ada (SubOps)', 'endpoint', { description: { note: `made by ${siteMarker(7)}` } }),
  site('s-bob', 'Bob Marley', 'endpoint', { description: { ucrmId: 8 } }),
  site('s-orphan', 'Old house', 'endpoint'),
];

const device = (role: string | null, siteId: string | null, authorized = siteId !== null) =>
  DeviceSchema.parse({ identification: { id: 'dev', name: 'cpe-1', ip: '10.0.0.9', mac: null, role, authorized, site: siteId && { id: siteId } }, ipAddress: '10.0.0.9/24' });

const person = (id: number, firstName: string, lastName: string, extra: Record<string, unknown> = {}) =>
  ClientSchema.parse({ id, firstName, lastName, contacts: [{ email: `c${id}@example.gy`, phone: `+592 600 ${id}` }], ...extra });
const company = (id: number, companyName: string) => ClientSchema.parse({ id, firstName: null, lastName: null, companyName, clientType: 2 });
const ADA = person(7, 'Ada', 'Lovelace', { street1: '1 Main St', city: 'Linden' });

function reads(overrides: Partial<ActivationReads> & { dev?: ReturnType<typeof device> } = {}): ActivationReads {
  const dev = overrides.dev ?? device('station', null);
  return {
    query: parseDeviceQuery('10.0.0.9'),
    firstName: 'Ada',
    lastName: 'Lovelace',
    authorized: dev.identification.authorized ? [dev] : [],
    discovered: dev.identification.authorized ? [] : [dev],
    lookup: { by: 'name', active: [ADA], archived: [] },
    services: [],
    clientLogs: [],
    sites: SITES,
    servicePlans: [ServicePlanSchema.parse({ id: 1, name: 'Standard Monthly', periods: [{ id: 37, period: 1, price: 10000 }] })],
    settings: { servicePlanPeriodId: 37, servicePrice: 10000, parentSiteId: undefined, statuses: DEFAULT_SERVICE_STATUSES },
    today: '2026-01-02',
    ...overrides,
  };
}

const refusal = (decision: ActivationDecision) => (decision.kind === 'refused' ? decision.refusal : undefined);
const planOf = (decision: ActivationDecision) => {
  if (decision.kind === 'refused') throw new Error(`refused: ${errorSentence(decision.refusal)}`);
  return decision.plan;
};

describe('devices already in use (§2)', () => {
  it.each(['ap', 'router', 'switch', 'gateway', 'ptp', 'server', 'homeWiFi'])('a %s is infrastructure: refused, naming device, role and site', (role) => {
    const r = refusal(decideActivation(reads({ dev: device(role, TOWER) })));
    expect(r).toMatchObject({ code: 'device-infrastructure', role, device: { name: 'cpe-1' }, site: { id: TOWER, name: 'Tower 1' } });
    expect(errorSentence(r!)).toBe(`cpe-1 is network infrastructure (role ${role}) on site "Tower 1", not a subscriber station: SubOps never activates or moves it. Nothing was changed.`);
  });

  it('an infrastructure device is refused even when it is only discovered, and before any client problem', () => {
    const decision = decideActivation(reads({ dev: device('ap', null), lookup: { by: 'id', id: 99, client: null } }));
    expect(refusal(decision)).toMatchObject({ code: 'device-infrastructure', site: null });
  });

  it('a device with no role is refused: nothing shows it is a subscriber station', () => {
    const r = refusal(decideActivation(reads({ dev: device(null, null) })));
    expect(r).toMatchObject({ code: 'device-role-unknown' });
    expect(errorSentence(r!)).toContain('has no role in NMS');
  });

  it.each([
    ['discovered, no site', device('station', null), { site: { action: 'reuse' }, authorize: { action: 'authorize' } }],
    ['on a tower (infrastructure)', device('station', TOWER), { site: { action: 'reuse' }, authorize: { action: 'authorize' } }],
    ['on the client’s site bound in the CRM', device('station', 's-ada'), { site: { action: 'reuse', site: { id: 's-ada' } }, authorize: { action: 'skip' } }],
    ['on the client’s site carrying SubOps’ marker', device('station', 's-ada-marked'), { site: { action: 'reuse', site: { id: 's-ada-marked' } }, authorize: { action: 'skip' } }],
  ])('a station %s: a plan with no move and nothing to confirm', (_, dev, expected) => {
    const decision = decideActivation(reads({ dev }));
    expect(decision.kind).toBe('plan');
    expect(planOf(decision)).toMatchObject({ ...expected, move: null });
  });

  it.each([
    ['another client’s site (CRM binding with a name)', 's-ada', { site: { id: 's-ada', name: 'Ada Lovelace' }, client: { id: 7, name: 'Ada Lovelace' } }, '"Ada Lovelace" (client #7 Ada Lovelace)'],
    ['another client’s site (ucrmId only)', 's-bob', { site: { id: 's-bob' }, client: { id: 8, name: null } }, '"Bob Marley" (client #8)'],
    ['an endpoint site of unknown owner', 's-orphan', { site: { id: 's-orphan' }, client: { id: null, name: null } }, '"Old house" (client unknown)'],
  ])('a station on %s needs the move confirmed', (_, siteId, move, described) => {
    const decision = decideActivation(reads({ dev: device('station', siteId), firstName: 'Grace', lastName: 'Hopper', lookup: { by: 'name', active: [], archived: [] } }));
    expect(decision).toMatchObject({ kind: 'needs-confirmation', confirm: { deletes: [], move } });
    const plan = planOf(decision);
    expect(plan).toMatchObject({ client: { action: 'create' }, site: { action: 'create', name: 'Grace Hopper' }, authorize: { action: 'authorize' } });
    expect(describeMove(plan.move!)).toBe(described);
  });

  it('a station on a site NMS does not list is judged by its own site reference', () => {
    const onTower = DeviceSchema.parse({ identification: { id: 'dev', name: 'cpe-1', role: 'station', authorized: true, site: { id: 'gone', name: 'Gone Tower', type: 'site' } }, ipAddress: '10.0.0.9' });
    expect(decideActivation(reads({ dev: onTower })).kind).toBe('plan');
    const onEndpoint = DeviceSchema.parse({ identification: { id: 'dev', name: 'cpe-1', role: 'station', authorized: true, site: { id: 'gone', name: 'Gone House', type: 'endpoint' } }, ipAddress: '10.0.0.9' });
    expect(decideActivation(reads({ dev: onEndpoint }))).toMatchObject({ kind: 'needs-confirmation', confirm: { move: { site: { id: 'gone', name: 'Gone House' }, client: { id: null } } } });
  });

  it('a move and a deletion are confirmed together', () => {
    const quoted = ServiceSchema.parse({ id: 102, clientId: 8, status: 6 });
    const bob = person(8, 'Bob', 'Marley');
    const decision = decideActivation(reads({ dev: device('station', 's-ada'), firstName: 'Bob', lastName: 'Marley', lookup: { by: 'name', active: [bob], archived: [] }, services: [quoted] }));
    expect(decision).toMatchObject({ kind: 'needs-confirmation', confirm: { deletes: [{ id: 102 }], move: { client: { id: 7 } } }, plan: { site: { action: 'reuse', site: { id: 's-bob' } } } });
  });
});

describe('client identity (§3)', () => {
  const byId = (client: ReturnType<typeof person> | null, id = client?.id ?? 99): ClientLookup => ({ by: 'id', id, client });

  it.each([
    ['same name, other case and spacing', person(7, 'ADA ', ' lovelace'), 'Ada', 'Lovelace'],
    ['a company by its whole name', company(6, 'Bartica  Marine Supplies'), 'Bartica Marine', 'Supplies'],
  ])('an explicit id whose CRM name matches (%s) is used', (_, client, firstName, lastName) => {
    expect(planOf(decideActivation(reads({ lookup: byId(client), firstName, lastName })))).toMatchObject({ client: { action: 'reuse', client: { id: client.id } } });
  });

  it.each([
    [person(1004, 'Shanice', 'Williams'), 'CRM client #1004 is Shanice Williams, not Ada Lovelace.'],
    [company(6, 'Bartica Marine Supplies'), 'CRM client #6 is Bartica Marine Supplies, not Ada Lovelace.'],
  ])('an explicit id of another name is refused with the id and the CRM’s name', (client, message) => {
    const r = refusal(decideActivation(reads({ lookup: byId(client) })));
    expect(r).toMatchObject({ code: 'client-name-mismatch', clientId: client.id, crmName: expect.any(String), typedName: 'Ada Lovelace' });
    expect(errorSentence(r!)).toContain(message);
  });

  it('an explicit id the CRM does not have is refused', () => {
    expect(refusal(decideActivation(reads({ lookup: byId(null, 4242) })))).toMatchObject({ code: 'client-not-found', clientId: 4242 });
  });

  it('an explicit id of an archived client is reported, not used', () => {
    expect(refusal(decideActivation(reads({ lookup: byId(person(7, 'Ada', 'Lovelace', { isArchived: true })) })))).toMatchObject({ code: 'client-archived', candidates: [{ id: 7, archived: true }] });
  });

  it('a name matching only an archived client is reported with its id instead of a duplicate', () => {
    const r = refusal(decideActivation(reads({ lookup: { by: 'name', active: [], archived: [person(1007, 'Ada', 'Lovelace', { isArchived: true })] } })));
    expect(r).toMatchObject({ code: 'client-archived', candidates: [{ id: 1007 }] });
    expect(errorSentence(r!)).toMatch(/archived: #1007 Ada Lovelace \(c1007@example\.gy, \+592 600 1007\)\. Restore the client in the CRM/);
  });

  it('an active namesake wins over an archived one', () => {
    const decision = decideActivation(reads({ lookup: { by: 'name', active: [ADA], archived: [person(1007, 'Ada', 'Lovelace', { isArchived: true })] } }));
    expect(planOf(decision).client).toMatchObject({ action: 'reuse', client: { id: 7 } });
  });

  it('a company name is found by name lookup too', () => {
    const decision = decideActivation(reads({ firstName: 'Bartica marine', lastName: 'SUPPLIES', lookup: { by: 'name', active: [company(6, 'Bartica Marine Supplies')], archived: [] } }));
    expect(planOf(decision).client).toEqual({ action: 'reuse', client: { id: 6, name: 'Bartica Marine Supplies' } });
  });

  it('ambiguous names list each candidate with what tells them apart', () => {
    const twin = person(9, 'Ada', 'Lovelace', { street1: '2 Canje Road', city: 'New Amsterdam' });
    const r = refusal(decideActivation(reads({ lookup: { by: 'name', active: [ADA, twin, person(10, 'Ada', 'Byron')], archived: [] } })));
    expect(r).toMatchObject({ code: 'client-ambiguous', candidates: [{ id: 7, address: '1 Main St, Linden' }, { id: 9, email: 'c9@example.gy' }] });
    expect(errorSentence(r!)).toBe(
      'Several CRM clients are named Ada Lovelace: #7 Ada Lovelace (c7@example.gy, +592 600 7, 1 Main St, Linden); #9 Ada Lovelace (c9@example.gy, +592 600 9, 2 Canje Road, New Amsterdam). Give the client id.',
    );
  });

  it('no namesake at all: a new client in the plan', () => {
    expect(planOf(decideActivation(reads({ lookup: { by: 'name', active: [person(10, 'Ada', 'Byron')], archived: [] } }))).client).toEqual({ action: 'create', firstName: 'Ada', lastName: 'Lovelace' });
  });
});

describe('services, sites and the order of refusals', () => {
  it('a device problem is reported before a client problem', () => {
    expect(refusal(decideActivation(reads({ query: parseDeviceQuery('10.9.9.9'), lookup: { by: 'id', id: 1, client: null } })))).toMatchObject({ code: 'device-not-found' });
  });

  it('a suspended service is refused with the services; a Quoted one is deleted after confirmation', () => {
    const suspended = ServiceSchema.parse({ id: 104, clientId: 7, status: 3 });
    expect(refusal(decideActivation(reads({ services: [suspended] })))).toMatchObject({ code: 'service-suspended', services: [{ id: 104 }] });
    const quoted = ServiceSchema.parse({ id: 102, clientId: 7, status: 6 });
    expect(decideActivation(reads({ services: [quoted] }))).toMatchObject({ kind: 'needs-confirmation', confirm: { deletes: [{ id: 102, statusLabel: 'Quoted' }], move: null }, plan: { destructive: true } });
  });

  it('a configured parent site that NMS does not have is refused when a site must be created', () => {
    const settings = { servicePlanPeriodId: 37, servicePrice: 10000, parentSiteId: 'nope', statuses: DEFAULT_SERVICE_STATUSES };
    expect(refusal(decideActivation(reads({ settings, lookup: { by: 'name', active: [], archived: [] } })))).toMatchObject({ code: 'parent-site-not-found', parentSiteId: 'nope' });
    expect(decideActivation(reads({ settings })).kind).toBe('plan');
  });

  it('a new service starts today with the configured plan period and price', () => {
    expect(planOf(decideActivation(reads())).service).toEqual({ action: 'create', delete: [], servicePlanPeriodId: 37, price: 10000, activeFrom: '2026-01-02' });
  });
});
