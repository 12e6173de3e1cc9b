/**
 * The activation planner as a pure function: reads in, typed decision out, no I/O. One table per rule
 * of issue 8 §2 (devices already in use) and §3 (client identity). Refusals carry facts; where a test
 * checks what the agent reads, it words them with the renderer.
 */
import { describe, expect, it } from 'vitest';
import { parseDeviceQuery } from '../../src/services/activation/device-match.js';
import { leaseMessage } from '../../src/services/activation/lease.js';
import { ACTIVATION_MARKER, createdMarker, newClientMarker, runMarker } from '../../src/services/activation/markers.js';
import { decideActivation, markedFor, ownSites, siteMarker, type ActivationReads, type ClientLookup } from '../../src/services/activation/planner.js';
import { describeMove, errorSentence } from '../../src/render/activation.js';
import { DEFAULT_SERVICE_STATUSES } from '../../src/services/activation/service-status.js';
import type { ActivationDecision } from '../../src/services/activation/types.js';
import { ClientLogSchema, ClientSchema, DeviceSchema, ServicePlanSchema, ServiceSchema, SiteSchema } from '../../src/services/uisp/schemas.js';

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
    settings: { servicePlanPeriodId: 37, servicePrice: 10000, parentSiteId: undefined, statuses: DEFAULT_SERVICE_STATUSES, leaseMs: 60_000 },
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
    const settings = { servicePlanPeriodId: 37, servicePrice: 10000, parentSiteId: 'nope', statuses: DEFAULT_SERVICE_STATUSES, leaseMs: 60_000 };
    expect(refusal(decideActivation(reads({ settings, lookup: { by: 'name', active: [], archived: [] } })))).toMatchObject({ code: 'parent-site-not-found', parentSiteId: 'nope' });
    expect(decideActivation(reads({ settings })).kind).toBe('plan');
  });

  it('a new service starts today with the configured plan period and price', () => {
    expect(planOf(decideActivation(reads())).service).toEqual({ action: 'create', delete: [], servicePlanPeriodId: 37, price: 10000, activeFrom: '2026-01-02' });
  });
});

describe('the client’s own sites, several records and the service plan (the activation lease)', () => {
  // Grace Hopper, client #20, created by activation run r1; #21 is another client, #19 a namesake duplicate since removed.
  const GRACE_KEY = newClientMarker('Grace', 'Hopper');
  const made = (run: string) => `${ACTIVATION_MARKER} ${runMarker(run)} ${createdMarker(Date.UTC(2026, 0, 2))}`;
  const grace = person(20, 'Grace', 'Hopper', { note: made('r1') });
  const graceByHand = person(20, 'Grace', 'Hopper', { note: 'signed up at the office' });
  const endpoint = (id: string, note: string, extra: Record<string, unknown> = {}) => site(id, 'Grace Hopper', 'endpoint', { description: { note }, ...extra });
  const forGrace = (extra: Parameters<typeof reads>[0] = {}) =>
    reads({ firstName: 'Grace', lastName: 'Hopper', lookup: { by: 'name', active: [grace], archived: [] }, ...extra });

  describe('markedFor and ownSites', () => {
    const live = new Set([20, 21]);
    it.each<[string, boolean, ReturnType<typeof person>, ReturnType<typeof site>, ReadonlySet<number> | undefined]>([
      ['the client’s crm-client marker', true, graceByHand, endpoint('m', siteMarker(20)), live],
      ['another client’s crm-client marker', false, grace, endpoint('m', siteMarker(21)), live],
      ['the name key of a client SubOps created', true, grace, endpoint('k', `${runMarker('r1')} ${GRACE_KEY}`), live],
      ['the name key, bound in the CRM to the client itself', true, grace, endpoint('k', GRACE_KEY, { ucrm: { client: { id: '20' } } }), live],
      ['the name key, bound in the CRM to another client', false, grace, endpoint('k', GRACE_KEY, { ucrm: { client: { id: '21', name: 'Grace Hopper' } } }), live],
      ['the name key, bound in the CRM to a client not among the namesakes', false, grace, endpoint('k', GRACE_KEY, { ucrm: { client: { id: '77' } } }), live],
      ['the name key, linked by ucrmId alone to a client not among the namesakes', false, grace, endpoint('k', GRACE_KEY, { description: { ucrmId: 77, note: GRACE_KEY } }), live],
      ['the name key, marked for a removed duplicate (#19 not live)', true, grace, endpoint('k', `${GRACE_KEY} ${siteMarker(19)}`), live],
      ['the name key, marked for a namesake that still exists', false, grace, endpoint('k', `${GRACE_KEY} ${siteMarker(21)}`), live],
      ['the name key, marked for another id, when the namesakes are not known (lookup by id)', false, grace, endpoint('k', `${GRACE_KEY} ${siteMarker(19)}`), undefined],
      ['the name key of a client SubOps did not create', false, graceByHand, endpoint('k', GRACE_KEY), live],
      ['another name’s key', false, grace, endpoint('k', newClientMarker('Grace', 'Jones')), live],
    ])('a site with %s: own is %s', (_, own, client, s, namesakes) => {
      expect(markedFor(client, namesakes)(s)).toBe(own);
      expect(ownSites([SITES[0]!, s], client, namesakes)).toEqual(own ? [s] : []);
    });

    it('sites bound in the CRM come first, then SubOps’ marked ones, each in NMS order', () => {
      const marked = endpoint('a-marked', siteMarker(20));
      const keyed = endpoint('b-keyed', GRACE_KEY);
      const bound = endpoint('c-bound', 'by hand', { ucrm: { client: { id: '20' } } });
      const byUcrmId = endpoint('d-ucrm-id', 'by hand', { description: { ucrmId: 20, note: null } });
      expect(ownSites([marked, SITES[1]!, keyed, bound, byUcrmId], grace, live).map((s) => s.id)).toEqual(['c-bound', 'd-ucrm-id', 'a-marked', 'b-keyed']);
    });
  });

  describe('planSite with several own sites', () => {
    const other = endpoint('s-other-run', `${runMarker('r2')} ${siteMarker(20)}`);
    const holders = endpoint('s-holder', `${runMarker('r1')} ${GRACE_KEY}`);
    const older = endpoint('s-older', siteMarker(20));

    it('the holder’s site (the creator run’s) is chosen over the one the device is on: authorize, no move, nothing to confirm', () => {
      const decision = decideActivation(forGrace({ dev: device('station', 's-other-run'), sites: [...SITES, other, holders] }));
      expect(decision.kind).toBe('plan');
      expect(planOf(decision)).toMatchObject({ site: { action: 'reuse', site: { id: 's-holder' } }, authorize: { action: 'authorize' }, move: null });
    });

    it('the holder by lease entry: its site is chosen the same way', () => {
      const leased = endpoint('s-leased', `${runMarker('r3')} ${siteMarker(20)}`);
      const clientLogs = [ClientLogSchema.parse({ id: 5, clientId: 20, message: leaseMessage('r3'), createdDate: '2026-01-02T10:00:00+0000' })];
      const decision = decideActivation(forGrace({ lookup: { by: 'name', active: [graceByHand], archived: [] }, dev: device('station', 's-older'), sites: [...SITES, older, leased], clientLogs }));
      expect(planOf(decision)).toMatchObject({ site: { action: 'reuse', site: { id: 's-leased' } }, authorize: { action: 'authorize' }, move: null });
    });

    it('the holder made none: the device stays on the own site it is on (made by another run), nothing authorized', () => {
      const decision = decideActivation(forGrace({ dev: device('station', 's-other-run'), sites: [...SITES, older, other] }));
      expect(decision.kind).toBe('plan');
      expect(planOf(decision)).toMatchObject({ site: { action: 'reuse', site: { id: 's-other-run' } }, authorize: { action: 'skip', site: { id: 's-other-run' } }, move: null });
    });

    it('the holder made none and the device is on no own site: the first own site', () => {
      expect(planOf(decideActivation(forGrace({ dev: device('station', TOWER), sites: [...SITES, older, other] })))).toMatchObject({ site: { action: 'reuse', site: { id: 's-older' } }, authorize: { action: 'authorize' }, move: null });
    });
  });

  describe('planService with several Active services', () => {
    const first = ServiceSchema.parse({ id: 101, clientId: 20, status: 1, note: null });
    const holders = ServiceSchema.parse({ id: 105, clientId: 20, status: 1, note: made('r1') });
    const others = ServiceSchema.parse({ id: 103, clientId: 20, status: 1, note: made('r2') });

    it('the one the holder run made is reused', () => {
      expect(planOf(decideActivation(forGrace({ services: [holders, others, first] }))).service).toEqual({ action: 'reuse', service: { id: 105, status: 1, statusLabel: 'Active', name: null } });
    });

    it('without a holder’s service: the lowest id', () => {
      expect(planOf(decideActivation(forGrace({ lookup: { by: 'name', active: [graceByHand], archived: [] }, services: [holders, others, first] }))).service).toMatchObject({ action: 'reuse', service: { id: 101 } });
    });
  });

  describe('the configured service plan period', () => {
    const settings = (servicePlanPeriodId: number) => ({ servicePlanPeriodId, servicePrice: 10000, parentSiteId: undefined, statuses: DEFAULT_SERVICE_STATUSES, leaseMs: 60_000 });

    it.each([
      ['a period no plan has', 38, undefined],
      ['a plan’s id, not a period’s', 1, undefined],
      ['no service plans at all', 37, []],
    ])('%s is refused before anything is written, naming the setting', (_, id, servicePlans) => {
      const r = refusal(decideActivation(reads({ settings: settings(id), ...(servicePlans && { servicePlans }) })));
      expect(r).toEqual({ code: 'service-plan-unknown', servicePlanPeriodId: id });
      expect(errorSentence(r!)).toBe(`SERVICE_PLAN_PERIOD_ID ${id} is no period of the CRM's service plans; fix the setting. Nothing was changed.`);
    });

    it('a period of any plan is accepted', () => {
      const servicePlans = [ServicePlanSchema.parse({ id: 1, name: 'Basic', periods: [{ id: 36, period: 1, price: 5000 }] }), ServicePlanSchema.parse({ id: 2, name: 'Fast', periods: [{ id: 40, period: 1, price: 9000 }, { id: 41, period: 3, price: 25000 }] })];
      expect(planOf(decideActivation(reads({ settings: settings(41), servicePlans }))).service).toMatchObject({ action: 'create', servicePlanPeriodId: 41 });
    });

    it('an unknown period does not stop a client that is already activated (nothing is created)', () => {
      const active = ServiceSchema.parse({ id: 101, clientId: 7, status: 1 });
      expect(planOf(decideActivation(reads({ settings: settings(38), services: [active] }))).service).toMatchObject({ action: 'reuse', service: { id: 101 } });
    });
  });
});
