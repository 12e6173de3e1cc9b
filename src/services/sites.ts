/**
 * Whose NMS site this is: one rule for the activation, the cards, the link watch, late duplicates and the
 * digest. UISP binds a site to a CRM *service* (NMS `ucrm.service`, read with `ucrmDetails=true`; the CRM's
 * `unmsClientSiteId` on the service), and so to that service's client (`ucrm.client`). `description.ucrmId`
 * is the bound service's id on a stock UISP: it says a binding exists, never whose client it is. Until the
 * manual link exists, SubOps' own note line (./activation/markers.ts) is the only other evidence, and it
 * never outranks a binding.
 */
import { markedClientId as noteClientId } from './activation/markers.js';
import type { Service, Site } from './uisp/schemas.js';

export type SiteOwnership =
  /** Bound in UISP. `clientId` null: bound, but this read does not say to whose service. */
  | { by: 'binding'; clientId: number | null; serviceId: number | null }
  /** Not bound; SubOps made it for this client (the manual link is still missing). */
  | { by: 'marker'; clientId: number }
  | null;

const numeric = (id: string | null | undefined): number | null => (id != null && /^\d+$/.test(id) ? Number(id) : null);

/** The CRM client SubOps' note line on the site names, or null. */
export const markedClientId = (site: Site): number | null => noteClientId(site.description?.note);

/** `services`: services already read (a client's), whose `unmsClientSiteId` binds them to a site. */
export function siteOwnership(site: Site, services: readonly Service[] = []): SiteOwnership {
  const byService = services.find((s) => s.unmsClientSiteId === site.id);
  const clientId = numeric(site.ucrm?.client?.id) ?? byService?.clientId ?? null;
  const serviceId = numeric(site.ucrm?.service?.id) ?? byService?.id ?? null;
  if (clientId !== null || serviceId !== null || site.description?.ucrmId != null) return { by: 'binding', clientId, serviceId };
  const marked = markedClientId(site);
  return marked === null ? null : { by: 'marker', clientId: marked };
}

/** The client the site belongs to, as far as UISP (or, before the link, SubOps' note) says; else null. */
export const siteOwnerId = (site: Site, services?: readonly Service[]): number | null => siteOwnership(site, services)?.clientId ?? null;

export const isBound = (site: Site, services?: readonly Service[]): boolean => siteOwnership(site, services)?.by === 'binding';

/** A site SubOps activated (its note line) that nobody has linked in UISP yet. */
export const awaitsLink = (site: Site, services?: readonly Service[]): boolean => siteOwnership(site, services)?.by === 'marker';

/** The client's own sites: those bound to it first, then those SubOps made for it and nobody bound. */
export function ownSites(sites: readonly Site[], clientId: number, services: readonly Service[] = []): Site[] {
  const owned = sites.filter((s) => siteOwnership(s, services)?.clientId === clientId);
  return [...owned.filter((s) => isBound(s, services)), ...owned.filter((s) => !isBound(s, services))];
}
