/**
 * The customer activation workflow (spec §1) as a plain async sequence of step events. It knows
 * nothing of Slack or terminals: front ends iterate `run()` and render each event as it arrives.
 *
 * Shape: one round of independent reads (both device lists, the client lookup, the sites) → a plan →
 * the writes, each only if still needed. Every decision is re-derived from UISP's current state, so
 * re-running after any failure converges: no second client, service or site.
 */
import type { ActivationConfig } from '../../config.js';
import type { CrmClient } from '../uisp/crm-client.js';
import { UispError, UispNotFoundError } from '../uisp/errors.js';
import type { NmsClient } from '../uisp/nms-client.js';
import type { Service } from '../uisp/schemas.js';
import { parseDeviceQuery } from './device-match.js';
import { titleCase } from './names.js';
import { midnightIn } from '../dates.js';
import { formatMoney } from '../money.js';
import { clientRef, decideActivation, describeCandidate, describeMove, identifyClient, siteMarker, siteRef, type ClientLookup } from './planner.js';
import { statusLabel } from './service-status.js';
import type {
  ActivationConfirmation,
  ActivationDecision,
  ActivationErrorCode,
  ActivationEvent,
  ActivationPlan,
  ActivationRefusal,
  ActivationRequest,
  ActivationResult,
  ClientRef,
  ServiceRef,
  SiteRef,
  StepEvent,
  StepName,
} from './types.js';

export { siteMarker } from './planner.js';

export class ActivationFailure extends Error {
  override readonly name = 'ActivationFailure';
  constructor(
    readonly code: ActivationErrorCode,
    message: string,
    readonly candidates: string[] = [],
    /** For a move that needs confirmation: the plan, so front ends can show what confirming would do. */
    readonly plan?: ActivationPlan,
  ) {
    super(message);
  }

  static of(refusal: ActivationRefusal): ActivationFailure {
    return new ActivationFailure(refusal.code, refusal.message, candidatesOf(refusal));
  }
}

export interface ActivationDeps {
  crm: CrmClient;
  nms: NmsClient;
  settings: ActivationConfig;
  /** e.g. https://uisp.example.net/crm — the client page is `${crmBaseUrl}/client/${id}`. */
  crmBaseUrl: string;
  /** Today's date (YYYY-MM-DD) in the ISP's time zone. */
  today: () => string;
}

export class ActivationService {
  constructor(private readonly deps: ActivationDeps) {}

  /** Reads only: what `run` would do now, as a typed decision (refused, needs confirmation, or a plan). */
  decide(request: ActivationRequest): Promise<ActivationDecision> {
    return this.read(request);
  }

  /** Reads only: the plan `run` would follow. Throws ActivationFailure when the activation is refused. */
  async plan(request: ActivationRequest): Promise<ActivationPlan> {
    const decision = await this.read(request);
    if (decision.kind === 'refused') throw ActivationFailure.of(decision.refusal);
    return decision.plan;
  }

  crmClientUrl(clientId: number): string {
    return `${this.deps.crmBaseUrl}/client/${clientId}`;
  }

  /**
   * Yields one event per step as it happens and always ends with exactly one result event; never throws.
   * A refusal, or a device move the caller did not confirm (`confirm.moveFrom`), stops it before any write.
   */
  async *run(
    request: ActivationRequest,
    { dryRun = false, confirm = {} }: { dryRun?: boolean; confirm?: ActivationConfirmation } = {},
  ): AsyncGenerator<ActivationEvent> {
    const log = new RunLog();
    let plan: ActivationPlan;
    try {
      plan = planToRun(await this.read(request), confirm, dryRun);
    } catch (error) {
      const failure = asFailure(error);
      const failedStep = FAILED_STEP[failure.code];
      yield step(failedStep, 'failed', failure.message);
      yield { ...log.failed(failedStep, failure), ...(failure.plan && { plan: failure.plan }) };
      return;
    }
    const device = plan.device;
    yield step('discover', 'done', `Found ${device.name} (${[device.ip, device.mac].filter(Boolean).join(', ')}) in the ${device.list} devices list`, { deviceId: device.id });
    if (dryRun) {
      yield* planEvents(plan);
      yield { type: 'result', outcome: 'planned', message: 'Dry run: nothing was written.', plan, device, done: [], notDone: [] };
      return;
    }
    log.expect(plan);

    let client: ClientRef;
    if (plan.client.action === 'reuse') {
      client = plan.client.client;
      yield step('client', 'skipped', `Reusing client #${client.id} ${client.name}`, { clientId: client.id });
    } else {
      try {
        client = clientRef(await this.deps.crm.createClient({ firstName: plan.client.firstName, lastName: plan.client.lastName, ...contactOf(request) }));
      } catch (error) {
        yield step('client', 'failed', errorMessage(error));
        yield log.failed('client', error, { device });
        return;
      }
      const message = `Created client #${client.id} ${client.name}`;
      log.did('client', message);
      yield step('client', 'done', message, { clientId: client.id });
    }

    // The service and the site depend only on the client, so both go out together.
    const [serviceOutcome, siteOutcome] = await Promise.allSettled([this.ensureService(plan, client, log), this.ensureSite(plan, client, log)]);
    const failures: { name: StepName; error: unknown }[] = [];
    for (const [name, outcome] of [['service', serviceOutcome], ['site', siteOutcome]] as const) {
      if (outcome.status === 'fulfilled') {
        yield outcome.value.event;
      } else {
        failures.push({ name, error: outcome.reason });
        yield step(name, 'failed', errorMessage(outcome.reason));
      }
    }
    const service = serviceOutcome.status === 'fulfilled' ? serviceOutcome.value.service : undefined;
    const site = siteOutcome.status === 'fulfilled' ? siteOutcome.value.site : undefined;
    if (!service || !site) {
      yield log.failed(failures[0]!.name, failures[0]!.error, { device, client, ...(service && { service }), ...(site && { site }) });
      return;
    }

    if (plan.authorize.action === 'skip') {
      yield step('authorize', 'skipped', plan.authorize.reason, { deviceId: device.id, siteId: site.id });
    } else {
      try {
        await this.deps.nms.authorizeDevice(device.id, site.id);
      } catch (error) {
        yield step('authorize', 'failed', errorMessage(error));
        yield log.failed('authorize', error, { device, client, service, site });
        return;
      }
      const message = `Authorized ${device.name} onto site "${site.name}"`;
      log.did('authorize', message);
      yield step('authorize', 'done', message, { deviceId: device.id, siteId: site.id });
    }

    const crmClientUrl = this.crmClientUrl(client.id);
    yield step(
      'manual-link',
      'manual',
      `Manual step: in the CRM web interface, link client #${client.id} ${client.name} (${crmClientUrl}) to NMS site "${site.name}" and device ${device.name}. SubOps does not perform this link.`,
      { clientId: client.id, siteId: site.id, deviceId: device.id },
    );
    const alreadyActive = log.done.length === 0;
    const moved = plan.move ? ` (moved from ${describeMove(plan.move)})` : '';
    yield {
      type: 'result',
      outcome: alreadyActive ? 'already-activated' : 'activated',
      message: alreadyActive
        ? `Already activated: ${client.name} has Active service #${service.id} and ${device.name} is on site "${site.name}". Nothing was changed.`
        : `Activated ${client.name}: service #${service.id}, site "${site.name}", device ${device.name}${moved}.`,
      device,
      client,
      service,
      site,
      crmClientUrl,
      ...(plan.move && { movedFrom: plan.move }),
      done: log.done,
      notDone: [],
    };
  }

  private async ensureService(plan: ActivationPlan, client: ClientRef, log: RunLog): Promise<{ service: ServiceRef; event: StepEvent }> {
    if (plan.service.action === 'reuse') {
      const service = plan.service.service;
      return { service, event: step('service', 'skipped', `Already activated: service #${service.id}${service.name ? ` (${service.name})` : ''} is Active`, { clientId: client.id, serviceId: service.id }) };
    }
    const { settings, crm } = this.deps;
    const deleted: number[] = [];
    for (const old of plan.service.delete) {
      await crm.deleteService(old.id);
      deleted.push(old.id);
      log.did(`delete:${old.id}`, `Deleted ${old.statusLabel} service #${old.id}`);
    }
    // The plan's date, as the start of that day in the ISP's zone: the form the CRM documents.
    const startsAt = midnightIn(plan.service.activeFrom, settings.timeZone);
    const created = await crm.createService(client.id, {
      status: settings.statuses.active,
      servicePlanPeriodId: plan.service.servicePlanPeriodId,
      price: plan.service.price,
      activeFrom: startsAt,
      invoicingStart: startsAt,
    });
    const service: ServiceRef = { id: created.id, status: created.status, statusLabel: statusLabel(created.status, settings.statuses), name: created.name };
    const what = `Created ${service.statusLabel} service #${service.id}${service.name ? ` (${service.name})` : ''}: ${formatMoney(plan.service.price, created.currencyCode)}/month from ${plan.service.activeFrom}`;
    const replaced = deleted.length ? ` after deleting ${deleted.map((id) => `#${id}`).join(', ')}` : '';
    log.did('service', what + replaced);
    if (created.status !== settings.statuses.active) {
      // UISP can leave a new service Quoted (spec §7); the device must not be let on without an Active one.
      throw new ActivationFailure('uisp-error', `UISP created service #${service.id} as ${service.statusLabel}, not Active: check it in the CRM (and SERVICE_STATUS_ACTIVE) before retrying`);
    }
    return { service, event: step('service', 'done', what + replaced, { clientId: client.id, serviceId: service.id, ...(deleted.length && { deletedServiceIds: deleted.join(',') }) }) };
  }

  private async ensureSite(plan: ActivationPlan, client: ClientRef, log: RunLog): Promise<{ site: SiteRef; event: StepEvent }> {
    if (plan.site.action === 'reuse') {
      const site = plan.site.site;
      return { site, event: step('site', 'skipped', `Reusing NMS site "${site.name}"`, { siteId: site.id }) };
    }
    const created = siteRef(
      await this.deps.nms.createSite({
        name: client.name,
        type: 'endpoint',
        ...(plan.site.parentSiteId && { parentSiteId: plan.site.parentSiteId }),
        note: siteMarker(client.id),
      }),
    );
    const message = `Created NMS site "${created.name}"`;
    log.did('site', message);
    return { site: created, event: step('site', 'done', message, { siteId: created.id }) };
  }

  /** One round of independent reads, then (for a name lookup) the identified client's services; then the planner. */
  private async read(request: ActivationRequest): Promise<ActivationDecision> {
    const { nms, settings } = this.deps;
    const query = parseDeviceQuery(request.device);
    const firstName = titleCase(request.firstName);
    const lastName = titleCase(request.lastName);
    const explicitId = request.clientId;
    const [authorized, discovered, lookup, sites] = await Promise.allSettled([
      nms.listDevices(),
      nms.listDiscoveredDevices(),
      explicitId !== undefined ? this.lookUpId(explicitId) : this.lookUpName(`${firstName} ${lastName}`, firstName, lastName),
      nms.listSites(),
    ]);
    const { lookup: clientLookup, services } = settled(lookup);
    return decideActivation({
      query,
      firstName,
      lastName,
      authorized: settled(authorized),
      discovered: settled(discovered),
      lookup: clientLookup,
      services,
      sites: settled(sites),
      settings,
      today: this.deps.today(),
    });
  }

  /** The client and its services together; an unknown id is a lookup result (the planner refuses it), not an error. */
  private async lookUpId(id: number): Promise<{ lookup: ClientLookup; services: Service[] }> {
    const [client, services] = await Promise.all([this.deps.crm.getClient(id).catch(nullWhenNotFound), this.deps.crm.listServices(id).catch(emptyWhenNotFound)]);
    return { lookup: { by: 'id', id, client }, services };
  }

  /** Active and archived namesakes (persons and companies); then the services of the one it identifies. */
  private async lookUpName(query: string, firstName: string, lastName: string): Promise<{ lookup: ClientLookup; services: Service[] }> {
    const { crm } = this.deps;
    const [active, archived] = await Promise.all([crm.listClients({ query }), crm.listClients({ query, isArchived: true })]);
    const lookup: ClientLookup = { by: 'name', active, archived };
    const identity = identifyClient(lookup, firstName, lastName);
    return { lookup, services: 'client' in identity && identity.client ? await crm.listServices(identity.client.id) : [] };
  }
}

/** The plan to run: a refusal, or a device move the caller has not confirmed, stops here (a dry run only shows the move). */
function planToRun(decision: ActivationDecision, confirm: ActivationConfirmation, dryRun: boolean): ActivationPlan {
  if (decision.kind === 'refused') throw ActivationFailure.of(decision.refusal);
  const { plan } = decision;
  const move = plan.move;
  if (move && !dryRun && confirm.moveFrom !== 'any' && confirm.moveFrom !== move.site.id) {
    throw new ActivationFailure(
      'device-in-use',
      `${plan.device.name} is authorized on site ${describeMove(move)}, which is not this client's site: moving it needs your explicit confirmation. Nothing was changed.`,
      [],
      plan,
    );
  }
  return plan;
}

function nullWhenNotFound(error: unknown): null {
  if (error instanceof UispNotFoundError) return null;
  throw error;
}

function emptyWhenNotFound(error: unknown): Service[] {
  return nullWhenNotFound(error) ?? [];
}

function candidatesOf(refusal: ActivationRefusal): string[] {
  switch (refusal.code) {
    case 'client-ambiguous':
    case 'client-archived':
      return refusal.candidates.map(describeCandidate);
    case 'device-ambiguous':
      return refusal.devices.map((d) => `${d.name} (${[d.ip, d.mac, d.list].filter(Boolean).join(', ')})`);
    default:
      return [];
  }
}

/** The step a planning failure belongs to, so front ends label it where the agent looks for it. */
const FAILED_STEP: Record<ActivationErrorCode, StepName> = {
  'device-not-found': 'discover',
  'device-ambiguous': 'discover',
  'device-infrastructure': 'discover',
  'device-role-unknown': 'discover',
  'device-in-use': 'authorize',
  'client-not-found': 'client',
  'client-name-mismatch': 'client',
  'client-archived': 'client',
  'client-ambiguous': 'client',
  'service-suspended': 'service',
  'parent-site-not-found': 'site',
  'uisp-error': 'discover',
};

function settled<T>(result: PromiseSettledResult<T>): T {
  if (result.status === 'rejected') throw result.reason;
  return result.value;
}

function contactOf(request: ActivationRequest): { email?: string; phone?: string } {
  return { ...(request.email && { email: request.email }), ...(request.phone && { phone: request.phone }) };
}

function step(name: StepName, status: StepEvent['status'], message: string, ids: StepEvent['ids'] = {}): StepEvent {
  return { type: 'step', step: name, status, message, ids };
}

function* planEvents(plan: ActivationPlan): Generator<StepEvent> {
  yield step('client', 'planned', plan.client.action === 'reuse' ? `Would reuse client #${plan.client.client.id} ${plan.client.client.name}` : `Would create client ${plan.client.firstName} ${plan.client.lastName}`);
  if (plan.service.action === 'reuse') {
    yield step('service', 'planned', `Would reuse Active service #${plan.service.service.id} (already activated)`, { serviceId: plan.service.service.id });
  } else {
    const deletions = plan.service.delete.map((s) => `delete ${s.statusLabel} service #${s.id}, then `).join('');
    yield step('service', 'planned', `Would ${deletions}create an Active service (plan period ${plan.service.servicePlanPeriodId}, ${formatMoney(plan.service.price)}/month from ${plan.service.activeFrom})`);
  }
  yield step('site', 'planned', plan.site.action === 'reuse' ? `Would reuse NMS site "${plan.site.site.name}"` : `Would create NMS site "${plan.site.name}"`);
  const authorize =
    plan.authorize.action === 'skip'
      ? plan.authorize.reason
      : plan.move
        ? `Would move ${plan.device.name} from site ${describeMove(plan.move)} onto that site (only when confirmed)`
        : `Would authorize ${plan.device.name} onto that site`;
  yield step('authorize', 'planned', authorize, { deviceId: plan.device.id });
}


function asFailure(error: unknown, suffix = '. Nothing was changed.'): ActivationFailure {
  if (error instanceof ActivationFailure) return error;
  return new ActivationFailure('uisp-error', `${errorMessage(error)}${suffix}`);
}

function errorMessage(error: unknown): string {
  if (error instanceof UispError && error.mayHaveApplied) {
    return `${error.message}. UISP may or may not have applied this change; re-run the activation: it picks up where it stopped and creates no duplicates`;
  }
  if (error instanceof UispError || error instanceof Error) return error.message;
  return String(error);
}

/** Tracks what has been written and what the plan still expected, for honest failure reports. */
class RunLog {
  readonly done: string[] = [];
  /** Planned writes not yet made, keyed by step name or `delete:<service id>`. */
  private readonly pending = new Map<string, string>();

  expect(plan: ActivationPlan): void {
    if (plan.client.action === 'create') this.pending.set('client', `create client ${plan.client.firstName} ${plan.client.lastName}`);
    if (plan.service.action === 'create') {
      for (const old of plan.service.delete) this.pending.set(`delete:${old.id}`, `delete ${old.statusLabel} service #${old.id}`);
      this.pending.set('service', 'create the Active service');
    }
    if (plan.site.action === 'create') this.pending.set('site', `create NMS site "${plan.site.name}"`);
    if (plan.authorize.action === 'authorize') this.pending.set('authorize', `authorize ${plan.device.name}`);
  }

  did(key: string, sentence: string): void {
    this.done.push(sentence);
    this.pending.delete(key);
  }

  failed(name: StepName, error: unknown, reached: Partial<Pick<ActivationResult, 'device' | 'client' | 'service' | 'site'>> = {}): ActivationResult {
    const failure = asFailure(error, '');
    return {
      type: 'result',
      outcome: 'failed',
      message: `Activation failed at the ${name} step: ${failure.message}`,
      ...reached,
      done: [...this.done],
      notDone: [...this.pending.values()],
      error: { code: failure.code, message: failure.message, ...(failure.candidates.length && { candidates: failure.candidates }) },
    };
  }
}
