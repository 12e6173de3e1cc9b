/**
 * The activation workflow end to end against the UISP simulator over loopback HTTP: what it sends to
 * UISP for every service state, what it refuses to do, and that re-running after a failure converges.
 */
import { stepSentence } from '../../src/render/activation.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { ActivationConfirmation, ActivationEvent, ActivationRequest, ActivationResult, StepEvent } from '../../src/services/activation/types.js';
import { startUisp, type UispFixture } from '../support/uisp.js';
import { worded } from '../support/worded.js';

let uisp: UispFixture;
afterEach(async () => uisp?.close());

const PRIMARY_SITE = '3f6b2c1e-8d4a-4e7b-9c2d-5a1e0f7b3c01';
const NOW = () => new Date('2026-11-22T15:00:00Z');
/** Clients and services an activation creates carry one line that says so (README: What SubOps writes into UISP). */
const MARKED = /^Created by SubOps \(activation [0-9a-f]{8}\)$/;
const siteMarked = (clientId: number) => new RegExp(`^Created by SubOps for CRM client ${clientId} \\(activation [0-9a-f]{8}\\)$`);

async function run(request: ActivationRequest, options: { dryRun?: boolean; confirm?: ActivationConfirmation } = {}) {
  const events: ActivationEvent[] = [];
  for await (const event of uisp.services.activation.run(request, options)) events.push(event);
  const result = events.at(-1) as ActivationResult;
  expect(result.type).toBe('result');
  expect(events.filter((e) => e.type === 'result')).toHaveLength(1);
  // The result as an agent reads it: its facts with the renderer's sentences.
  return { steps: events.filter((e): e is StepEvent => e.type === 'step'), result: worded(result) };
}

const deviceId = (name: string) => uisp.sim.data.devices.find((d) => d.identification.name === name)!.identification.id;
const bodyOf = (method: string, path: RegExp) => uisp.sim.requests.find((r) => r.method === method && path.test(r.path))?.body;

describe('a brand-new customer', () => {
  it('creates the client in Title Case, the Active service, the site, authorizes the device and reminds of the manual link', async () => {
    uisp = await startUisp({ now: NOW });
    const { steps, result } = await run({ device: '10.20.1.88', firstName: 'ada', lastName: 'LOVELACE', email: 'ada@example.org' });

    expect(steps.map((s) => [s.step, s.status])).toEqual([
      ['discover', 'done'],
      ['client', 'done'],
      ['service', 'done'],
      ['site', 'done'],
      ['authorize', 'done'],
      ['manual-link', 'manual'],
    ]);
    expect(result).toMatchObject({ outcome: 'activated', client: { name: 'Ada Lovelace' }, done: expect.any(Array), notDone: [] });
    const clientId = result.client!.id;
    // The client first; its site once the client has an id; then the service; the device last. No PUT.
    expect(uisp.writes()).toEqual(['POST /crm/api/v1.0/clients', 'POST /nms/api/v2.1/sites', `POST /crm/api/v1.0/clients/${clientId}/services`, 'POST /nms/api/v2.1/devices/authorize']);
    expect(bodyOf('POST', /\/clients$/)).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace', contacts: [expect.objectContaining({ email: 'ada@example.org' })], note: expect.stringMatching(MARKED) });
    // The CRM's documented date-time form: midnight of today in ISP_TIMEZONE (America/Guyana, UTC-4).
    expect(bodyOf('POST', /\/services$/)).toEqual({ status: 1, servicePlanPeriodId: 37, price: 10_000, activeFrom: '2026-11-22T00:00:00-0400', invoicingStart: '2026-11-22T00:00:00-0400', note: expect.stringMatching(MARKED) });
    expect(bodyOf('POST', /\/sites$/)).toEqual({ name: 'Ada Lovelace', type: 'endpoint', parentSiteId: PRIMARY_SITE, note: expect.stringMatching(siteMarked(clientId)) });
    expect(bodyOf('POST', /\/authorize$/)).toEqual({ siteId: result.site!.id, deviceIds: [deviceId('PowerBeam 5AC')] });
    const reminder = steps.at(-1)!;
    expect(stepSentence(reminder)).toContain(`${uisp.sim.url}/crm/client/${clientId}`);
    expect(stepSentence(reminder)).toMatch(/link client #\d+ Ada Lovelace .* to NMS site "Ada Lovelace"/);

    // What UISP now holds, read back through the simulator.
    expect(uisp.sim.data.services.filter((s) => s.clientId === clientId).map((s) => s.status)).toEqual([1]);
    expect(uisp.sim.data.devices.find((d) => d.identification.id === deviceId('PowerBeam 5AC'))!.identification).toMatchObject({ authorized: true, site: { id: result.site!.id } });
  });

  it('writes hyphenated and apostrophe names in Title Case', async () => {
    uisp = await startUisp({ now: NOW });
    const { result } = await run({ device: '74:83:C2:0F:AB:88', firstName: 'jean-luc', lastName: "o'NEIL" });
    expect(result.client?.name).toBe("Jean-Luc O'Neil");
    expect(bodyOf('POST', /\/clients$/)).toMatchObject({ firstName: 'Jean-Luc', lastName: "O'Neil" });
  });

  it('dates the service today in the ISP time zone, not UTC', async () => {
    // 02:00 UTC on the 22nd is still the evening of the 21st in Guyana (UTC-4).
    uisp = await startUisp({ now: () => new Date('2026-11-22T02:00:00Z'), env: { ISP_TIMEZONE: 'America/Guyana' } });
    await run({ device: '10.20.1.88', firstName: 'ada', lastName: 'lovelace' });
    expect(bodyOf('POST', /\/services$/)).toMatchObject({ activeFrom: '2026-11-21T00:00:00-0400', invoicingStart: '2026-11-21T00:00:00-0400' });
    // …which the CRM (here the simulator) stores as that calendar day.
    expect(uisp.sim.data.services.at(-1)).toMatchObject({ activeFrom: '2026-11-21T00:00:00-0400' });
  });

  it('takes plan period, price and parent site from the configuration', async () => {
    uisp = await startUisp({ now: NOW, env: { SERVICE_PLAN_PERIOD_ID: '38', SERVICE_PRICE: '29000', NMS_PARENT_SITE_ID: '7c1d9e2a-4b3f-4a6c-8e5d-2f9b0c1a7d12' } });
    await run({ device: '10.20.1.88', firstName: 'ada', lastName: 'lovelace' });
    expect(bodyOf('POST', /\/services$/)).toMatchObject({ servicePlanPeriodId: 38, price: 29_000 });
    expect(bodyOf('POST', /\/sites$/)).toMatchObject({ parentSiteId: '7c1d9e2a-4b3f-4a6c-8e5d-2f9b0c1a7d12' });
  });

  it('a parent site that does not exist is a setting problem, reported at the site step before any write', async () => {
    uisp = await startUisp({ now: NOW, env: { NMS_PARENT_SITE_ID: 'no-such-site' } });
    const { result } = await run({ device: '10.20.1.88', firstName: 'ada', lastName: 'lovelace' });
    expect(result).toMatchObject({ outcome: 'failed', error: { code: 'parent-site-not-found' } });
    expect(result.message).toMatch(/^Activation failed at the site step: NMS_PARENT_SITE_ID no-such-site is not an NMS site/);
    expect(uisp.writes()).toEqual([]);
  });
});

describe('existing clients, by service state', () => {
  it('Active: reports "already activated" and writes nothing at all', async () => {
    uisp = await startUisp({ now: NOW });
    const { steps, result } = await run({ device: '10.20.1.21', firstName: 'marcus', lastName: 'baptiste' });
    expect(result.outcome).toBe('already-activated');
    expect(steps.find((s) => s.step === 'service')).toMatchObject({ status: 'skipped', kind: 'already-active', service: { id: 101 } });
    expect(steps.find((s) => s.step === 'site')).toMatchObject({ status: 'skipped', ids: { siteId: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c56' } });
    expect(steps.find((s) => s.step === 'authorize')?.status).toBe('skipped');
    expect(uisp.writes()).toEqual([]);
  });

  it('Quoted: deletes the quoted service, then creates the Active one (found by MAC in Cisco notation)', async () => {
    uisp = await startUisp({ now: NOW });
    expect(await uisp.services.activation.plan({ device: '788a.204c.1e51', firstName: 'Priya', lastName: 'Ramnarine' })).toMatchObject({
      destructive: true,
      service: { action: 'create', delete: [{ id: 102, statusLabel: 'Quoted' }] },
    });
    const { result } = await run({ device: '788a.204c.1e51', firstName: 'Priya', lastName: 'Ramnarine' }, { confirm: { deletes: [102] } });
    expect(result.outcome).toBe('activated');
    const writes = uisp.writes();
    expect(writes.indexOf('DELETE /crm/api/v1.0/clients/services/102')).toBeLessThan(writes.indexOf('POST /crm/api/v1.0/clients/1002/services'));
    expect(result.done).toContain('Deleted Quoted service #102');
    expect(uisp.sim.data.services.filter((s) => s.clientId === 1002).map((s) => [s.id === 102, s.status])).toEqual([[false, 1]]);
  });

  it('Obsolete: deletes and recreates (device found by name, any case)', async () => {
    uisp = await startUisp({ now: NOW });
    const { result } = await run({ device: 'ns-FRASER', firstName: 'dwayne', lastName: 'fraser' }, { confirm: { deletes: 'any' } });
    expect(result.outcome).toBe('activated');
    expect(uisp.writes()).toContain('DELETE /crm/api/v1.0/clients/services/103');
    expect(uisp.writes()).not.toContain('POST /crm/api/v1.0/clients');
  });

  it('a deletion nobody confirmed stops before any write, saying what would be deleted', async () => {
    uisp = await startUisp({ now: NOW });
    for (const confirm of [{}, { deletes: [999] }, { moveFrom: 'any' }]) {
      const { steps, result } = await run({ device: '10.20.1.51', firstName: 'priya', lastName: 'ramnarine' }, { confirm });
      expect(result).toMatchObject({ outcome: 'failed', error: { code: 'delete-unconfirmed' }, plan: { service: { action: 'create', delete: [{ id: 102 }] } }, done: [] });
      expect(result.message).toBe(
        'Activation failed at the service step: This activation deletes Quoted service #102 of client #1002 Priya Ramnarine before creating the Active one: deleting needs your explicit confirmation. Nothing was changed.',
      );
      expect(steps).toEqual([expect.objectContaining({ step: 'service', status: 'failed' })]);
    }
    expect(uisp.writes()).toEqual([]);
  });

  describe('a confirmation, read again before any write', () => {
    const priya = { device: '10.20.1.51', firstName: 'priya', lastName: 'ramnarine' };
    // What the agent was shown: #102 as Quoted, in the world's numbers.
    const shown = () => ({ clientId: 1002, deletes: [{ id: 102, status: uisp.sim.statuses.quoted }] });
    const quoted102 = () => structuredClone(uisp.sim.data.services.find((s) => s.id === 102)!);

    it('nothing changed: the run deletes what its own read showed Quoted, after that read, then creates and reads back', async () => {
      uisp = await startUisp({ now: NOW });
      const { decision, changes } = await uisp.services.activation.recheck(priya, shown());
      expect(changes).toEqual([]);
      const { steps, result } = await run(priya, { confirm: { deletes: [102] } });
      expect(decision.kind).toBe('needs-confirmation');
      expect(result.outcome).toBe('activated');
      expect(result.done).toContain('Deleted Quoted service #102');
      expect(steps.find((s) => s.step === 'service')).toMatchObject({ status: 'done', kind: 'created', deleted: [102] });
      // The delete went out after the run's read of the client's services, and only once.
      const requests = uisp.sim.requests;
      const deleted = requests.findIndex((r) => r.method === 'DELETE');
      expect(requests.filter((r) => r.method === 'DELETE').map((r) => r.path)).toEqual(['/crm/api/v1.0/clients/services/102']);
      expect(requests.findLastIndex((r, i) => i < deleted && r.method === 'GET' && r.path === '/crm/api/v1.0/clients/1002/services')).toBeGreaterThan(-1);
    });

    it('a confirmed Quoted service someone turned Active meanwhile: the change is shown, and no run deletes it', async () => {
      uisp = await startUisp({ now: NOW });
      uisp.sim.data.services.find((s) => s.id === 102)!.status = 1;
      const { changes } = await uisp.services.activation.recheck(priya, shown());
      expect(changes).toEqual([{ kind: 'service-changed', id: 102, shown: uisp.sim.statuses.quoted, now: { id: 102, status: 1, statusLabel: 'Active', name: expect.anything() } }]);
      expect(uisp.writes()).toEqual([]);
      // A run with the old confirmation (Retry, the CLI's --yes) reads it again too: the Active service is reused, never deleted.
      const { result } = await run(priya, { confirm: { deletes: [102] } });
      expect(result).toMatchObject({ outcome: 'activated', service: { id: 102 } });
      expect(uisp.writes().filter((w) => w.includes('/services'))).toEqual([]);
    });

    it('never sends a delete the agent did not confirm, nor any write before it stops', async () => {
      uisp = await startUisp({ now: NOW });
      uisp.sim.data.services.push({ ...quoted102(), id: 151 });
      const { changes } = await uisp.services.activation.recheck(priya, shown());
      expect(changes).toEqual([{ kind: 'service-added', service: expect.objectContaining({ id: 151, statusLabel: 'Quoted' }) }]);
      // 151 was not confirmed; 101 (Marcus's Active service) is confirmed but not Quoted: neither is deleted.
      const { result } = await run(priya, { confirm: { deletes: [102, 101] } });
      expect(result).toMatchObject({ outcome: 'failed', error: { code: 'delete-unconfirmed' }, done: [] });
      expect(result.message).toContain('deletes Quoted service #151 of client #1002');
      expect(result.message).toContain('Nothing was changed');
      expect(uisp.writes()).toEqual([]);
    });

    it('a delete another process sent first (404) is not claimed as this run’s', async () => {
      uisp = await startUisp({ now: NOW, simulator: { faults: [{ method: 'DELETE', path: '/crm/api/v1.0/clients/services/102', kind: 'status', status: 404, times: 1 }] } });
      const { result } = await run(priya, { confirm: { deletes: [102] } });
      expect(result.outcome).toBe('activated');
      expect(result.done.join('\n')).not.toContain('Deleted Quoted service #102');
    });
  });

  it('no service: creates one for the existing client', async () => {
    uisp = await startUisp({ now: NOW });
    const { result } = await run({ device: '10.20.3.12', firstName: 'Shanice', lastName: 'Williams' });
    expect(result).toMatchObject({ outcome: 'activated', client: { id: 1004 } });
    expect(uisp.writes().filter((w) => w.includes('/crm/'))).toEqual(['POST /crm/api/v1.0/clients/1004/services']);
  });

  it('never reuses a site SubOps made for another client whose id merely starts the same', async () => {
    uisp = await startUisp({ now: NOW });
    const other = structuredClone(uisp.sim.data.sites.find((s) => s.identification.name === 'Ravi Persaud')!);
    other.id = other.identification.id = '00000000-0000-4000-8000-000000010040';
    other.identification.name = 'Client 10040';
    other.ucrm = null;
    other.description = { ...other.description, ucrmId: null, note: 'Created by SubOps for CRM client 10040 (activation a1b2c3d4)' };
    uisp.sim.data.sites.push(other);
    const { result } = await run({ device: '10.20.3.12', firstName: 'Shanice', lastName: 'Williams' });
    expect(result.site?.name).toBe('Shanice Williams');
    expect(uisp.writes()).toContain('POST /nms/api/v2.1/sites');
  });

  it('works on a stock UISP CRM that lists services only through GET /clients/services?clientId=', async () => {
    uisp = await startUisp({ now: NOW, simulator: { faults: [{ method: 'GET', path: /^\/crm\/api\/v1\.0\/clients\/\d+\/services$/, kind: 'status', status: 404 }] } });
    const { result } = await run({ device: '10.20.1.51', firstName: 'priya', lastName: 'ramnarine' }, { confirm: { deletes: [102] } });
    expect(result.outcome).toBe('activated');
    expect(uisp.sim.requests.some((r) => r.path === '/crm/api/v1.0/clients/services' && r.query.clientId === '1002')).toBe(true);
    expect(uisp.writes()).toContain('DELETE /crm/api/v1.0/clients/services/102');
  });

  it('an explicit client id whose CRM name matches the typed one (any case or spacing) is used', async () => {
    uisp = await startUisp({ now: NOW });
    const { result } = await run({ device: '10.20.3.12', firstName: ' SHANICE', lastName: 'williams ', clientId: 1004 });
    expect(result).toMatchObject({ outcome: 'activated', client: { id: 1004, name: 'Shanice Williams' } });
    expect(uisp.writes()).not.toContain('POST /crm/api/v1.0/clients');
  });

  it('a company client is found by its company name', async () => {
    uisp = await startUisp({ now: NOW });
    const { result } = await run({ device: '10.20.3.30', firstName: 'bartica marine', lastName: 'supplies' });
    expect(result).toMatchObject({ outcome: 'already-activated', client: { id: 1006, name: 'Bartica Marine Supplies' }, service: { id: 105 } });
    expect(uisp.writes()).toEqual([]);
  });

  it('follows the configured status numbering: under stock UISP numbers 6 is Deferred, so nothing is deleted', async () => {
    uisp = await startUisp({ now: NOW, env: { SERVICE_STATUS_NUMBERING: 'stock' }, simulator: { world: 'interface' } });
    await run({ device: '10.20.1.51', firstName: 'priya', lastName: 'ramnarine' });
    expect(uisp.writes().some((w) => w.startsWith('DELETE'))).toBe(false);
  });
});

describe('refusals write nothing', () => {
  it.each([
    [{ device: '10.99.0.1', firstName: 'a', lastName: 'b' }, 'device-not-found', 'discover', /Device not found: no device with IP 10\.99\.0\.1/],
    [
      { device: '10.20.1.88', firstName: 'kevin', lastName: 'singh' },
      'client-ambiguous',
      'client',
      /Several CRM clients are named Kevin Singh: #1008 Kevin Singh \(kevin\.singh@example\.com, \+592 677 1208, 19 Parika Backdam, Parika\); #1009 Kevin Singh \(ksingh\.berbice@example\.com, .*New Amsterdam\)\. Give the client id/,
    ],
    [{ device: '10.20.1.88', firstName: 'Someone', lastName: 'Else', clientId: 1004 }, 'client-name-mismatch', 'client', /CRM client #1004 is Shanice Williams, not Someone Else/],
    [{ device: '10.20.1.88', firstName: 'leon', lastName: 'HOPE' }, 'client-archived', 'client', /archived: #1007 Leon Hope \(leon\.hope@example\.com, \+592 666 3001, 4 Water Street, Georgetown\)\. Restore the client/],
    [{ device: '10.20.1.2', firstName: 'ada', lastName: 'lovelace' }, 'device-infrastructure', 'discover', /diamond-ap1 is network infrastructure \(role ap\) on site "Diamond Tower"/],
    [{ device: '10.20.0.1', firstName: 'ada', lastName: 'lovelace' }, 'device-infrastructure', 'discover', /noc-er8 is network infrastructure \(role router\) on site "Georgetown NOC"/],
    [{ device: '10.20.1.88', firstName: 'a', lastName: 'b', clientId: 4242 }, 'client-not-found', 'client', /No CRM client #4242/],
    [{ device: '10.20.2.44', firstName: 'ravi', lastName: 'persaud' }, 'service-suspended', 'service', /suspended service #104: lift the suspension/],
  ])('%o → %s at the %s step', async (request, code, failedStep, message) => {
    uisp = await startUisp({ now: NOW });
    const { steps, result } = await run(request);
    expect(result).toMatchObject({ outcome: 'failed', error: { code }, done: [], notDone: [] });
    expect(result.message).toMatch(message);
    expect(result.message).toMatch(new RegExp(`^Activation failed at the ${failedStep} step`));
    expect(steps).toEqual([expect.objectContaining({ step: failedStep, status: 'failed' })]);
    expect(uisp.writes()).toEqual([]);
  });

  it('several devices matching a name: lists them and writes nothing', async () => {
    uisp = await startUisp({ now: NOW });
    const twin = structuredClone(uisp.sim.data.devices.find((d) => d.identification.name === 'NS-Fraser')!);
    twin.identification.id = '00000000-0000-4000-8000-000000000001';
    twin.identification.mac = '00:11:22:33:44:55';
    uisp.sim.data.devices.push(twin);
    const { result } = await run({ device: 'ns-fraser', firstName: 'dwayne', lastName: 'fraser' });
    expect(result.error).toMatchObject({ code: 'device-ambiguous', candidates: [expect.stringContaining('NS-Fraser'), expect.stringContaining('00:11:22:33:44:55')] });
    expect(uisp.writes()).toEqual([]);
  });

  it('a dry run reads, shows the plan, and writes nothing', async () => {
    uisp = await startUisp({ now: NOW });
    const { steps, result } = await run({ device: '10.20.1.51', firstName: 'priya', lastName: 'ramnarine' }, { dryRun: true });
    expect(result.outcome).toBe('planned');
    expect(result.plan).toMatchObject({ destructive: true, client: { action: 'reuse' }, site: { action: 'create' } });
    expect(steps.map((s) => s.status)).toEqual(['done', 'planned', 'planned', 'planned', 'planned']);
    expect(stepSentence(steps[2]!)).toContain('delete Quoted service #102');
    expect(uisp.writes()).toEqual([]);
  });
});

describe('failures and convergence', () => {
  it('a failed authorization says what was done and not done; re-running finishes without duplicates', async () => {
    // Five 503s: the first try and UISP_WRITE_RETRIES (4) more, each after reading the device again.
    uisp = await startUisp({ now: NOW, simulator: { faults: [{ method: 'POST', path: /\/authorize$/, kind: 'status', status: 503, times: 5 }] } });
    const request = { device: '10.20.1.88', firstName: 'ada', lastName: 'lovelace' };
    const first = await run(request);
    expect(first.result.outcome).toBe('failed');
    expect(first.result.message).toMatch(/failed at the authorize step: NMS POST .*authorize: UISP is unavailable \(HTTP 503: Service Unavailable\) \(tried 5 times; UISP does not show it yet, it may still appear\)\. UISP may or may not have applied this change; re-run the activation/);
    expect(uisp.writes().filter((w) => w.endsWith('/authorize'))).toHaveLength(5);
    expect(first.result.done).toEqual([expect.stringMatching(/^Created client #\d+ Ada Lovelace$/), expect.stringMatching(/^Created Active service/), 'Created NMS site "Ada Lovelace"']);
    expect(first.result.notDone).toEqual(['authorize PowerBeam 5AC']);
    expect(first.result).toMatchObject({ device: { name: 'PowerBeam 5AC' }, client: { name: 'Ada Lovelace' }, site: { name: 'Ada Lovelace' } });
    expect(first.steps.at(-1)).toMatchObject({ step: 'authorize', status: 'failed' });

    const second = await run(request);
    expect(second.result.outcome).toBe('activated');
    expect(second.steps.map((s) => [s.step, s.status])).toEqual([
      ['discover', 'done'],
      ['client', 'skipped'],
      ['service', 'skipped'],
      ['site', 'skipped'],
      ['authorize', 'done'],
      ['manual-link', 'manual'],
    ]);
    const { data } = uisp.sim;
    const clients = data.clients.filter((c) => c.firstName === 'Ada' && c.lastName === 'Lovelace');
    expect(clients).toHaveLength(1);
    expect(data.services.filter((s) => s.clientId === clients[0]!.id)).toHaveLength(1);
    expect(data.sites.filter((s) => s.identification.name === 'Ada Lovelace')).toHaveLength(1);

    const third = await run(request);
    expect(third.result.outcome).toBe('already-activated');
  });

  it('a service plan period the CRM does not have is refused before anything is written', async () => {
    // UISP's refusal would come after the client and the site are made: refuse first.
    uisp = await startUisp({ now: NOW, env: { SERVICE_PLAN_PERIOD_ID: '999' } });
    const { result } = await run({ device: '10.20.1.88', firstName: 'ada', lastName: 'lovelace' });
    expect(result).toMatchObject({ outcome: 'failed', failedStep: 'service', error: { code: 'service-plan-unknown' } });
    expect(result.message).toContain('SERVICE_PLAN_PERIOD_ID 999 is no period of the CRM\'s service plans');
    expect(result.message).toContain('Nothing was changed.');
    expect(uisp.writes()).toEqual([]);
  });

  it('a refused service creation keeps the created client and site, reports them, and does not let the device on', async () => {
    uisp = await startUisp({ now: NOW, simulator: { faults: [{ method: 'POST', path: /\/services$/, kind: 'status', status: 422 }] } });
    const { result } = await run({ device: '10.20.1.88', firstName: 'ada', lastName: 'lovelace' });
    expect(result).toMatchObject({ outcome: 'failed', failedStep: 'service' });
    expect(result.done).toEqual([expect.stringMatching(/^Created client #\d+ Ada Lovelace$/), 'Created NMS site "Ada Lovelace"']);
    expect(result.notDone).toEqual(['create the Active service', 'authorize PowerBeam 5AC']);
    expect(uisp.writes().filter((w) => w.endsWith('/authorize'))).toEqual([]);
  });

  it('a service UISP creates as Quoted (not Active) fails the run, and the device is not let on', async () => {
    uisp = await startUisp({ now: NOW });
    // UISP leaves a service Quoted when it is created without status 1 (spec §7): the gate drops the status from the body.
    const gate = uisp.sim.gate({ method: 'POST', path: /^\/crm\/api\/v1\.0\/clients\/\d+\/services$/ });
    const running = run({ device: '10.20.1.88', firstName: 'ada', lastName: 'lovelace' });
    await gate.arrived(1);
    delete (gate.held[0]!.body as { status?: number }).status;
    gate.open();
    const { steps, result } = await running;
    const service = steps.findLast((s) => s.step === 'service')!;
    expect(service).toMatchObject({ status: 'failed', error: { code: 'uisp-error', problem: 'service-not-active' } });
    expect(stepSentence(service)).toMatch(/created service #\d+ as Quoted, not Active/);
    expect(result).toMatchObject({ outcome: 'failed', notDone: ['authorize PowerBeam 5AC'] });
    expect(result.done).toContainEqual(expect.stringMatching(/^Created Quoted service #\d+/));
    expect(uisp.writes().filter((w) => w.endsWith('/authorize'))).toEqual([]);
  });

  it('UISP down during the reads: fails at discovery, nothing written, message says so', async () => {
    uisp = await startUisp({ now: NOW, env: { UISP_RETRIES: '0' }, simulator: { faults: [{ method: 'GET', path: '/nms/api/v2.1/sites', kind: 'status', status: 502 }] } });
    const { result } = await run({ device: '10.20.1.88', firstName: 'ada', lastName: 'lovelace' });
    expect(result).toMatchObject({ outcome: 'failed', error: { code: 'uisp-error' } });
    expect(result.message).toContain('Nothing was changed.');
    expect(uisp.writes()).toEqual([]);
  });
});

describe('devices already in use', () => {
  const HOPE_SITE = '4d5e6f7a-8b9c-4dae-9f10-3b4c5d6e7f89';
  const hopeRecords = () => JSON.stringify([uisp.sim.data.clients.find((c) => c.id === 1007), uisp.sim.data.sites.find((s) => s.id === HOPE_SITE)]);

  it('a station on another client’s site: without confirmation nothing is written, and the answer names the site and its client', async () => {
    uisp = await startUisp({ now: NOW });
    const { steps, result } = await run({ device: '10.20.1.77', firstName: 'ada', lastName: 'lovelace' });
    expect(result).toMatchObject({ outcome: 'failed', error: { code: 'device-in-use' }, done: [], plan: { move: { site: { id: HOPE_SITE, name: 'Leon Hope' }, client: { id: 1007, name: 'Leon Hope' } } } });
    expect(result.message).toBe('Activation failed at the authorize step: cpe-hope is authorized on site "Leon Hope" (client #1007 Leon Hope), which is not this client\'s site: moving it needs your explicit confirmation. Nothing was changed.');
    expect(steps).toEqual([expect.objectContaining({ step: 'authorize', status: 'failed' })]);
    expect(uisp.writes()).toEqual([]);
  });

  it('a confirmation for another site does not move it either', async () => {
    uisp = await startUisp({ now: NOW });
    const { result } = await run({ device: '10.20.1.77', firstName: 'ada', lastName: 'lovelace' }, { confirm: { moveFrom: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c56' } });
    expect(result.error?.code).toBe('device-in-use');
    expect(uisp.writes()).toEqual([]);
  });

  it('confirmed: moves the device onto the new site, leaves the other client’s records alone, and says where it came from', async () => {
    uisp = await startUisp({ now: NOW });
    const before = hopeRecords();
    const { result } = await run({ device: 'cpe-hope', firstName: 'ada', lastName: 'lovelace' }, { confirm: { moveFrom: HOPE_SITE } });
    expect(result).toMatchObject({ outcome: 'activated', movedFrom: { site: { id: HOPE_SITE, name: 'Leon Hope' }, client: { id: 1007 } } });
    expect(result.message).toMatch(/^Activated Ada Lovelace: service #\d+, site "Ada Lovelace", device cpe-hope \(moved from "Leon Hope" \(client #1007 Leon Hope\)\)\.$/);
    expect(bodyOf('POST', /\/authorize$/)).toEqual({ siteId: result.site!.id, deviceIds: [deviceId('cpe-hope')] });
    // Only the new client's records and the authorization: nothing of client 1007 or its site.
    expect(uisp.writes().filter((w) => w.includes('1007') || w.includes(HOPE_SITE))).toEqual([]);
    expect(hopeRecords()).toBe(before);
    expect(uisp.sim.data.devices.find((d) => d.identification.name === 'cpe-hope')!.identification.site).toMatchObject({ id: result.site!.id });
  });

  it('the dry run shows the move it would make and writes nothing', async () => {
    uisp = await startUisp({ now: NOW });
    const { steps, result } = await run({ device: '10.20.1.77', firstName: 'ada', lastName: 'lovelace' }, { dryRun: true });
    expect(result.outcome).toBe('planned');
    expect(stepSentence(steps.at(-1)!)).toBe('Would move cpe-hope from site "Leon Hope" (client #1007 Leon Hope) onto that site (only when confirmed)');
    expect(uisp.writes()).toEqual([]);
  });

  it('a station on a tower is the normal case: moved onto the new site without asking', async () => {
    uisp = await startUisp({ now: NOW });
    const { result } = await run({ device: '10.20.1.60', firstName: 'ada', lastName: 'lovelace' });
    expect(result).toMatchObject({ outcome: 'activated', site: { name: 'Ada Lovelace' } });
    expect(result.movedFrom).toBeUndefined();
    expect(uisp.writes()).toContain('POST /nms/api/v2.1/devices/authorize');
    expect(bodyOf('POST', /\/authorize$/)).toMatchObject({ deviceIds: [deviceId('LBE-Stock-Diamond')] });
  });
});
