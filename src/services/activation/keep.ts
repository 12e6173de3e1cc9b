/**
 * Which record every run keeps when several were made for one thing: one rule per kind, used by the
 * planner, the writes' read-backs, the late-duplicate notices and Remove duplicate alike, so that no
 * reader, in any process, whatever order answers arrive in, picks another one.
 *
 * - Only records SubOps made (its documented note line, ./markers.ts) compete. A record a person made is
 *   never kept instead of SubOps', never removed, and never named as a late duplicate: staff turning an
 *   old service Active, or linking a site, while a run is in flight changes nothing of the outcome.
 * - Among SubOps' records the rule reads only what does not change once a run reported one: CRM ids
 *   (in creation order), and for NMS sites (random ids) a device on it or a CRM binding, neither of which
 *   a run takes away (a device is never moved off a reported site, NMS refuses to remove a site in use).
 */
import { isBound, ownSites } from '../sites.js';
import type { Client, Device, Service, Site } from '../uisp/schemas.js';
import { madeBySubOps, markerOf } from './markers.js';

const byId = <T extends { id: number }>(a: T, b: T) => a.id - b.id;

/** The oldest of the records SubOps made, or undefined when it made none of them. */
function oldestMadeBySubOps<T extends { id: number; note?: string | null }>(records: readonly T[]): T | undefined {
  return records.filter((r) => madeBySubOps(r.note)).sort(byId)[0];
}

/**
 * The Active service every run keeps among a client's Active services of one kind: the oldest SubOps
 * made; when SubOps made none, the oldest (a person's service is reused, never competed with).
 */
export function keptService(active: readonly Service[]): Service | undefined {
  return oldestMadeBySubOps(active) ?? [...active].sort(byId)[0];
}

/** The SubOps-made Active services the kept one makes redundant (late duplicates, or a run's own to remove). */
export function redundantServices(active: readonly Service[]): Service[] {
  const kept = keptService(active);
  return active.filter((s) => s !== kept && madeBySubOps(s.note)).sort(byId);
}

/** The client every run keeps among SubOps-made namesakes (CRM ids are in creation order). */
export const keptClient = (namesakes: readonly Client[]): Client | undefined => oldestMadeBySubOps(namesakes);

/** The activation that made the client (its SubOps note line), or null: a person's client, or an older note. */
export const clientActivation = (client: { note?: string | null } | null | undefined): string | null => markerOf(client?.note)?.activationId ?? null;

/** What decides among a client's sites besides the sites themselves. */
export interface SiteFacts {
  /** The authorized devices: a site one of them is on is in use. */
  devices: readonly Device[];
  /** The client's services: one whose `unmsClientSiteId` names a site binds it. */
  services?: readonly Service[];
  /** The activation that made the client (`clientActivation`). */
  madeWith?: string | null;
}

/**
 * Which of a client's sites every run keeps (NMS site ids are random, so there is no oldest): one bound
 * in the CRM, else one in use (a device authorized on it), else the one made by the activation that made
 * the client, else the lowest id. A site in use is never given up for another, so a device is never moved
 * off a site a run reported. The client's own activation settles a new customer's race whatever each run
 * has seen: the run that made the client made its site first, and every run, seeing it or not yet the
 * other runs' sites, keeps that one.
 */
export function keptSite(own: readonly Site[], { devices, services = [], madeWith = null }: SiteFacts): Site | undefined {
  const inUse = sitesInUse(devices);
  const sorted = [...own].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const withClient = madeWith === null ? undefined : sorted.find((s) => markerOf(s.description?.note)?.activationId === madeWith);
  return own.find((s) => isBound(s, services)) ?? sorted.find((s) => inUse.has(s.id)) ?? withClient ?? sorted[0];
}

/** The client's sites that compete when several were made for it: those SubOps made (a person's never does). */
export const competingSites = (sites: readonly Site[], clientId: number): Site[] => ownSites(sites, clientId).filter((s) => madeBySubOps(s.description?.note));

/** The sites a device is authorized on. */
export function sitesInUse(devices: readonly Device[]): Set<string> {
  return new Set(devices.filter((d) => d.identification.authorized && d.identification.site?.id).map((d) => d.identification.site!.id));
}
