/**
 * Late duplicates: UISP has no conditional write, so a create it applies after its run gave up can
 * leave a second Active service, or a second site, that no run saw; a run that fails midway can leave a
 * client of its own that another run's older one made redundant, and its site. Whoever meets one (an
 * activation, a `/client` card, a UISP event) names it; nobody removes it on their own (only a person's
 * click does, ../duplicates.ts). Pure: from records already read.
 */
import { clientDisplayName } from '../uisp/crm-client.js';
import type { Client, Service, Site } from '../uisp/schemas.js';
import { keptService, redundantServices } from './keep.js';
import { madeBySubOps, markedClientId } from './markers.js';
import type { ClientRef, LateDuplicate, SiteRef } from './types.js';

/**
 * SubOps-made records besides the kept one: `active` the client's Active services (the one
 * ./keep.ts keeps, as every activation keeps it; a person's service is never named), `sites` the
 * client's own sites and `keptSite` the one in use (reported).
 * `settling`: the client's namesakes the lookup left out (SubOps-made, newer, nothing under them:
 * planner's `withoutSettling`) and every NMS site, so theirs are named too.
 */
export function lateDuplicates(client: ClientRef, active: Service[], sites: Site[], keptSite: SiteRef | null, settling?: { clients: Client[]; sites: Site[] }): LateDuplicate[] {
  const found: LateDuplicate[] = [];
  const leftClients = settling?.clients ?? [];
  if (leftClients.length) found.push({ record: 'client', client, kept: { id: client.id, name: client.name }, others: leftClients.map((c) => ({ id: c.id, name: clientDisplayName(c) })) });
  const leftIds = new Set(leftClients.map((c) => c.id));
  const leftSites = (settling?.sites ?? []).filter((s) => leftIds.has(markedClientId(s.description?.note) ?? -1));
  const kept = keptService(active);
  const extraServices = redundantServices(active);
  if (kept && extraServices.length) {
    found.push({ record: 'service', client, kept: { id: kept.id, name: kept.name }, others: extraServices.map((s) => ({ id: s.id, name: s.name })) });
  }
  const extraSites = [...sites.filter((s) => s.id !== keptSite?.id && madeBySubOps(s.description?.note)), ...leftSites];
  if (keptSite && extraSites.length) {
    found.push({ record: 'site', client, kept: { id: keptSite.id, name: keptSite.name }, others: extraSites.map((s) => ({ id: s.id, name: s.identification.name })) });
  }
  return found;
}
