/**
 * Suspend and lift suspensions of CRM services. Lifting always goes through cancel-suspend: UISP has
 * no /unsuspend endpoint (spec §4).
 */
import type { CrmClient } from './uisp/crm-client.js';
import type { Client, Service, SuspensionReason } from './uisp/schemas.js';
import { InputError, notFoundAsInputError } from './errors.js';

export interface SuspensionOutcome {
  service: Service;
  /** The service as UISP reports it after the change; null when that read failed (the change itself landed). */
  after: Service | null;
  reason?: SuspensionReason;
}

export class SuspensionService {
  constructor(private readonly crm: CrmClient) {}

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
    await this.crm.suspendService(service.id, reason.id);
    return { service, after: await this.readBack(service.id), reason };
  }

  /** Lifts the suspension of a service the caller has already looked up (cancel-suspend). */
  async unsuspend(service: Service): Promise<SuspensionOutcome> {
    await this.crm.cancelSuspendService(service.id);
    return { service, after: await this.readBack(service.id) };
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
