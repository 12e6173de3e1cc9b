/**
 * Which UISP the simulator plays. `interface`: the interface document's world (the default, and the
 * demo's): service statuses 1 Active, 6 Quoted, 7 Obsolete (with UISP's 2 Ended, 3 Suspended), no
 * `GET /crm/api/v1.0/version`, and every site's `ucrm` binding (client) in every `GET /sites` answer, with
 * `description.ucrmId` naming the client. `stock`: what a stock UISP answers (CRM API Blueprint, NMS
 * Swagger, real captures): statuses 0 Prepared … 5 Obsolete, 6 Deferred, 7 Quoted, 8 Inactive; the CRM
 * serves `GET /version`; a site is bound to a CRM *service* (the service's `unmsClientSiteId`), `GET
 * /sites` carries `ucrm` ({client, service}) only with `ucrmDetails=true`, and `description.ucrmId` is the
 * bound service's id. Data (the sample data, data files) is written in the interface document's numbering
 * and renumbered for the stock world when the simulator starts.
 */
export type SimulatorWorld = 'interface' | 'stock';

export const SIMULATOR_WORLDS: readonly SimulatorWorld[] = ['interface', 'stock'];

/** The status numbers a world uses (the simulator imports nothing of SubOps: its own table). */
export interface WorldStatuses {
  active: number;
  ended: number;
  suspended: number;
  quoted: number;
  obsolete: number;
  /** Stock only (null in the interface world, which names no such status). */
  prepared: number | null;
  deferred: number | null;
  inactive: number | null;
}

export const WORLD_STATUSES: Readonly<Record<SimulatorWorld, WorldStatuses>> = Object.freeze({
  interface: Object.freeze({ active: 1, ended: 2, suspended: 3, quoted: 6, obsolete: 7, prepared: null, deferred: null, inactive: null }),
  stock: Object.freeze({ active: 1, ended: 2, suspended: 3, quoted: 7, obsolete: 5, prepared: 0, deferred: 6, inactive: 8 }),
});

/** The stock UISP version the stock world's CRM reports (the NMS Swagger's example UISP). */
export const STOCK_VERSION = '2.4.205';

/** SUBOPS_SIMULATOR_WORLD: `stock` or `interface` (default). Anything else is named, not guessed. */
export function worldFromEnv(env: Record<string, string | undefined> = process.env): SimulatorWorld {
  const value = env.SUBOPS_SIMULATOR_WORLD?.trim() || 'interface';
  if (!(SIMULATOR_WORLDS as readonly string[]).includes(value)) throw new Error(`SUBOPS_SIMULATOR_WORLD must be ${SIMULATOR_WORLDS.join(' or ')} (not ${value})`);
  return value as SimulatorWorld;
}

/** A status number of one world as the other numbers it (statuses only one world names stay as they are). */
export function renumbered(status: number, from: SimulatorWorld, to: SimulatorWorld): number {
  if (from === to) return status;
  const source = WORLD_STATUSES[from];
  const name = (Object.keys(source) as (keyof WorldStatuses)[]).find((key) => source[key] === status);
  return (name && WORLD_STATUSES[to][name]) ?? status;
}
