/**
 * A stock UISP, as its API descriptions and real captures show it, beside the interface document's world
 * (issue 26): service statuses numbered 0 Prepared … 5 Obsolete, 6 Deferred, 7 Quoted, 8 Inactive; a site
 * bound to a CRM *service* (`description.ucrmId` is the service's id); clients with services of other
 * plans (cable TV). Each case was a wrong write or a wrong owner before; each world is named explicitly.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { describeNumbering } from '../../src/services/activation/numbering.js';
import type { ActivationConfirmation, ActivationEvent, ActivationRequest, ActivationResult } from '../../src/services/activation/types.js';
import { renderEvent } from '../../src/cli/render.js';
import type { SimulatorWorld } from '../../src/simulator/index.js';
import { startUisp, type UispFixture } from '../support/uisp.js';
import { worded } from '../support/worded.js';

let uisp: UispFixture;
afterEach(async () => uisp?.close());

const NOW = () => new Date('2026-11-22T15:00:00Z');
const YES: ActivationConfirmation = { deletes: 'any', moveFrom: 'any' };
const PRIYA: ActivationRequest = { device: '10.20.1.51', firstName: 'priya', lastName: 'ramnarine' };
const FRASER: ActivationRequest = { device: 'ns-fraser', firstName: 'dwayne', lastName: 'fraser' };

async function run(request: ActivationRequest, options: { dryRun?: boolean; confirm?: ActivationConfirmation } = {}) {
  const events: ActivationEvent[] = [];
  for await (const event of uisp.services.activation.run(request, options)) events.push(event);
  return { events, result: worded(events.at(-1) as ActivationResult) };
}

const deletes = () => uisp.writes().filter((w) => w.startsWith('DELETE'));
const service = (id: number) => uisp.sim.data.services.find((s) => s.id === id)!;

describe('a stock UISP with only UISP_URL and UISP_TOKEN set: the numbering is detected', () => {
  it('says so: stock, from the CRM answering GET /version', async () => {
    uisp = await startUisp({ now: NOW, simulator: { world: 'stock' } });
    expect(describeNumbering(await uisp.services.numbering.resolve())).toBe('stock (7 Quoted, 5 Obsolete; detected: the CRM answers GET /version (2.4.205), as every stock UISP does)');
  });

  it('a confirmed run (the CLI’s --yes) never deletes a Deferred (6) service: it is left as it is beside the new one', async () => {
    uisp = await startUisp({ now: NOW, simulator: { world: 'stock' } });
    service(102).status = uisp.sim.statuses.deferred!;
    const { result } = await run(PRIYA, { confirm: YES });
    expect(result).toMatchObject({ outcome: 'activated', client: { id: 1002 } });
    expect(deletes()).toEqual([]);
    expect(service(102).status).toBe(6);
  });

  it.each([
    ['Prepared', 0],
    ['Ended', 2],
    ['Prepared blocked', 4],
    ['Inactive', 8],
  ])('nor a %s (%i) one', async (_, status) => {
    uisp = await startUisp({ now: NOW, simulator: { world: 'stock' } });
    service(102).status = status;
    await run(PRIYA, { confirm: YES });
    expect(deletes()).toEqual([]);
  });

  it('a Quoted (7) and an Obsolete (5) internet service are deleted, then replaced, as the document intends', async () => {
    uisp = await startUisp({ now: NOW, simulator: { world: 'stock' } });
    expect([service(102).status, service(103).status]).toEqual([7, 5]);
    const { result: priya } = await run(PRIYA, { confirm: YES });
    expect(priya.done).toContain('Deleted Quoted service #102');
    const { result: fraser } = await run(FRASER, { confirm: YES });
    expect(fraser.done).toContain('Deleted Obsolete service #103');
    expect(deletes()).toEqual(['DELETE /crm/api/v1.0/clients/services/102', 'DELETE /crm/api/v1.0/clients/services/103']);
  });

  it('a numbering UISP contradicts (a status it does not name) stops before any delete and says why', async () => {
    // Set to the interface document's numbering against a stock UISP: 7 would read as Obsolete.
    uisp = await startUisp({ now: NOW, env: { SERVICE_STATUS_NUMBERING: 'interface' }, simulator: { world: 'stock' } });
    uisp.sim.data.services.push({ ...structuredClone(service(102)), id: 151, status: uisp.sim.statuses.inactive! });
    const { result } = await run(PRIYA, { confirm: YES });
    expect(result).toMatchObject({ outcome: 'failed', failedStep: 'service', error: { code: 'service-status-unknown' }, done: [] });
    expect(result.message).toContain('Client #1002 Priya Ramnarine has status 8 service #151: the interface status numbering in effect does not name it');
    expect(result.message).toContain('SERVICE_STATUS_NUMBERING');
    expect(uisp.writes()).toEqual([]);
  });

  it('when the CRM cannot be asked, a service that may be Quoted or Deferred is never deleted; a client with nothing to replace still activates', async () => {
    const faults = [{ method: 'GET', path: '/crm/api/v1.0/version', kind: 'status' as const, status: 503 }];
    uisp = await startUisp({ now: NOW, env: { UISP_RETRIES: '0' }, simulator: { world: 'stock', faults } });
    const { result } = await run(PRIYA, { confirm: YES });
    expect(result).toMatchObject({ outcome: 'failed', error: { code: 'service-status-unknown' } });
    expect(result.message).toContain('SubOps cannot tell which status numbering this UISP uses');
    expect(uisp.writes()).toEqual([]);
    const { result: shanice } = await run({ device: '10.20.3.12', firstName: 'shanice', lastName: 'williams' });
    expect(shanice.outcome).toBe('activated');
  });
});

describe.each<SimulatorWorld>(['interface', 'stock'])('the %s world', (world) => {
  /** A cable TV plan (General) and, for client 1002, a Quoted TV service beside the Quoted internet one. */
  function addCableTv(status: 'quoted' | 'active', clientId = 1002): number {
    const plan = structuredClone(uisp.sim.data.servicePlans.find((p) => p.id === 12)!);
    Object.assign(plan, { id: 20, name: 'Cable TV', servicePlanType: 'General', periods: [{ ...plan.periods[0]!, id: 60, price: 3000 }] });
    uisp.sim.data.servicePlans.push(plan);
    const tv = { ...structuredClone(service(102)), id: 160, clientId, status: uisp.sim.statuses[status], name: 'Cable TV', servicePlanPeriodId: 60, servicePlanId: 20, servicePlanType: 'General' };
    uisp.sim.data.services.push(tv);
    return tv.id;
  }

  describe('only services of the activation’s plan type are touched', () => {
    it('a Quoted cable TV service is listed as left alone, in the plan and the result, and never deleted', async () => {
      uisp = await startUisp({ now: NOW, simulator: { world } });
      addCableTv('quoted');
      const { result: planned } = await run(PRIYA, { dryRun: true });
      expect(planned.plan?.service).toMatchObject({ action: 'create', delete: [{ id: 102 }], leftAlone: [{ id: 160, statusLabel: 'Quoted', name: 'Cable TV' }] });
      const { events, result } = await run(PRIYA, { confirm: YES });
      expect(result).toMatchObject({ outcome: 'activated', leftAlone: [{ id: 160 }] });
      expect(deletes()).toEqual(['DELETE /crm/api/v1.0/clients/services/102']);
      expect(renderEvent(events.at(-1)!)).toContain('  Left alone: Quoted service #160 (Cable TV) (not of the plan type this activation creates)');
    });

    it('an Active cable TV service is not an internet service: the customer still gets one', async () => {
      uisp = await startUisp({ now: NOW, simulator: { world } });
      addCableTv('active', 1004);
      const { result } = await run({ device: '10.20.3.12', firstName: 'shanice', lastName: 'williams' });
      expect(result).toMatchObject({ outcome: 'activated', client: { id: 1004 } });
      expect(uisp.writes()).toContain('POST /crm/api/v1.0/clients/1004/services');
    });
  });

  describe('a site is bound to a CRM service: its description.ucrmId is that service’s id, never a client’s', () => {
    const MARCUS_SITE = '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c56';
    /** As UISP records it: Marcus's site bound to his service #101; and a client #101, someone else. */
    function bindAsUisp(): void {
      const site = uisp.sim.data.sites.find((s) => s.id === MARCUS_SITE)!;
      site.ucrm = null;
      service(101).unmsClientSiteId = MARCUS_SITE;
      const other = { ...structuredClone(uisp.sim.data.clients.find((c) => c.id === 1004)!), id: 101, firstName: 'Other', lastName: 'Customer', contacts: [] };
      uisp.sim.data.clients.push(other);
    }

    it('the device card names the client of the bound service; the cards show the site as that client’s only', async () => {
      uisp = await startUisp({ now: NOW, simulator: { world } });
      bindAsUisp();
      const device = await uisp.services.lookups.device('10.20.1.21');
      expect(device).toMatchObject({ kind: 'card', card: { site: { id: MARCUS_SITE }, client: { id: 1001, name: 'Marcus Baptiste' } } });
      const owner = await uisp.services.lookups.client('1001');
      expect(owner).toMatchObject({ kind: 'card', card: { sites: [{ id: MARCUS_SITE, linkedBy: 'crm' }] } });
      const other = await uisp.services.lookups.client('101');
      expect(other).toMatchObject({ kind: 'card', card: { client: { id: 101 }, sites: [] } });
    });

    it('an activation for the client whose id equals the service’s plans a site of its own, never Marcus’s', async () => {
      uisp = await startUisp({ now: NOW, simulator: { world } });
      bindAsUisp();
      const { result } = await run({ device: '10.20.1.88', firstName: 'other', lastName: 'customer', clientId: 101 }, { dryRun: true });
      expect(result.plan?.site).toMatchObject({ action: 'create', name: 'Other Customer' });
    });
  });
});
