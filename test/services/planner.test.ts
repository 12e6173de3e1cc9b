/**
 * The activation planner as a pure function: reads in, typed decision out, no I/O. One table per rule
 * of issue 8 §2 (devices already in use) and §3 (client identity). Refusals carry facts; where a test
 * checks what the agent reads, it words them with the renderer.
 */
import { describe, expect, it } from 'vitest';
import { parseDeviceQuery } from '../../src/services/activation/device-match.js';
import { confirmationChanges } from '../../src/services/activation/confirmation.js';
import { lateDuplicates } from '../../src/services/activation/late-duplicates.js';
import { recordMarker, siteMarker } from '../../src/services/activation/markers.js';
import { decideActivation, type ActivationReads, type ClientLookup } from '../../src/services/activation/planner.js';
import { keptSite } from '../../src/services/activation/keep.js';
import { ownSites } from '../../src/services/sites.js';
import { describeMove, errorSentence } from '../../src/render/activation.js';
import { INTERFACE_NUMBERING } from '../../src/services/activation/service-status.js';
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
  site('s-ada-marked', 'Ada (SubOps)', 'endpoint', { description: { note: `made by hand\n${siteMarker(7, 'a1b2c3d4')}` } }),
  site('s-bob', 'Bob Marley', 'endpoint', { description: { ucrmId: 538 }, ucrm: { client: { id: '8', name: null }, service: { id: '538' } } }),
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
    sites: SITES,
    servicePlans: [ServicePlanSchema.parse({ id: 1, name: 'Standard Monthly', periods: [{ id: 37, period: 1, price: 10000 }] })],
    numbering: { numbering: INTERFACE_NUMBERING, source: 'setting', why: 'SERVICE_STATUS_NUMBERING=interface' },
    settings: { servicePlanPeriodId: 37, servicePrice: 10000, parentSiteId: undefined },
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
    const quoted = ServiceSchema.parse({ id: 102, clientId: 8, status: 6, servicePlanPeriodId: 37 });
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
    const quoted = ServiceSchema.parse({ id: 102, clientId: 7, status: 6, servicePlanPeriodId: 37 });
    expect(decideActivation(reads({ services: [quoted] }))).toMatchObject({ kind: 'needs-confirmation', confirm: { deletes: [{ id: 102, statusLabel: 'Quoted' }], move: null }, plan: { destructive: true } });
  });

  it('a configured parent site that NMS does not have is refused when a site must be created', () => {
    const settings = { servicePlanPeriodId: 37, servicePrice: 10000, parentSiteId: 'nope' };
    expect(refusal(decideActivation(reads({ settings, lookup: { by: 'name', active: [], archived: [] } })))).toMatchObject({ code: 'parent-site-not-found', parentSiteId: 'nope' });
    expect(decideActivation(reads({ settings })).kind).toBe('plan');
  });

  it('a new service starts today with the configured plan period and price', () => {
    expect(planOf(decideActivation(reads())).service).toEqual({ action: 'create', delete: [], leftAlone: [], servicePlanPeriodId: 37, price: 10000, activeFrom: '2026-01-02' });
  });
});

describe('the client’s own sites, several records, confirmations and late duplicates', () => {
  // Grace Hopper, client #20, created by activation a1b2c3d4; #21 is another client.
  const grace = person(20, 'Grace', 'Hopper', { note: recordMarker('a1b2c3d4') });
  const endpoint = (id: string, note: string | null, extra: Record<string, unknown> = {}) => site(id, 'Grace Hopper', 'endpoint', { description: { note }, ...extra });
  const forGrace = (extra: Parameters<typeof reads>[0] = {}) => reads({ firstName: 'Grace', lastName: 'Hopper', lookup: { by: 'name', active: [grace], archived: [] }, ...extra });
  const on = (siteId: string) => DeviceSchema.parse({ identification: { id: `dev-on-${siteId}`, name: 'cpe-other', role: 'station', authorized: true, site: { id: siteId } } });

  describe('ownSites', () => {
    it.each<[string, boolean, ReturnType<typeof site>]>([
      ['SubOps’ marker for the client', true, endpoint('m', siteMarker(20, 'a1b2c3d4'))],
      ['SubOps’ marker after a person’s note', true, endpoint('m', `gate code 1234\n${siteMarker(20, 'a1b2c3d4')}`)],
      ['the marker of an older SubOps (subops:crm-client=20)', true, endpoint('m', 'subops:crm-client=20 subops:run=r1')],
      ['another client’s marker', false, endpoint('m', siteMarker(21, 'a1b2c3d4'))],
      ['client 2’s marker (no prefix match)', false, endpoint('m', siteMarker(2, 'a1b2c3d4'))],
      ['the marker, but bound in the CRM to another client', false, endpoint('m', siteMarker(20, 'a1b2c3d4'), { ucrm: { client: { id: '21', name: 'Someone' } } })],
      ['the marker, but linked by ucrmId to another client', false, endpoint('m', siteMarker(20, 'a1b2c3d4'), { description: { ucrmId: 21, note: siteMarker(20, 'a1b2c3d4') } })],
      ['a CRM binding to the client', true, endpoint('b', 'by hand', { ucrm: { client: { id: '20' } } })],
      ['a ucrmId of 20 (a bound service’s id on a stock UISP, never a client’s)', false, endpoint('b', null, { description: { ucrmId: 20, note: null } })],
      ['SubOps’ marker, but a ucrmId: bound to a service this read does not name', false, endpoint('m', null, { description: { ucrmId: 537, note: siteMarker(20, 'a1b2c3d4') } })],
      ['a binding to a service of the client (ucrm.service, ucrm.client)', true, endpoint('b', null, { description: { ucrmId: 537, note: null }, ucrm: { client: { id: '20' }, service: { id: '537' } } })],
      ['the marker text only as part of a longer line', false, endpoint('m', `see ${siteMarker(20, 'a1b2c3d4')}`)],
    ])('a site with %s: own is %s', (_, own, s) => {
      expect(ownSites([SITES[0]!, s], 20)).toEqual(own ? [s] : []);
    });

    it('sites bound in the CRM come first, then SubOps’ marked ones, each in NMS order', () => {
      const marked = endpoint('a-marked', siteMarker(20, 'a1b2c3d4'));
      const bound = endpoint('c-bound', 'by hand', { ucrm: { client: { id: '20' } } });
      const byService = endpoint('d-service', 'by hand', { description: { ucrmId: 537, note: null } });
      const services = [ServiceSchema.parse({ id: 537, clientId: 20, status: 1, unmsClientSiteId: 'd-service' })];
      expect(ownSites([marked, SITES[1]!, bound, byService], 20, services).map((s) => s.id)).toEqual(['c-bound', 'd-service', 'a-marked']);
    });
  });

  describe('which of several sites is kept (NMS ids are random: no oldest)', () => {
    const low = endpoint('s-1', siteMarker(20, 'aaaaaaaa'));
    const high = endpoint('s-9', siteMarker(20, 'bbbbbbbb'));
    const bound = endpoint('s-5', 'by hand', { ucrm: { client: { id: '20' } } });
    it.each<[string, ReturnType<typeof site>[], ReturnType<typeof on>[], string]>([
      ['none in use, none bound: the lowest id', [high, low], [], 's-1'],
      ['one in use (a device authorized on it): that one, whatever its id', [low, high], [on('s-9')], 's-9'],
      ['one bound in the CRM: that one', [high, low, bound], [on('s-9')], 's-5'],
    ])('%s', (_, own, devices, kept) => {
      expect(keptSite(own, { devices })?.id).toBe(kept);
    });
    it('none in use, none bound: the one made by the activation that made the client, whatever its id, else the lowest', () => {
      expect(keptSite([low, high], { devices: [], madeWith: 'bbbbbbbb' })?.id).toBe('s-9');
      expect(keptSite([low, high], { devices: [], madeWith: 'cccccccc' })?.id).toBe('s-1');
      expect(keptSite([low, high], { devices: [on('s-1')], madeWith: 'bbbbbbbb' })?.id).toBe('s-1');
    });
  });

  describe('planSite with several own sites', () => {
    const older = endpoint('s-1', siteMarker(20, 'aaaaaaaa'));
    const inUse = endpoint('s-9', siteMarker(20, 'bbbbbbbb'));

    it('the device on any own site stays there: nothing authorized, nothing moved', () => {
      const decision = decideActivation(forGrace({ dev: device('station', 's-9'), sites: [...SITES, older, inUse] }));
      expect(planOf(decision)).toMatchObject({ site: { action: 'reuse', site: { id: 's-9' } }, authorize: { action: 'skip', site: { id: 's-9' } }, move: null });
    });

    it('a second CPE for the customer goes onto the site in use by the first, not onto a newer empty one', () => {
      const dev = device('station', TOWER);
      const decision = decideActivation(forGrace({ dev, authorized: [dev, on('s-9')], sites: [...SITES, older, inUse] }));
      expect(planOf(decision)).toMatchObject({ site: { action: 'reuse', site: { id: 's-9' } }, authorize: { action: 'authorize' }, move: null });
    });

    it('none in use: the lowest id', () => {
      expect(planOf(decideActivation(forGrace({ dev: device('station', TOWER), sites: [...SITES, inUse, older] })))).toMatchObject({ site: { action: 'reuse', site: { id: 's-1' } } });
    });
  });

  it('several Active services: the oldest SubOps made is reused, never a person’s instead of it; a person’s alone is reused', () => {
    const persons = ServiceSchema.parse({ id: 101, clientId: 20, status: 1, note: null });
    const subOps = ServiceSchema.parse({ id: 105, clientId: 20, status: 1, note: recordMarker('a1b2c3d4') });
    const newer = ServiceSchema.parse({ id: 107, clientId: 20, status: 1, note: recordMarker('b1b2c3d4') });
    expect(planOf(decideActivation(forGrace({ services: [newer, persons, subOps] }))).service).toEqual({ action: 'reuse', service: { id: 105, status: 1, statusLabel: 'Active', name: null } });
    expect(planOf(decideActivation(forGrace({ services: [persons] }))).service).toEqual({ action: 'reuse', service: { id: 101, status: 1, statusLabel: 'Active', name: null } });
  });

  it('a staff rename made two SubOps clients share a name, each with a service: an ambiguity with every candidate, never a duplicate', () => {
    const renamed = person(1003, 'Grace', 'Hopper', { note: recordMarker('cccccccc'), street1: '3 Main St', city: 'Linden' });
    const decision = decideActivation(forGrace({ lookup: { by: 'name', active: [grace, renamed], archived: [] } }));
    expect(refusal(decision)).toMatchObject({ code: 'client-ambiguous', candidates: [{ id: 20, email: 'c20@example.gy', phone: '+592 600 20' }, { id: 1003, address: '3 Main St, Linden' }] });
  });

  describe('confirmationChanges: what differs from what the agent confirmed', () => {
    const quoted = ServiceSchema.parse({ id: 102, clientId: 7, status: 6, servicePlanPeriodId: 37 });
    const decideWith = (services: ReturnType<typeof ServiceSchema.parse>[], dev = device('station', null)) => {
      const r = reads({ services, dev });
      return confirmationChanges({ clientId: 7, deletes: [{ id: 102, status: 6 }] }, decideActivation(r), r);
    };

    it('nothing changed: no changes', () => {
      expect(decideWith([quoted])).toEqual([]);
    });

    it('the Quoted service turned Active: a change, and the plan no longer deletes it', () => {
      expect(decideWith([{ ...quoted, status: 1 }])).toEqual([{ kind: 'service-changed', id: 102, shown: 6, now: { id: 102, status: 1, statusLabel: 'Active', name: null } }]);
    });

    it('the Quoted service is gone, and another one appeared', () => {
      const other = ServiceSchema.parse({ id: 103, clientId: 7, status: 7, servicePlanPeriodId: 37 });
      expect(decideWith([other])).toEqual([
        { kind: 'service-changed', id: 102, shown: 6, now: null },
        { kind: 'service-added', service: { id: 103, status: 7, statusLabel: 'Obsolete', name: null } },
      ]);
    });

    it('the device is now on another client’s site', () => {
      expect(decideWith([quoted], device('station', 's-bob'))).toEqual([{ kind: 'move-changed', shown: null, now: { site: { id: 's-bob', name: 'Bob Marley' }, client: { id: 8, name: null } } }]);
    });
  });

  describe('lateDuplicates', () => {
    const client = { id: 20, name: 'Grace Hopper' };
    const active = (id: number, note: string | null) => ServiceSchema.parse({ id, clientId: 20, status: 1, note });
    it('two SubOps-made Active services: the newer is named, the oldest kept', () => {
      expect(lateDuplicates(client, [active(107, recordMarker('bbbbbbbb')), active(105, recordMarker('aaaaaaaa'))], [], null)).toEqual([
        { record: 'service', client, kept: { id: 105, name: null }, others: [{ id: 107, name: null }] },
      ]);
    });
    it('a person’s second Active service is no late duplicate', () => {
      expect(lateDuplicates(client, [active(105, recordMarker('aaaaaaaa')), active(107, 'by hand')], [], null)).toEqual([]);
    });
    it('a person’s older Active service is never the kept one nor named: SubOps’ oldest is kept', () => {
      expect(lateDuplicates(client, [active(109, recordMarker('cccccccc')), active(101, 'by hand'), active(107, recordMarker('bbbbbbbb'))], [], null)).toEqual([
        { record: 'service', client, kept: { id: 107, name: null }, others: [{ id: 109, name: null }] },
      ]);
    });
    it('two SubOps sites: the one not in use is named', () => {
      const a = endpoint('s-1', siteMarker(20, 'aaaaaaaa'));
      const b = endpoint('s-9', siteMarker(20, 'bbbbbbbb'));
      expect(lateDuplicates(client, [], [a, b], { id: 's-9', name: 'Grace Hopper' })).toEqual([{ record: 'site', client, kept: { id: 's-9', name: 'Grace Hopper' }, others: [{ id: 's-1', name: 'Grace Hopper' }] }]);
    });
  });

  describe('the configured service plan period', () => {
    const settings = (servicePlanPeriodId: number) => ({ servicePlanPeriodId, servicePrice: 10000, parentSiteId: undefined });

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
