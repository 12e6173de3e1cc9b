/**
 * Late duplicates: UISP has no conditional write, so a create it applies after its run gave up can
 * leave a second Active service, or a second site, that no run saw; a run that fails midway can leave a
 * client of its own that another run's older one made redundant, and its site. Whoever meets one (an
 * activation, a `/client` card, a UISP event) names it; nobody removes it on their own (only a person's
 * click does, ../duplicates.ts). Pure: from records already read.
 */
import { clientDisplayName } from '../uisp/crm-client.js';
import type { Client, Service, Site } from '../uisp/schemas.js';
import { madeBySubOps, markedClientId } from './markers.js';
import type { ClientRef, LateDuplicate } from './types.js';

/**
 * SubOps-made records besides the kept one: `active` the client's Active services (the oldest is kept,
 * as every activation keeps it), `sites` the client's own sites and `keptSiteId` the one in use.
 * `settling`: the client's namesakes the lookup left out (SubOps-made, newer, nothing under them:
 * planner's `withoutSettling`) and every NMS site, so theirs are named too.
 */
export function lateDuplicates(client: ClientRef, active: Service[], sites: Site[], keptSiteId: string | null, settling?: { clients: Client[]; sites: Site[] }): LateDuplicate[] {
  const found: LateDuplicate[] = [];
  const leftClients = settling?.clients ?? [];
  if (leftClients.length) found.push({ record: 'client', client, kept: { id: client.id, name: client.name }, others: leftClients.map((c) => ({ id: c.id, name: clientDisplayName(c) })) });
  const leftIds = new Set(leftClients.map((c) => c.id));
  const leftSites = (settling?.sites ?? []).filter((s) => leftIds.has(markedClientId(s.description?.note) ?? -1));
  const services = [...active].sort((a, b) => a.id - b.id);
  const keptService = services[0];
  const extraServices = services.slice(1).filter((s) => madeBySubOps(s.note));
  if (keptService && extraServices.length) {
    found.push({ record: 'service', client, kept: { id: keptService.id, name: keptService.name }, others: extraServices.map((s) => ({ id: s.id, name: s.name })) });
  }
  const keptSite = sites.find((s) => s.id === keptSiteId);
  const extraSites = [...sites.filter((s) => s !== keptSite && madeBySubOps(s.description?.note)), ...leftSites];
  if (keptSite && extraSites.length) {
    found.push({ record: 'site', client, kept: { id: keptSite.id, name: keptSite.identification.name }, others: extraSites.map((s) => ({ id: s.id, name: s.identification.name })) });
  }
  return found;
}
