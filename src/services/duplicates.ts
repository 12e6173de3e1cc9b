/**
 * Late duplicates, found and removed only on a person's word (issue §5). UISP has no conditional write,
 * so a create it applies after its run gave up can leave a client with two SubOps-made Active services,
 * or two SubOps sites, that no run saw; a run that failed midway (or a client POST UISP applied late) can
 * leave a newer SubOps-made namesake of the customer's client with nothing under it, and its site. Whoever
 * meets them (an activation's result, a `/client` card, a UISP event) names them (`find`, the pure
 * ./activation/late-duplicates.ts); nobody removes them on their own. `remove` is what the audit notice's
 * **Remove duplicate** button calls, and `subops duplicates remove` (its request from `requestFor`): it
 * reads both records again, in that call, and removes the late one only when the pure `decideRemoval`
 * says so; otherwise it writes nothing and says why. A person's word (the click, or the CLI's
 * confirmation) is the only way SubOps removes an Active service, or another run's client.
 */
import type { Locks } from './converge.js';
import { lateDuplicates } from './activation/late-duplicates.js';
import { madeBySubOps, markedClientId } from './activation/markers.js';
import { sameName } from './activation/names.js';
import { clientRef } from './activation/planner.js';
import { clientActivation, keptSite, redundantServices } from './activation/keep.js';
import { ownSites, siteOwnership } from './sites.js';
import type { StatusNumbering } from './activation/numbering.js';
import { SHARED_STATUSES } from './activation/service-status.js';
import type { ClientRef, LateDuplicate } from './activation/types.js';
import { clientDisplayName, type CrmClient } from './uisp/crm-client.js';
import { emptyIfNotFound, nullIfNotFound, UispError, UispNotFoundError } from './uisp/errors.js';
import type { NetworkReads } from './network.js';
import type { NmsClient } from './uisp/nms-client.js';
import type { Client, Device, Invoice, Payment, Service, Site } from './uisp/schemas.js';
import { notFoundAsInputError } from './errors.js';

/**
 * What the button asks: remove `duplicateId`, keeping `keptId` (the one the activation reported). For a
 * client, `clientId` and `keptId` both name the client activations use; `duplicateId` its empty namesake.
 */
export type RemovalRequest =
  | { clientId: number; record: 'client'; keptId: number; duplicateId: number }
  | { clientId: number; record: 'service'; keptId: number; duplicateId: number }
  | { clientId: number; record: 'site'; keptId: string; duplicateId: string };

/** A record as the removal read it. */
export interface RecordRef {
  id: number | string;
  name: string | null;
}

/** Why the late record is not removed, with the facts a front end words (src/render/duplicates.ts). Nothing was written. */
export type RemovalRefusal =
  /** The request names the kept record as the duplicate. */
  | { reason: 'same-record' }
  /** The duplicate no longer exists: removed already (by an earlier click, or by a person in UISP). */
  | { reason: 'gone' }
  /** It belongs to another client now (a site whose marker names another client; a service of another client). */
  | { reason: 'other-client'; clientId: number | null }
  /** It no longer carries SubOps' note line: a person changed it, so it is theirs to decide in UISP. */
  | { reason: 'not-subops' }
  /** The kept record (the one the activation reported) is gone: removing the other would leave none. */
  | { reason: 'kept-gone' }
  /** The kept service is no longer Active: removing the other would leave no Active service. */
  | { reason: 'kept-not-active'; status: number; statusLabel: string }
  /** The "duplicate" service (or client) is the older one: activations keep the oldest, so it is not the late one. */
  | { reason: 'not-newer' }
  /** The "duplicate" service is the one activations keep now (the oldest SubOps made; a person's never replaces it). */
  | { reason: 'kept' }
  /**
   * The service was invoiced (`invoiceIds`: the invoices billing it; empty when only its lastInvoicedDate
   * says so); a client: it has invoices (`invoiceIds`).
   */
  | { reason: 'invoiced'; invoiceIds: number[] }
  /** The late client no longer has the kept client's name: someone renamed it, so it is someone's now. */
  | { reason: 'renamed' }
  /** The late client has services (any status): it is not an empty namesake. */
  | { reason: 'has-services'; serviceIds: number[] }
  /** The late client has a payment recorded (`paymentIds`: the newest one read). */
  | { reason: 'has-payments'; paymentIds: number[] }
  /** The site has devices on it. */
  | { reason: 'in-use'; devices: RecordRef[] }
  /** The site is linked in the CRM to a client (this one or another). */
  | { reason: 'linked'; clientId: number | null };

export type RemovalReason = RemovalRefusal['reason'];

export type RemovalDecision = { remove: true } | { remove: false; refusal: RemovalRefusal };

/**
 * What `remove` read, in that call: both records (null: not found) and what tells whether the late one may
 * go. A client: the late one's services, its newest payment (a page of 1) and its invoices. A site: the
 * devices, and `namesake` when its SubOps marker names a client other than the request's (newer than it):
 * that client (null: not found), its services, and the request's client, to compare their names.
 */
export type RemovalReads =
  | { record: 'client'; kept: Client | null; duplicate: Client | null; services: Service[]; payments: Payment[]; invoices: Invoice[] }
  | { record: 'service'; kept: Service | null; duplicate: Service | null; active: Service[]; invoices: Invoice[]; statusLabel: (status: number) => string }
  | { record: 'site'; kept: Site | null; duplicate: Site | null; devices: Device[]; namesake?: NamesakeReads };

/** The client a late site's marker names, when that is not the request's client: what tells a left-out namesake. */
export interface NamesakeReads {
  id: number;
  client: Client | null;
  services: Service[];
  /** The request's client (the one activations use), null when not found. */
  keptClient: Client | null;
}

/** Pure: the removal of one late record of this duplicate (what the notice's button carries, what the CLI asks). */
export function removalRequest(duplicate: LateDuplicate, lateId: number | string): RemovalRequest {
  const clientId = duplicate.client.id;
  switch (duplicate.record) {
    case 'client':
      return { clientId, record: 'client', keptId: clientId, duplicateId: Number(lateId) };
    case 'service':
      return { clientId, record: 'service', keptId: Number(duplicate.kept.id), duplicateId: Number(lateId) };
    case 'site':
      return { clientId, record: 'site', keptId: String(duplicate.kept.id), duplicateId: String(lateId) };
  }
}

const refuse = (refusal: RemovalRefusal): RemovalDecision => ({ remove: false, refusal });

/** Pure: whether the late record may be removed, from what was just read. Refusals come in a fixed order. */
export function decideRemoval(request: RemovalRequest, reads: RemovalReads): RemovalDecision {
  if (String(request.duplicateId) === String(request.keptId)) return refuse({ reason: 'same-record' });
  if (!reads.duplicate) return refuse({ reason: 'gone' });
  switch (reads.record) {
    case 'client':
      return decideClient(reads);
    case 'service':
      return decideService(request.clientId, reads);
    case 'site':
      return decideSite(request.clientId, reads);
  }
}

/**
 * A late client goes only while it is an empty SubOps-made namesake of the kept one: newer, the same name
 * (a rename makes it someone's), no service of any status, no invoice, no payment (deleting a client in
 * UISP takes all of those with it).
 */
function decideClient({ kept, duplicate, services, payments, invoices }: Extract<RemovalReads, { record: 'client' }>): RemovalDecision {
  if (!duplicate) return refuse({ reason: 'gone' });
  if (!madeBySubOps(duplicate.note)) return refuse({ reason: 'not-subops' });
  if (!kept) return refuse({ reason: 'kept-gone' });
  if (duplicate.id <= kept.id) return refuse({ reason: 'not-newer' });
  if (!sameClientName(duplicate, kept)) return refuse({ reason: 'renamed' });
  if (services.length) return refuse({ reason: 'has-services', serviceIds: services.map((s) => s.id) });
  if (invoices.length) return refuse({ reason: 'invoiced', invoiceIds: invoices.map((i) => i.id) });
  if (payments.length) return refuse({ reason: 'has-payments', paymentIds: payments.map((p) => p.id) });
  return { remove: true };
}

/** Namesakes as the activation's lookup tells them: the name a person sees, ignoring case and spacing. */
const sameClientName = (a: Client, b: Client): boolean => sameName(clientDisplayName(a), clientDisplayName(b));

/**
 * A late service goes only while it is a SubOps-made Active service the one rule (./activation/keep.ts)
 * does not keep, beside a kept one that is still Active, and was never invoiced.
 */
function decideService(clientId: number, { kept, duplicate, active, invoices, statusLabel }: Extract<RemovalReads, { record: 'service' }>): RemovalDecision {
  if (!duplicate) return refuse({ reason: 'gone' });
  if (duplicate.clientId !== clientId) return refuse({ reason: 'other-client', clientId: duplicate.clientId });
  if (!madeBySubOps(duplicate.note)) return refuse({ reason: 'not-subops' });
  if (!kept || kept.clientId !== clientId) return refuse({ reason: 'kept-gone' });
  if (kept.status !== SHARED_STATUSES.active) return refuse({ reason: 'kept-not-active', status: kept.status, statusLabel: statusLabel(kept.status) });
  if (duplicate.id < kept.id) return refuse({ reason: 'not-newer' });
  if (!redundantServices(active).some((s) => s.id === duplicate.id)) return refuse({ reason: 'kept' });
  const billing = invoices.filter((invoice) => invoice.items.some((item) => item.serviceId === duplicate.id)).map((invoice) => invoice.id);
  if (billing.length || duplicate.lastInvoicedDate) return refuse({ reason: 'invoiced', invoiceIds: billing });
  return { remove: true };
}

function decideSite(clientId: number, { kept, duplicate, devices, namesake }: Extract<RemovalReads, { record: 'site' }>): RemovalDecision {
  if (!duplicate) return refuse({ reason: 'gone' });
  const note = duplicate.description?.note;
  if (!madeBySubOps(note)) return refuse({ reason: 'not-subops' });
  const bound = boundClientId(duplicate);
  if (bound !== undefined) return refuse({ reason: 'linked', clientId: bound });
  const marked = markedClientId(note);
  if (marked !== clientId && !(marked !== null && isLeftOutNamesake(clientId, marked, namesake))) return refuse({ reason: 'other-client', clientId: marked });
  if (!kept) return refuse({ reason: 'kept-gone' });
  const on = devices.filter((d) => d.identification.site?.id === duplicate.id);
  if (on.length) return refuse({ reason: 'in-use', devices: on.map((d) => ({ id: d.identification.id, name: d.identification.name ?? d.identification.hostname })) });
  return { remove: true };
}

/**
 * Whether the client `marked` (a late site's marker names it) is one the activation's lookup leaves out as
 * a namesake of `clientId` (planner's `withoutSettling`): newer, SubOps-made, no service, the same name as
 * the kept client. Or it no longer exists (removed by its own Remove duplicate, or by a person): its site
 * is an orphan. Anything else (a service, a rename, its marker gone) makes it someone's, and its site too.
 */
function isLeftOutNamesake(clientId: number, marked: number, namesake: NamesakeReads | undefined): boolean {
  if (!namesake || namesake.id !== marked || marked <= clientId) return false;
  const { client, services, keptClient } = namesake;
  if (!client) return true;
  return madeBySubOps(client.note) && services.length === 0 && keptClient !== null && sameClientName(client, keptClient);
}

/** The CRM client a site is linked to (null: linked, to whom this read does not say), or undefined when it is not linked. */
function boundClientId(site: Site): number | null | undefined {
  const ownership = siteOwnership(site);
  return ownership?.by === 'binding' ? ownership.clientId : undefined;
}

/**
 * Pure: the client's late duplicates among records already read (Active services; own sites, the kept one
 * in use). `madeWith`: the activation that made the client (./activation/keep.ts, `clientActivation`).
 */
export function duplicatesOf(client: ClientRef, madeWith: string | null, services: Service[], sites: Site[], devices: Device[]): LateDuplicate[] {
  const own = ownSites(sites, client.id, services);
  const active = services.filter((s) => s.status === SHARED_STATUSES.active);
  const kept = keptSite(own, { devices, services, madeWith });
  return lateDuplicates(client, active, own, kept ? { id: kept.id, name: kept.identification.name } : null);
}

export type RemovalOutcome =
  | { kind: 'removed'; request: RemovalRequest; duplicate: RecordRef; kept: RecordRef }
  | { kind: 'refused'; request: RemovalRequest; refusal: RemovalRefusal; duplicate: RecordRef | null; kept: RecordRef | null }
  /**
   * UISP did not remove it (`detail`: its answer). `mayHaveApplied`: the DELETE got no answer and the
   * record could not be read again, so it may or may not be gone; otherwise it is still there.
   */
  | { kind: 'failed'; request: RemovalRequest; detail: string; mayHaveApplied: boolean; duplicate: RecordRef; kept: RecordRef };

export interface DuplicateDeps {
  crm: CrmClient;
  nms: NmsClient;
  /** The NMS questions narrowed to the records asked for (./network.ts). */
  network: NetworkReads;
  numbering: StatusNumbering;
  /** This process's locks on resolved ids (the activation's): a removal and an activation of one client take turns. */
  locks: Locks;
}

const serviceRef = (s: Service): RecordRef => ({ id: s.id, name: s.name });
const siteRef = (s: Site): RecordRef => ({ id: s.id, name: s.identification.name });
const clientRecordRef = (c: Client): RecordRef => ({ id: c.id, name: clientDisplayName(c) });

export class DuplicateService {
  constructor(private readonly deps: DuplicateDeps) {}

  /**
   * Reads the client and its services, then the sites it may own (those its services are bound to and
   * those not bound: ./network.ts `clientSites`), then, when it owns several, the devices on them (which
   * one is kept depends on them): the client's late duplicates now, at a cost of its own records.
   */
  async find(clientId: number): Promise<LateDuplicate[]> {
    const { crm } = this.deps;
    const network = this.deps.network.oneRead();
    const [client, services] = await Promise.all([crm.getClient(clientId), crm.listServices(clientId)]);
    const sites = await network.clientSites(services);
    const own = ownSites(sites, clientId, services);
    const devices = own.length > 1 ? await network.devicesOn(own.map((s) => s.id)) : [];
    return duplicatesOf(clientRef(client), clientActivation(client), services, sites, devices);
  }

  /**
   * A removal asked for by naming the late record (the CLI): the request the notice's button would carry.
   * A namesake client is asked as named (the client activations use is the one kept); a service or site
   * keeps the record `find` names beside it now, and is null when UISP shows no late duplicate of that
   * kind for the client. `remove` then reads both again and decides, as for a click.
   */
  async requestFor(clientId: number, record: RemovalRequest['record'], lateId: number | string): Promise<RemovalRequest | null> {
    if (record === 'client') return { clientId, record, keptId: clientId, duplicateId: Number(lateId) };
    const found = await notFoundAsInputError(this.find(clientId), 'client', `No CRM client #${clientId}.`);
    const duplicate = found.find((d) => d.record === record);
    return duplicate ? removalRequest(duplicate, lateId) : null;
  }

  /**
   * Reads both records again and removes the late one only if `decideRemoval` allows it; otherwise writes
   * nothing. Read failures are thrown (nothing was written); a failed DELETE is read again to tell.
   */
  async remove(request: RemovalRequest): Promise<RemovalOutcome> {
    // A client's removal holds the late one too: nothing else of SubOps' writes under it meanwhile.
    const lock = await this.deps.locks.acquire([`client:${request.clientId}`, ...(request.record === 'client' ? [`client:${request.keptId}`, `client:${request.duplicateId}`] : [])]);
    try {
      // The hold is checked before the reads that decide the DELETE, so no store query lies between them.
      await lock.confirm();
      switch (request.record) {
        case 'client':
          return await this.removeClient(request);
        case 'service':
          return await this.removeService(request);
        case 'site':
          return await this.removeSite(request);
      }
    } finally {
      lock.release();
    }
  }

  private async removeService(request: Extract<RemovalRequest, { record: 'service' }>): Promise<RemovalOutcome> {
    const { crm, numbering } = this.deps;
    // Both read at once; the invoices count only while the service exists (a failure to read them then stops the removal).
    const invoicesRead = crm.listInvoices(request.clientId);
    invoicesRead.catch(() => undefined);
    const services = await this.services(request.clientId);
    const byId = (id: number) => services.find((s) => s.id === id) ?? null;
    const kept = byId(request.keptId);
    const duplicate = byId(request.duplicateId);
    const invoices = duplicate ? await invoicesRead : [];
    const active = services.filter((s) => s.status === SHARED_STATUSES.active);
    const decision = decideRemoval(request, { record: 'service', kept, duplicate, active, invoices, statusLabel: (status) => numbering.label(status) });
    const refs = { duplicate: duplicate && serviceRef(duplicate), kept: kept && serviceRef(kept) };
    if (!decision.remove) return { kind: 'refused', request, refusal: decision.refusal, ...refs };
    return this.write(request, { duplicate: refs.duplicate!, kept: refs.kept! }, () => crm.deleteService(request.duplicateId), async () =>
      (await this.services(request.clientId)).some((s) => s.id === request.duplicateId),
    );
  }

  /**
   * Reads both clients again; while the late one exists, its services, its newest payment and its invoices
   * (three reads at once). DELETE /clients/{id} takes a client's services, payments and invoices with it, so
   * it goes only when it has none.
   */
  private async removeClient(request: Extract<RemovalRequest, { record: 'client' }>): Promise<RemovalOutcome> {
    const { crm } = this.deps;
    const [kept, duplicate] = await Promise.all([this.client(request.keptId), this.client(request.duplicateId)]);
    const [services, payments, invoices] = duplicate ? await Promise.all([this.services(duplicate.id), this.newestPayment(duplicate.id), crm.listInvoices(duplicate.id)]) : [[], [], []];
    const decision = decideRemoval(request, { record: 'client', kept, duplicate, services, payments, invoices });
    const refs = { duplicate: duplicate && clientRecordRef(duplicate), kept: kept && clientRecordRef(kept) };
    if (!decision.remove) return { kind: 'refused', request, refusal: decision.refusal, ...refs };
    return this.write(request, { duplicate: refs.duplicate!, kept: refs.kept! }, () => crm.deleteClient(request.duplicateId), async () => (await this.client(request.duplicateId)) !== null);
  }

  /**
   * Reads both sites by id and the devices on the late one, fresh for this attempt: all that
   * `decideSite` checks (its marker, its binding, its devices; the kept one's existence).
   */
  private async removeSite(request: Extract<RemovalRequest, { record: 'site' }>): Promise<RemovalOutcome> {
    const { nms, network } = this.deps;
    const [sites, devices] = await Promise.all([network.sitesById([request.keptId, request.duplicateId]), network.devicesOn([request.duplicateId])]);
    const byId = (id: string) => sites.find((s) => s.id === id) ?? null;
    const kept = byId(request.keptId);
    const duplicate = byId(request.duplicateId);
    // A site made for a newer client than this one: that client is read (a left-out namesake's site may go).
    const marked = duplicate && markedClientId(duplicate.description?.note);
    const namesake = marked != null && marked > request.clientId ? await this.namesake(marked, request.clientId) : undefined;
    const decision = decideRemoval(request, { record: 'site', kept, duplicate, devices, ...(namesake && { namesake }) });
    const refs = { duplicate: duplicate && siteRef(duplicate), kept: kept && siteRef(kept) };
    if (!decision.remove) return { kind: 'refused', request, refusal: decision.refusal, ...refs };
    return this.write(request, { duplicate: refs.duplicate!, kept: refs.kept! }, () => nms.deleteSite(request.duplicateId), async () =>
      (await network.sitesById([request.duplicateId])).some((s) => s.id === request.duplicateId),
    );
  }

  /** The client a late site's marker names, its services, and the client activations use. */
  private async namesake(id: number, keptClientId: number): Promise<NamesakeReads> {
    const [client, services, keptClient] = await Promise.all([this.client(id), this.services(id), this.client(keptClientId)]);
    return { id, client, services, keptClient };
  }

  /** The client, or null when the CRM no longer has it. */
  private client(id: number): Promise<Client | null> {
    return this.deps.crm.getClient(id).catch(nullIfNotFound);
  }

  /** The client's newest payment, if any: one page of 1. */
  private async newestPayment(clientId: number): Promise<Payment[]> {
    for await (const payment of this.deps.crm.payments({ clientId }, 1)) return [payment];
    return [];
  }

  /** A client the CRM no longer has has no services: every record of it is gone. */
  private services(clientId: number): Promise<Service[]> {
    return this.deps.crm.listServices(clientId).catch(emptyIfNotFound);
  }

  private async write(request: RemovalRequest, refs: { duplicate: RecordRef; kept: RecordRef }, remove: () => Promise<void>, stillThere: () => Promise<boolean>): Promise<RemovalOutcome> {
    try {
      await remove();
      return { kind: 'removed', request, ...refs };
    } catch (error) {
      if (!(error instanceof UispError)) throw error;
      // Gone between the read and the DELETE: someone else removed it, not this click.
      if (error instanceof UispNotFoundError) return { kind: 'refused', request, refusal: { reason: 'gone' }, ...refs };
      let there: boolean | null = null;
      try {
        there = await stillThere();
      } catch {
        // Unknown: said below.
      }
      // The DELETE landed though its answer was lost.
      if (there === false) return { kind: 'removed', request, ...refs };
      return { kind: 'failed', request, detail: error.message, mayHaveApplied: there === null && error.mayHaveApplied, ...refs };
    }
  }
}
