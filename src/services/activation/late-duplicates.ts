/**
 * Late duplicates: UISP has no conditional write, so a create it applies after its run gave up can
 * leave a second Active service, or a second site, that no run saw. Whoever meets one (an activation, a
 * `/client` card, a UISP event) names it; nobody removes it on their own (only a person's click does,
 * ../duplicates.ts). Pure: from records already read.
 */
import type { Service, Site } from '../uisp/schemas.js';
import { madeBySubOps } from './markers.js';
import type { ClientRef, LateDuplicate } from './types.js';

/**
 * SubOps-made records besides the kept one: `active` the client's Active services (the oldest is kept,
 * as every activation keeps it), `sites` the client's own sites and `keptSiteId` the one in use.
 */
export function lateDuplicates(client: ClientRef, active: Service[], sites: Site[], keptSiteId: string | null): LateDuplicate[] {
  const found: LateDuplicate[] = [];
  const services = [...active].sort((a, b) => a.id - b.id);
  const keptService = services[0];
  const extraServices = services.slice(1).filter((s) => madeBySubOps(s.note));
  if (keptService && extraServices.length) {
    found.push({ record: 'service', client, kept: { id: keptService.id, name: keptService.name }, others: extraServices.map((s) => ({ id: s.id, name: s.name })) });
  }
  const keptSite = sites.find((s) => s.id === keptSiteId);
  const extraSites = sites.filter((s) => s !== keptSite && madeBySubOps(s.description?.note));
  if (keptSite && extraSites.length) {
    found.push({ record: 'site', client, kept: { id: keptSite.id, name: keptSite.identification.name }, others: extraSites.map((s) => ({ id: s.id, name: s.identification.name })) });
  }
  return found;
}
