/** Client and device cards from the services layer, against the simulator's sample data. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InputError } from '../../src/services/errors.js';
import { startUisp, type UispFixture } from '../support/uisp.js';

let uisp: UispFixture;
beforeEach(async () => {
  uisp = await startUisp();
});
afterEach(async () => {
  await uisp.close();
});

const lookups = () => uisp.services.lookups;

describe('client lookup', () => {
  it('builds the card of a suspended client: balance, services with reason and plan, last payment, site and device', async () => {
    const found = await lookups().client('#1005');
    expect(found.kind).toBe('card');
    if (found.kind !== 'card') return;
    const { card } = found;
    expect(card.client).toMatchObject({ id: 1005, name: 'Ravi Persaud', archived: false, address: '88 Lusignan Pasture, East Coast Demerara', email: 'ravi.persaud@example.com' });
    expect(card.crmUrl).toBe(`${uisp.sim.url}/crm/client/1005`);
    expect(card.account).toEqual({ balance: -20000, outstanding: 20000, currency: 'GYD' });
    expect(card.services).toEqual([
      { id: 104, name: 'Standard Monthly', plan: 'Standard Monthly', status: 3, statusLabel: 'Suspended', suspensionReason: 'Non-payment', price: 10000, currency: 'GYD', periodMonths: 1, action: 'unsuspend' },
    ]);
    const newest = uisp.sim.data.payments.filter((p) => p.clientId === 1005).sort((a, b) => b.createdDate.localeCompare(a.createdDate) || b.id - a.id)[0]!;
    expect(card.lastPayment?.id).toBe(newest.id);
    expect(card.sites).toHaveLength(1);
    expect(card.sites[0]).toMatchObject({ id: '2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d67', name: 'Ravi Persaud', linkedBy: 'crm' });
    expect(card.sites[0]!.devices).toEqual([
      expect.objectContaining({ name: 'cpe-persaud', model: 'NanoBeam 5AC Gen2', ip: '10.20.2.44', status: 'active', online: true, signal: -63, uptimeSeconds: 1904500, authorized: true }),
    ]);
    expect(card.gaps).toEqual([]);
    // A suspended service is lifted, not activated again.
    expect(card.activate).toBeNull();
    // The last payment is one page of one: no paging through the client's history.
    const pages = uisp.sim.requests.filter((r) => r.path === '/crm/api/v1.0/payments');
    expect(pages.map((r) => r.query.limit)).toEqual(['1']);
    expect(uisp.writes()).toEqual([]);
  });

  it('offers an activation, prefilled, to a client without a live service; a company by its name split for the form', async () => {
    const williams = await lookups().client('1004');
    expect(williams.kind === 'card' && williams.card.activate).toEqual({ firstName: 'Shanice', lastName: 'Williams', clientId: 1004 });
    const company = await lookups().client('Bartica');
    expect(company.kind === 'card' && company.card.activate).toBeNull();
    const fraser = await lookups().client('Dwayne Fraser');
    expect(fraser.kind === 'card' && fraser.card.services.map((s) => [s.statusLabel, s.action])).toEqual([['Obsolete', null]]);
    expect(fraser.kind === 'card' && fraser.card.activate).toEqual({ firstName: 'Dwayne', lastName: 'Fraser', clientId: 1003 });
  });

  it('lists several clients of a name with what tells them apart, archived clients included', async () => {
    const kevins = await lookups().client('kevin singh');
    expect(kevins).toEqual({
      kind: 'matches',
      query: 'kevin singh',
      matches: [
        { id: 1008, name: 'Kevin Singh', archived: false, address: '19 Parika Backdam, Parika', email: 'kevin.singh@example.com', phone: '+592 677 1208', userIdent: 'DW-1008' },
        { id: 1009, name: 'Kevin Singh', archived: false, address: '2 Canje Road, New Amsterdam', email: 'ksingh.berbice@example.com', phone: '+592 688 5530', userIdent: 'DW-1009' },
      ],
    });
    const hope = await lookups().client('Leon Hope');
    expect(hope.kind === 'card' && hope.card.client.archived).toBe(true);
    expect(hope.kind === 'card' && hope.card.activate).toBeNull();
    // The offline radio still on the roof.
    expect(hope.kind === 'card' && hope.card.sites[0]!.devices[0]).toMatchObject({ name: 'cpe-hope', online: false, status: 'disconnected', lastSeen: '2025-11-02T08:15:00.000Z' });
  });

  it('says when nothing matches, with the typed name ready for an activation', async () => {
    expect(await lookups().client('ada lovelace')).toEqual({ kind: 'none', query: 'ada lovelace', activate: { firstName: 'ada', lastName: 'lovelace' } });
    expect(await lookups().client('#424242')).toEqual({ kind: 'none', query: '#424242', activate: null });
  });

  it('refuses bad input by the grammar before asking UISP', async () => {
    await expect(lookups().client('#0')).rejects.toThrow(new InputError('client', 'Client id must be greater than 0.'));
    await expect(lookups().client('')).rejects.toBeInstanceOf(InputError);
    await expect(lookups().client('a\u0007b')).rejects.toBeInstanceOf(InputError);
    expect(uisp.sim.requests).toEqual([]);
  });

  it('shows what it could read when NMS fails, naming the gap', async () => {
    uisp.sim.setFaults([{ method: 'GET', path: '/nms/api/v2.1/sites', kind: 'status', status: 503 }]);
    const found = await lookups().client('1001');
    expect(found.kind).toBe('card');
    if (found.kind !== 'card') return;
    expect(found.card.services.map((s) => s.id)).toEqual([101]);
    expect(found.card.sites).toEqual([]);
    expect(found.card.gaps).toEqual([{ part: 'nms', problem: expect.stringContaining('/nms/api/v2.1/sites') as string }]);
  });
});

describe('device lookup', () => {
  it('finds a device by MAC in any notation, with its site and the client that site belongs to', async () => {
    const found = await lookups().device('b4fb.e41a.2b21');
    expect(found.kind).toBe('card');
    if (found.kind !== 'card') return;
    expect(found.card.device).toMatchObject({ name: 'cpe-baptiste', model: 'LiteBeam 5AC Gen2', ip: '10.20.1.21', mac: 'B4:FB:E4:1A:2B:21', online: true, signal: -58, uptimeSeconds: 640200, authorized: true, list: 'authorized', role: 'station' });
    expect(found.card.site).toEqual({ id: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c56', name: 'Marcus Baptiste', type: 'endpoint' });
    expect(found.card.client).toEqual({ id: 1001, name: 'Marcus Baptiste', archived: false });
    expect(found.card.activate).toBeNull();
  });

  it('offers to activate a discovered device, prefilled with its IP', async () => {
    const found = await lookups().device('10.20.1.88');
    expect(found.kind === 'card' && found.card).toMatchObject({ device: { name: 'PowerBeam 5AC', authorized: false, list: 'discovered', siteId: null }, site: null, client: null, activate: { device: '10.20.1.88' } });
  });

  it('an infrastructure device has a site and no client', async () => {
    const found = await lookups().device('diamond-ap1');
    expect(found.kind === 'card' && found.card).toMatchObject({ device: { role: 'ap' }, site: { name: 'Diamond Tower', type: 'site' }, client: null, activate: null });
  });

  it('lists the devices whose name contains the text, and says when none does', async () => {
    const found = await lookups().device('ap1');
    expect(found.kind === 'matches' && found.matches.map((d) => d.name)).toEqual(['diamond-ap1', 'enmore-ap1', 'parika-ap1']);
    expect(await lookups().device('10.99.0.1')).toEqual({ kind: 'none', query: '10.99.0.1' });
  });
});
