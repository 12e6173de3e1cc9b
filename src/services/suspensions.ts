/**
 * Suspend and lift suspensions of CRM services. Lifting always goes through cancel-suspend: UISP has
 * no /unsuspend endpoint (spec §4).
 */
import { withRetries, type WriteRetryPolicy } from './converge.js';
import type { CrmClient } from './uisp/crm-client.js';
import { UispError, UispWriteNotAppliedError } from './uisp/errors.js';
import type { Client, Service, SuspensionReason } from './uisp/schemas.js';
import { InputError, notFoundAsInputError } from './errors.js';

export interface SuspensionOutcome {
  service: Service;
  /** The service as UISP reports it after the change; null when that read failed (the change itself landed). */
  after: Service | null;
  reason?: SuspensionReason;
}

/** Without a policy (tests), a write is tried once, and still reconciled by reading when its answer is lost. */
const TRY_ONCE: WriteRetryPolicy = { retries: 0, backoffMs: 0, windowMs: 0 };

export class SuspensionService {
  constructor(
    private readonly crm: CrmClient,
    private readonly retry: WriteRetryPolicy = TRY_ONCE,
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
  getService(serviceId: number): Promise<Service> {
    return notFoundAsInputError(this.crm.getService(serviceId), 'service', `No CRM service #${serviceId}.`);
  }

  getClient(clientId: number): Promise<Client> {
    return notFoundAsInputError(this.crm.getClient(clientId), 'client', `No CRM client #${clientId}.`);
  }

  listClientServices(clientId: number): Promise<Service[]> {
    return this.crm.listServices(clientId);
  }

  /** Suspends a service the caller has already looked up, for a reason it has already resolved. */
  async suspend(service: Service, reason: SuspensionReason): Promise<SuspensionOutcome> {
    await this.changeStatus(service, () => this.crm.suspendService(service.id, reason.id));
    return { service, after: await this.readBack(service.id), reason };
  }

  /** Lifts the suspension of a service the caller has already looked up (cancel-suspend). */
  async unsuspend(service: Service): Promise<SuspensionOutcome> {
    await this.changeStatus(service, () => this.crm.cancelSuspendService(service.id));
    return { service, after: await this.readBack(service.id) };
  }

  /**
   * Sends a status change, retrying transient failures; before each retry, and after a last failure with
   * no answer, the service is read again: once its status has moved from the one looked up, the change
   * has landed and is not sent again. UISP refusing the change because another request made it first
   * (suspend and suspend again at once) is the same outcome, not a failure.
   */
  private async changeStatus(service: Service, write: () => Promise<void>): Promise<void> {
    const landed = async () => (await this.crm.getService(service.id)).status !== service.status;
    let attempts = 0;
    try {
      await withRetries(this.retry, async (n) => {
        attempts = n;
        if (n === 1 || !(await landed())) await write();
      });
    } catch (error) {
      if (!(error instanceof UispError) || (!error.mayHaveApplied && error.kind !== 'validation')) throw error;
      const known = await landed().catch(() => undefined);
      if (known === undefined) throw error;
      if (!known) throw error.mayHaveApplied ? new UispWriteNotAppliedError(error, attempts) : error;
    }
  }

  /** The write has landed; a failed read-back must not turn it into a reported failure, nor show the old status. */
  private async readBack(serviceId: number): Promise<Service | null> {
    try {
      return await this.crm.getService(serviceId);
    } catch {
      return null;
    }
  }
}
