/**
 * Late duplicates made the way UISP makes them: SubOps-marked records created through the simulator's
 * own API (as a create UISP applied after its run gave up, or what a run that failed midway left), and
 * invoices a test gives the CRM.
 */
import { recordMarker, siteMarker } from '../../src/services/activation/markers.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { InvoiceRecordSchema } from '../../src/simulator/records.js';
import { crm, nms } from '../simulator/helpers.js';

/** Two SubOps-made Active services for the client, the older first (Standard Monthly, period 37). */
export async function seedServiceDuplicate(sim: RunningSimulator, clientId = 1004): Promise<{ kept: number; late: number }> {
  const ids: number[] = [];
  for (const activation of ['3f9a1c2e', '7b2d4e6f']) {
    const made = await crm(sim, 'POST', `/clients/${clientId}/services`, { status: 1, servicePlanPeriodId: 37, activeFrom: '2026-01-05', invoicingStart: '2026-01-05', note: recordMarker(activation) });
    if (made.status !== 201) throw new Error(`could not seed a service: ${JSON.stringify(made.body)}`);
    ids.push(made.body.id as number);
  }
  return { kept: ids[0]!, late: ids[1]! };
}

/** Two SubOps sites for the client under Parika Tower; `deviceName` (a discovered station) is authorized onto the first. */
export async function seedSiteDuplicate(sim: RunningSimulator, clientId = 1004, deviceName = 'LiteBeam-Williams'): Promise<{ kept: string; late: string }> {
  const parent = sim.data.sites.find((s) => s.identification.name === 'Parika Tower')!.id;
  const ids: string[] = [];
  for (const activation of ['3f9a1c2e', '7b2d4e6f']) {
    const made = await nms(sim, 'POST', '/sites', { name: 'Shanice Williams', type: 'endpoint', parentSiteId: parent, note: siteMarker(clientId, activation) });
    if (made.status !== 200) throw new Error(`could not seed a site: ${JSON.stringify(made.body)}`);
    ids.push(made.body.id as string);
  }
  const device = sim.data.devices.find((d) => d.identification.name === deviceName)!;
  const authorized = await nms(sim, 'POST', '/devices/authorize', { siteId: ids[0], deviceIds: [device.identification.id] });
  if (authorized.status !== 200) throw new Error(`could not authorize ${deviceName}: ${JSON.stringify(authorized.body)}`);
  return { kept: ids[0]!, late: ids[1]! };
}

/**
 * A customer's client made by SubOps and a newer SubOps-made namesake with nothing under it: what a run
 * that failed midway leaves (it lost to the older one and could not remove its own), or a client POST UISP
 * applied late. The activation's lookup leaves the newer one out (planner's `withoutSettling`).
 */
export async function seedClientDuplicate(sim: RunningSimulator, firstName = 'Jane', lastName = 'Doe'): Promise<{ kept: number; late: number }> {
  const ids: number[] = [];
  for (const activation of ['3f9a1c2e', '7b2d4e6f']) {
    const made = await crm(sim, 'POST', '/clients', { clientType: 1, isLead: false, firstName, lastName, note: recordMarker(activation) });
    if (made.status !== 201) throw new Error(`could not seed a client: ${JSON.stringify(made.body)}`);
    ids.push(made.body.id as number);
  }
  return { kept: ids[0]!, late: ids[1]! };
}

/** A SubOps site made for `clientId` under Parika Tower, with no device on it (`activation`: whose marker). */
export async function seedSubOpsSite(sim: RunningSimulator, clientId: number, name: string, activation = '7b2d4e6f'): Promise<string> {
  const parent = sim.data.sites.find((s) => s.identification.name === 'Parika Tower')!.id;
  const made = await nms(sim, 'POST', '/sites', { name, type: 'endpoint', parentSiteId: parent, note: siteMarker(clientId, activation) });
  if (made.status !== 200) throw new Error(`could not seed a site: ${JSON.stringify(made.body)}`);
  return made.body.id as string;
}

/** An invoice of the client billing these services (one item each). */
export function invoice(sim: RunningSimulator, clientId: number, serviceIds: number[]): number {
  const id = Math.max(0, ...sim.data.invoices.map((i) => i.id)) + 1;
  const currencyCode = sim.data.clients.find((c) => c.id === clientId)?.currencyCode ?? null;
  sim.data.invoices.push(InvoiceRecordSchema.parse({ id, clientId, number: `INV-${id}`, currencyCode, items: serviceIds.map((serviceId, n) => ({ id: id * 10 + n, serviceId, price: 10_000, total: 10_000 })) }));
  return id;
}
