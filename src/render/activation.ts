/**
 * The activation in words, the same for the terminal, `--json` and Slack (each front end adds its own
 * marks and escaping). The services send facts — step events, the result, what was and was not done,
 * why it stopped — and every sentence about them is chosen here, once.
 */
import type {
  ActivationPlan,
  ActivationRefusal,
  ActivationResult,
  ActivationStop,
  ClientCandidate,
  ClientRef,
  ConfirmationChange,
  DeviceMove,
  DeviceQuery,
  DeviceRef,
  DoneEntry,
  LateDuplicate,
  PendingEntry,
  ServiceRef,
  SiteOwner,
  SiteRef,
  StepEvent,
} from '../services/activation/types.js';
import { formatMoney } from '../services/money.js';
import { leaseLostSentence } from './lease.js';

const BY_ANOTHER_RUN = 'created by another activation of the same customer';
const NOTHING_CHANGED = 'Nothing was changed.';
const UNCONFIRMED = '; not yet confirmed as the only one (a re-run checks)';

const named = (service: ServiceRef) => (service.name ? ` (${service.name})` : '');
const recordId = (id: number | string) => (typeof id === 'number' ? `#${id}` : id);
const afterDeleting = (deleted: number[]) => (deleted.length ? ` after deleting ${deleted.map((id) => `#${id}`).join(', ')}` : '');
const ids = (records: { id: number }[]) => records.map((r) => `#${r.id}`).join(', ');

// ---------- names of things ----------

/** "IP 10.20.1.88", "MAC 78:8a:20:4c:1e:51", "name "cpe-ada"". */
export function describeQuery(query: DeviceQuery): string {
  return query.kind === 'ip' ? `IP ${query.ip}` : query.kind === 'mac' ? `MAC ${query.mac.match(/../g)!.join(':')}` : `name "${query.name}"`;
}

/** "site "Leon Hope" (client #1007 Leon Hope)": how a move is named in messages, results and the audit. */
export function describeMove(move: DeviceMove): string {
  return `"${move.site.name}" (${describeOwner(move.client)})`;
}

export function describeOwner(owner: SiteOwner): string {
  if (owner.id === null) return 'client unknown';
  return owner.name ? `client #${owner.id} ${owner.name}` : `client #${owner.id}`;
}

/** "#1008 Kevin Singh (kevin.singh@example.com, +592 677 1208, 19 Parika Backdam, Parika)". */
export function describeCandidate(c: ClientCandidate): string {
  const details = [c.email, c.phone, c.address].filter(Boolean);
  return `#${c.id} ${c.name}${details.length ? ` (${details.join(', ')})` : ''}`;
}

/**
 * What a plan needs confirmed, as the confirmation question names it: "delete Quoted service #102",
 * "move cpe-hope off site "Leon Hope" (client #1007 Leon Hope)"; [] for a plan that neither deletes nor moves.
 */
export function confirmationParts(plan: ActivationPlan): string[] {
  const deletes = plan.service.action === 'create' ? plan.service.delete : [];
  return [...(deletes.length ? [`delete ${deletes.map((s) => `${s.statusLabel} service #${s.id}`).join(', ')}`] : []), ...(plan.move ? [`move ${plan.device.name} off site ${describeMove(plan.move)}`] : [])];
}

/** "NS-Fraser (10.20.1.51, 00:11:22:33:44:55, discovered)": one of several devices a query matched. */
export function describeDeviceMatch(d: DeviceRef): string {
  return `${d.name} (${[d.ip, d.mac, d.list].filter(Boolean).join(', ')})`;
}

// ---------- sentences shared by step events and the result's lists ----------

const createdClient = (client: ClientRef) => `Created client #${client.id} ${client.name}`;
const createdSite = (name: string) => `Created NMS site "${name}"`;
const authorized = (device: DeviceRef, site: SiteRef) => `Authorized ${device.name} onto site "${site.name}"`;
/** The device is on the target site already (a plan's skipped authorization, or the run's). */
export function alreadyOnSite(device: DeviceRef, site: SiteRef): string {
  return `${device.name} is already authorized on site "${site.name}"`;
}

function createdService(created: { service: ServiceRef; price: number; currency: string | null; activeFrom: string; deleted: number[] }): string {
  const { service } = created;
  return `Created ${service.statusLabel} service #${service.id}${named(service)}: ${formatMoney(created.price, created.currency)}/month from ${created.activeFrom}${afterDeleting(created.deleted)}`;
}

// ---------- step events ----------

/** One sentence for a step event, e.g. "Created client #1042 Ada Lovelace". */
export function stepSentence(event: StepEvent): string {
  if (event.status === 'failed') {
    return errorSentence(event.error, event.afterWrites);
  }
  switch (event.step) {
    case 'discover': {
      const { device } = event;
      return `Found ${device.name} (${[device.ip, device.mac].filter(Boolean).join(', ')}) in the ${device.list} devices list`;
    }
    case 'client': {
      if (event.status === 'planned') return event.plan.action === 'reuse' ? `Would reuse client #${event.plan.client.id} ${event.plan.client.name}` : `Would create client ${event.plan.firstName} ${event.plan.lastName}`;
      const { client } = event;
      if (event.kind === 'created') return createdClient(client);
      return `Reusing client #${client.id} ${client.name}${event.kind === 'created-concurrently' ? `, ${BY_ANOTHER_RUN}` : ''}`;
    }
    case 'service': {
      if (event.status === 'planned') {
        const { plan } = event;
        if (plan.action === 'reuse') return `Would reuse Active service #${plan.service.id} (already activated)`;
        const deletions = plan.delete.map((s) => `delete ${s.statusLabel} service #${s.id}, then `).join('');
        const leftAlone = plan.leftAlone.length ? `; ${leftAloneSentence(plan.leftAlone)}` : '';
        return `Would ${deletions}create an Active service (plan period ${plan.servicePlanPeriodId}, ${formatMoney(plan.price)}/month from ${plan.activeFrom})${leftAlone}`;
      }
      if (event.status === 'done') return createdService(event);
      const { service } = event;
      if (event.kind === 'already-active') return `Already activated: service #${service.id}${named(service)} is Active`;
      return `Reusing Active service #${service.id}${named(service)}, ${BY_ANOTHER_RUN}${afterDeleting(event.deleted ?? [])}`;
    }
    case 'site': {
      if (event.status === 'planned') return event.plan.action === 'reuse' ? `Would reuse NMS site "${event.plan.site.name}"` : `Would create NMS site "${event.plan.name}"`;
      const { site } = event;
      if (event.kind === 'created') return createdSite(site.name);
      return `Reusing NMS site "${site.name}"${event.kind === 'created-concurrently' ? `, ${BY_ANOTHER_RUN}` : ''}`;
    }
    case 'authorize': {
      const { device } = event;
      if (event.status === 'planned') {
        if (event.authorize.action === 'skip') return alreadyOnSite(device, event.authorize.site);
        return event.move ? `Would move ${device.name} from site ${describeMove(event.move)} onto that site (only when confirmed)` : `Would authorize ${device.name} onto that site`;
      }
      return event.status === 'done' ? authorized(device, event.site) : alreadyOnSite(device, event.site);
    }
    case 'manual-link': {
      const { client, site, device } = event;
      return `Manual step: in the CRM web interface, link client #${client.id} ${client.name} (${event.crmClientUrl}) to NMS site "${site.name}" and device ${device.name}. SubOps does not perform this link.`;
    }
  }
}

// ---------- why it stopped ----------

function refusalSentence(refusal: ActivationRefusal): string {
  switch (refusal.code) {
    case 'device-not-found':
      return `Device not found: no device with ${describeQuery(refusal.query)} in the authorized or discovered lists. ${NOTHING_CHANGED}`;
    case 'device-ambiguous':
      return `${refusal.devices.length} devices match ${describeQuery(refusal.query)}: ${refusal.devices.map(describeDeviceMatch).join('; ')}. Use the IP or MAC address. ${NOTHING_CHANGED}`;
    case 'device-role-unknown':
      return `${refusal.device.name}${onSite(refusal.site)} has no role in NMS, so nothing shows it is a subscriber station: check the device in UISP. SubOps activates subscriber stations only. ${NOTHING_CHANGED}`;
    case 'device-infrastructure':
      return `${refusal.device.name} is network infrastructure (role ${refusal.role})${onSite(refusal.site)}, not a subscriber station: SubOps never activates or moves it. ${NOTHING_CHANGED}`;
    case 'client-not-found':
      return `No CRM client #${refusal.clientId}. Check the id, or leave it empty to find or create the client by name.`;
    case 'client-name-mismatch':
      return `CRM client #${refusal.clientId} is ${refusal.crmName}, not ${refusal.typedName}. Check the id, or type the name the CRM has. ${NOTHING_CHANGED}`;
    case 'client-archived': {
      const which = refusal.candidates.length === 1 ? 'The CRM has this client archived' : 'The CRM has these clients archived';
      return `${which}: ${refusal.candidates.map(describeCandidate).join('; ')}. Restore the client in the CRM and run again; SubOps does not create a duplicate. ${NOTHING_CHANGED}`;
    }
    case 'client-ambiguous':
      return `Several CRM clients are named ${refusal.typedName}: ${refusal.candidates.map(describeCandidate).join('; ')}. Give the client id.`;
    case 'service-suspended':
      return `Client #${refusal.client.id} ${refusal.client.name} has suspended service ${ids(refusal.services)}: lift the suspension (/unsuspend) instead of activating again. ${NOTHING_CHANGED}`;
    case 'parent-site-not-found':
      return `NMS_PARENT_SITE_ID ${refusal.parentSiteId} is not an NMS site; fix the setting. ${NOTHING_CHANGED}`;
    case 'service-plan-unknown':
      return `SERVICE_PLAN_PERIOD_ID ${refusal.servicePlanPeriodId} is no period of the CRM's service plans; fix the setting. ${NOTHING_CHANGED}`;
    case 'service-status-unknown': {
      const services = refusal.services.map((s) => `${s.statusLabel} service #${s.id}`).join(', ');
      const why = refusal.numbering
        ? `the ${refusal.numbering} status numbering in effect does not name it, so it may not be the numbering this UISP uses (${refusal.why})`
        : `SubOps cannot tell which status numbering this UISP uses, so it cannot tell a Quoted service from a Deferred one (${refusal.why})`;
      return `Client #${refusal.client.id} ${refusal.client.name} has ${services}: ${why}. SubOps deletes nothing it cannot name; check SERVICE_STATUS_NUMBERING (subops config check shows the numbering). ${NOTHING_CHANGED}`;
    }
  }
}

const onSite = (site: SiteRef | null) => (site ? ` on site "${site.name}"` : '');

/**
 * Why an activation stopped (a refusal, a deletion or move not confirmed, UISP), e.g. for a form's field
 * or a failed step. `afterWrites`: the run had already written, so "Nothing was changed." would be false.
 */
export function errorSentence(error: ActivationStop, afterWrites = false): string {
  const sentence = stopSentence(error);
  return afterWrites ? sentence.replace(` ${NOTHING_CHANGED}`, '') : sentence;
}

function stopSentence(error: ActivationStop): string {
  switch (error.code) {
    case 'device-in-use':
      return `${error.device.name} is authorized on site ${describeMove(error.move)}, which is not this client's site: moving it needs your explicit confirmation. ${NOTHING_CHANGED}`;
    case 'delete-unconfirmed': {
      const services = error.services.map((s) => `${s.statusLabel} service #${s.id}`).join(', ');
      const of = error.client ? ` of client #${error.client.id} ${error.client.name}` : '';
      return `This activation deletes ${services}${of} before creating the Active one: deleting needs your explicit confirmation. ${NOTHING_CHANGED}`;
    }
    case 'service-changed':
      return `Service #${error.confirmed.id} of client #${error.client.id} ${error.client.name} was ${error.confirmed.statusLabel} when the deletion was confirmed and is ${error.now.statusLabel} now: it was not deleted, and no service was created. Check the CRM, then run the activation again`;
    case 'uisp-error': {
      if (error.problem === 'service-not-active') {
        return `UISP created service #${error.service.id} as ${error.service.statusLabel}, not Active: check it in the CRM before retrying`;
      }
      const applied = error.mayHaveApplied ? '. UISP may or may not have applied this change; re-run the activation: it picks up where it stopped and creates no duplicates' : '';
      return `${error.detail}${applied}${error.beforeWrites ? `. ${NOTHING_CHANGED}` : ''}`;
    }
    case 'lease-lost':
      return leaseLostSentence(error.reason);
    case 'stopped':
      return 'The activation stopped unexpectedly; the details are in the SubOps log.';
    default:
      return refusalSentence(error);
  }
}

/** The records an agent picks from when the request matched several (clients or devices); [] otherwise. */
export function candidateLines(error: ActivationStop): string[] {
  switch (error.code) {
    case 'client-ambiguous':
    case 'client-archived':
      return error.candidates.map(describeCandidate);
    case 'device-ambiguous':
      return error.devices.map(describeDeviceMatch);
    default:
      return [];
  }
}

// ---------- the result ----------

/** The result in one sentence: the terminal's last line, the failure report's headline, the audit summary. */
export function resultSentence(result: ActivationResult): string {
  switch (result.outcome) {
    case 'planned':
      return 'Dry run: nothing was written.';
    case 'already-activated':
      return `Already activated: ${result.client.name} has Active service #${result.service.id} and ${result.device.name} is on site "${result.site.name}". ${NOTHING_CHANGED}`;
    case 'activated': {
      const moved = result.movedFrom ? ` (moved from ${describeMove(result.movedFrom)})` : '';
      return `Activated ${result.client.name}: service #${result.service.id}, site "${result.site.name}", device ${result.device.name}${moved}.`;
    }
    case 'failed':
      return result.failedStep ? `Activation failed at the ${result.failedStep} step: ${errorSentence(result.error, result.done.length > 0)}` : errorSentence(result.error);
  }
}

/** Services of other plans an activation never touches, e.g. "left alone: Quoted service #301 Cable TV (another plan type)". */
export function leftAloneSentence(services: ServiceRef[]): string {
  return `left alone: ${services.map((s) => `${s.statusLabel} service #${s.id}${named(s)}`).join(', ')} (not of the plan type this activation creates)`;
}

/** One write the run made, e.g. "Deleted Quoted service #102". */
export function doneSentence(entry: DoneEntry): string {
  switch (entry.kind) {
    case 'client-created':
      return `${createdClient(entry.client)}${entry.unconfirmed ? UNCONFIRMED : ''}`;
    case 'service-deleted':
      return `Deleted ${entry.service.statusLabel} service #${entry.service.id}`;
    case 'service-delete-refused':
      return `Could not delete ${entry.service.statusLabel} service #${entry.service.id}: ${entry.detail}. It is still there`;
    case 'service-created':
      return createdService(entry);
    case 'service-created-unconfirmed':
      return `Created Active service #${entry.serviceId}${UNCONFIRMED}`;
    case 'site-created':
      return `${createdSite(entry.site.name)}${entry.unconfirmed ? UNCONFIRMED : ''}`;
    case 'duplicate-removed':
      return `Removed duplicate ${entry.record} ${recordId(entry.id)}, which this activation had made`;
    case 'duplicate-refused':
      return `Could not remove duplicate ${entry.record} ${recordId(entry.id)}, which this activation had made: ${entry.detail}. It is still there`;
    case 'authorized':
      return authorized(entry.device, entry.site);
  }
}

/** One write the plan still expected, e.g. "create the Active service". */
export function pendingSentence(entry: PendingEntry): string {
  switch (entry.kind) {
    case 'create-client':
      return `create client ${entry.firstName} ${entry.lastName}`;
    case 'delete-service':
      return `delete ${entry.service.statusLabel} service #${entry.service.id}`;
    case 'create-service':
      return 'create the Active service';
    case 'create-site':
      return `create NMS site "${entry.name}"`;
    case 'authorize':
      return `authorize ${entry.device.name}`;
    case 'unknown':
      return 'Unknown: check UISP, then retry (a retry only does what is still missing).';
  }
}

/** What a failure report lists: the result's writes and missing writes, worded. */
export function resultLists(result: ActivationResult): { done: string[]; notDone: string[] } {
  return { done: result.done.map(doneSentence), notDone: result.notDone.map(pendingSentence) };
}

// ---------- what changed since a confirmation, late duplicates ----------

/** What is different now from what the agent confirmed: the confirmation shown again leads with these. */
export function changeSentence(change: ConfirmationChange): string {
  switch (change.kind) {
    case 'service-changed':
      return change.now
        ? `Service #${change.id} is ${change.now.statusLabel} now, no longer what you confirmed deleting: it will not be deleted`
        : `Service #${change.id}, which you confirmed deleting, is gone from the CRM`;
    case 'service-added':
      return `${change.service.statusLabel} service #${change.service.id} would now be deleted too`;
    case 'move-changed':
      return change.now ? `The device is now on site ${describeMove(change.now)}: moving it needs your confirmation` : 'The device no longer needs moving';
    case 'refused':
      return refusalSentence(change.refusal);
  }
}

/** "Client #1002 Ada Lovelace has 2 Active services made by SubOps: #5003 (kept, reported by the activation) and #5007". */
export function lateDuplicateSentence(duplicate: LateDuplicate): string {
  const name = (r: { id: number | string; name: string | null }) => `${recordId(r.id)}${r.name ? ` "${r.name}"` : ''}`;
  const others = duplicate.others.map(name).join(', ');
  if (duplicate.record === 'client') {
    return `Client #${duplicate.client.id} ${duplicate.client.name} has SubOps-made namesakes with no service: ${others} (made late, or left by an activation that failed midway); activations use #${duplicate.client.id}`;
  }
  const what = duplicate.record === 'service' ? 'Active services' : 'NMS sites';
  return `Client #${duplicate.client.id} ${duplicate.client.name} has ${duplicate.others.length + 1} ${what} made by SubOps: ${name(duplicate.kept)} (the one activations keep and report) and ${others} (made late, after its activation gave up)`;
}
