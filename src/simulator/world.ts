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

/**
 * The list filters of the official API (NMS Swagger, CRM Blueprint) the simulator honours. A filter a
 * world does not honour is what a UISP without it does: a query parameter is ignored (the whole list
 * comes back), a path answers 404. SubOps must tell both apart from an honoured filter and fall back.
 * - `devices.mac`: `GET /devices/mac/{mac}` ({id, type, series} of the device with that MAC, any state).
 * - `devices.siteId`: `GET /devices?siteId=` (the authorized devices on that site).
 * - `sites.id`: `GET /sites?id=&id=` (those sites). `sites.ip`: `GET /sites?ip=` (sites with a device of
 *   that IP, prefix ignored). `sites.deviceId`: `GET /sites?deviceId=`. `sites.type`: `GET /sites?type=`
 *   (`client` and `subscriber` mean endpoint). `sites.ucrm`: `GET /sites?ucrm=true|false` (bound to the
 *   CRM or not). All combine (every one given must hold) and with `ucrmDetails`.
 * - `sites.search`: `GET /sites/search?query=&count=&page=` (name, address, or a device's MAC or IP on
 *   the site; `type`, `ucrm` too). `sites.clients`: `GET /sites/{id}/clients?recursive=` (endpoint ids).
 * - `outages`: `GET /outages` (./outages.ts; `inProgress`, `siteId`, `deviceId`, `grouped`, `start`,
 *   `period`, `count`/`page`). The interface document lists no outages, so its world answers 404 there:
 *   SubOps says outages are unavailable. A test plays a UISP that has it with `honourFilters`.
 * - `clients.query`, `clients.paging` (`limit`/`offset`), `services.clientId`
 *   (`GET /clients/services?clientId=`): the CRM's, honoured in both worlds as they always were.
 * The interface document names none of the NMS filters (its NMS lists everything), so its world honours
 * none of them: there the NMS answers every list in full and those paths with 404.
 */
export type SimulatorFilter =
  | 'devices.mac'
  | 'devices.siteId'
  | 'sites.id'
  | 'sites.ip'
  | 'sites.deviceId'
  | 'sites.type'
  | 'sites.ucrm'
  | 'sites.search'
  | 'sites.clients'
  | 'outages'
  | 'clients.query'
  | 'clients.paging'
  | 'services.clientId';

const CRM_FILTERS: readonly SimulatorFilter[] = ['clients.query', 'clients.paging', 'services.clientId'];

export const WORLD_FILTERS: Readonly<Record<SimulatorWorld, readonly SimulatorFilter[]>> = Object.freeze({
  interface: CRM_FILTERS,
  stock: [...CRM_FILTERS, 'devices.mac', 'devices.siteId', 'sites.id', 'sites.ip', 'sites.deviceId', 'sites.type', 'sites.ucrm', 'sites.search', 'sites.clients', 'outages'],
});
