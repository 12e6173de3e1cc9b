/**
 * Suspend and lift suspensions of CRM services. What to do is decided from the service's status as the
 * CRM reports it right before the write, so a suspended service is never suspended again (UISP would
 * answer 422) and a service that is not Active is never suspended. Lifting always goes through
 * cancel-suspend: UISP has no /unsuspend endpoint (spec §4).
 */
import { z } from 'zod';
import { withRetries, type WriteRetryPolicy } from './converge.js';
import type { CrmClient } from './uisp/crm-client.js';
import { UispError, UispWriteNotAppliedError } from './uisp/errors.js';
import type { Client, Service, SuspensionReason } from './uisp/schemas.js';
import { InputError, notFoundAsInputError } from './errors.js';
import type { StatusNumbering } from './activation/numbering.js';
import type { ServiceStatusTable } from './activation/service-status.js';

export type SuspensionAction = 'suspend' | 'unsuspend';

/**
 * write: the change applies. already: nothing to do (suspend: already suspended; unsuspend: not
 * suspended). refused: the change must not be made (suspend of a service that is not Active).
 */
export type SuspensionDecision = 'write' | 'already' | 'refused';

/** Pure: the decision for this action on a service with this status. */
export function decideSuspension(action: SuspensionAction, status: number, statuses: ServiceStatusTable): SuspensionDecision {
  if (action === 'unsuspend') return status === statuses.suspended ? 'write' : 'already';
  if (status === statuses.suspended) return 'already';
  return status === statuses.active ? 'write' : 'refused';
}

/** Pure: the one action that applies to a service in this status, if any (front ends offer only that). */
export function applicableAction(status: number, statuses: ServiceStatusTable): SuspensionAction | undefined {
  if (status === statuses.active) return 'suspend';
  if (status === statuses.suspended) return 'unsuspend';
  return undefined;
}

/**
 * What a button showed of a service when its message was drawn (carried in the button's value): its
 * status and, while suspended, which suspension — its reason and, as UISP lists suspension periods, the
 * one in force. A suspension lifted and imposed again is another suspension, even for the same reason.
 */
export const ShownServiceSchema = z.object({ status: z.number().int(), reasonId: z.number().int().nullable(), periodId: z.number().int().nullable() });
export type ShownService = z.infer<typeof ShownServiceSchema>;

/** Pure: what a button drawn now for this service shows of it. */
export function shownService(service: Service): ShownService {
  const inForce = service.suspensionPeriods?.find((period) => !period.endDate);
  return { status: service.status, reasonId: service.suspensionReasonId ?? null, periodId: inForce?.id ?? null };
}

/** Pure: whether UISP changed the service since a button showed it; a button that carries nothing (drawn before buttons did) counts as changed. */
export function changedSince(shown: ShownService | undefined, service: Service): boolean {
  if (!shown) return true;
  const now = shownService(service);
  return now.status !== shown.status || now.reasonId !== shown.reasonId || now.periodId !== shown.periodId;
}

/**
 * A button pressed on an older message: `as-shown` when UISP still says what the button showed (the
 * action runs as it always did), `changed` otherwise — the front end then shows the normal confirmation
 * with the service as it is now, and nothing is written until the person confirms.
 */
export type PressedButton = { kind: 'as-shown'; service: Service } | { kind: 'changed'; service: Service; decision: SuspensionDecision };

/**
 * Why a change was refused. not-active: only an Active service can be suspended. crm-refused: the
 * status allowed it but the CRM said no (its answer is in `detail`, for logs, never shown as is).
 * changed: a lift found another suspension than the one the button or confirmation showed.
 */
export type SuspensionRefusal = 'not-active' | 'crm-refused' | 'changed';

export type SuspensionOutcome =
  | {
      kind: 'done';
      action: SuspensionAction;
      /** The service as read right before the write. */
      service: Service;
      /** The service as UISP reports it after the change; null when that read failed (the change itself landed). */
      after: Service | null;
      suspensionReason?: SuspensionReason;
    }
  | { kind: 'already'; action: SuspensionAction; service: Service }
  | { kind: 'refused'; action: SuspensionAction; service: Service; reason: SuspensionRefusal; status: number; detail?: string };

/** Without a policy (tests), a write is tried once, and still reconciled by reading when its answer is lost. */
const TRY_ONCE: WriteRetryPolicy = { retries: 0, backoffMs: 0, windowMs: 0 };

export class SuspensionService {
  constructor(
    private readonly crm: CrmClient,
    private readonly statuses: ServiceStatusTable,
    private readonly retry: WriteRetryPolicy = TRY_ONCE,
    /** Asked with the first read, so a Quoted (or Deferred) service is named as UISP numbers it. */
    private readonly numbering?: Pick<StatusNumbering, 'resolve'>,
  ) {}

  listReasons(): Promise<SuspensionReason[]> {
    return this.crm.listSuspensionReasons();
  }

  /** Accepts a reason id or a name (case-insensitive, unique prefix allowed). */
  async resolveReason(idOrName: string): Promise<SuspensionReason> {
    const wanted = idOrName.trim();
    if (!wanted) throw new InputError('reason', 'Choose a suspension reason.');
    const reasons = await this.crm.listSuspensionReasons();
    const byId = /^\d+$/.test(wanted) ? reasons.find((r) => r.id === Number(wanted)) : undefined;
    if (byId) return byId;
    const lower = wanted.toLowerCase();
    const exact = reasons.filter((r) => r.name.toLowerCase() === lower);
    const matches = exact.length ? exact : reasons.filter((r) => r.name.toLowerCase().startsWith(lower));
    if (matches.length === 1) return matches[0]!;
    const known = reasons.map((r) => `${r.id} ${r.name}`).join(', ');
    throw new InputError('reason', matches.length ? `"${wanted}" matches several reasons: ${matches.map((r) => r.name).join(', ')}.` : `No suspension reason "${wanted}". Known reasons: ${known}.`);
  }

  /** The service, or a clear "no service #id" error. */
  async getService(serviceId: number): Promise<Service> {
    const [service] = await Promise.all([notFoundAsInputError(this.crm.getService(serviceId), 'service', `No CRM service #${serviceId}.`), this.numbering?.resolve()]);
    return service;
  }

  getClient(clientId: number): Promise<Client> {
    return notFoundAsInputError(this.crm.getClient(clientId), 'client', `No CRM client #${clientId}.`);
  }

  listClientServices(clientId: number): Promise<Service[]> {
    return this.crm.listServices(clientId);
  }

  /** What `action` would do to this service now (front ends preview it before asking for confirmation). */
  decide(action: SuspensionAction, service: Service): SuspensionDecision {
    return decideSuspension(action, service.status, this.statuses);
  }

  applicableAction(service: Service): SuspensionAction | undefined {
    return applicableAction(service.status, this.statuses);
  }

  /**
   * Whether a confirmation drawn showing `shown` must be shown again before `action` is written on the
   * service as read now: UISP changed it since, and the change would still write (a lift of another
   * suspension than the one shown). A change that now writes nothing runs and says so.
   */
  asksAgain(action: SuspensionAction, shown: ShownService | undefined, service: Service): boolean {
    return changedSince(shown, service) && this.decide(action, service) === 'write';
  }

  /** What a press of a button for `action`, drawn showing `shown`, may do now (read from UISP). */
  async pressed(action: SuspensionAction, serviceId: number, shown: ShownService | undefined): Promise<PressedButton> {
    const service = await this.getService(serviceId);
    return changedSince(shown, service) ? { kind: 'changed', service, decision: this.decide(action, service) } : { kind: 'as-shown', service };
  }

  /** Suspends the service if it is Active, for a reason the caller has already resolved. */
  suspend(serviceId: number, reason: SuspensionReason): Promise<SuspensionOutcome> {
    return this.change('suspend', serviceId, () => this.crm.suspendService(serviceId, reason.id), { reason });
  }

  /**
   * Lifts the suspension of the service if it is suspended (cancel-suspend). With `shown` (what the
   * person confirmed), only that suspension: another one found by the read right before the write is
   * refused (`changed`), nothing written.
   */
  unsuspend(serviceId: number, shown?: ShownService): Promise<SuspensionOutcome> {
    return this.change('unsuspend', serviceId, () => this.crm.cancelSuspendService(serviceId), { shown });
  }

  private async change(action: SuspensionAction, serviceId: number, write: () => Promise<void>, { reason, shown }: { reason?: SuspensionReason; shown?: ShownService | undefined }): Promise<SuspensionOutcome> {
    const service = await this.getService(serviceId);
    const decision = this.decide(action, service);
    if (decision !== 'write') return this.unchanged(action, decision, service);
    if (shown && changedSince(shown, service)) return { kind: 'refused', action, service, reason: 'changed', status: service.status };
    let attempts = 0;
    try {
      // Transient failures are retried; before each retry the service is read again, so a change whose
      // answer was lost (it landed) is not sent a second time.
      await withRetries(this.retry, async (n) => {
        attempts = n;
        if (n === 1 || this.decide(action, await this.crm.getService(serviceId)) === 'write') await write();
      });
    } catch (error) {
      return this.reconcile(action, service, error, attempts, reason);
    }
    return { kind: 'done', action, service, after: await this.readBack(serviceId), ...(reason && { suspensionReason: reason }) };
  }

  private unchanged(action: SuspensionAction, decision: 'already' | 'refused', service: Service, detail?: string): SuspensionOutcome {
    if (decision === 'already') return { kind: 'already', action, service };
    return { kind: 'refused', action, service, reason: 'not-active', status: service.status, ...(detail && { detail }) };
  }

  /**
   * The write failed: read the service again and decide from what UISP reports now. Someone else may
   * have changed it between our read and our write (UISP then answers 422), or our write may have
   * landed without an answer. Only a failure the new state does not explain is passed on.
   */
  private async reconcile(action: SuspensionAction, before: Service, error: unknown, attempts: number, reason?: SuspensionReason): Promise<SuspensionOutcome> {
    if (!(error instanceof UispError)) throw error;
    const now = await this.readBack(before.id);
    if (!now) throw error;
    const decision = this.decide(action, now);
    if (decision === 'already' && error.mayHaveApplied) return { kind: 'done', action, service: before, after: now, ...(reason && { suspensionReason: reason }) };
    if (decision !== 'write') return this.unchanged(action, decision, now, error.message);
    if (error.kind === 'validation' || error.kind === 'rejected') {
      return { kind: 'refused', action, service: now, reason: 'crm-refused', status: now.status, detail: error.message };
    }
    // Still in the state the change starts from: the lost write did not land.
    throw error.mayHaveApplied ? new UispWriteNotAppliedError(error, attempts) : error;
  }

  /** A failed read after a landed write must not turn it into a reported failure, nor show the old status. */
  private async readBack(serviceId: number): Promise<Service | null> {
    try {
      return await this.crm.getService(serviceId);
    } catch {
      return null;
    }
  }
}
