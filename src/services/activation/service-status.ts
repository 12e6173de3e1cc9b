/**
 * Service status numbers the workflow acts on. The defaults are the spec's (§3: 1 Active, 6 Quoted,
 * 7 Obsolete). Stock UISP numbers them differently (7 Quoted, 5 Obsolete, 6 Deferred), so a real
 * deployment overrides them with SERVICE_STATUS_QUOTED / SERVICE_STATUS_OBSOLETE; see the README.
 */
export interface ServiceStatusTable {
  active: number;
  quoted: number;
  obsolete: number;
  /** A suspended service blocks activation: the agent lifts the suspension instead of adding a service. */
  suspended: number;
}

export const DEFAULT_SERVICE_STATUSES: ServiceStatusTable = Object.freeze({ active: 1, quoted: 6, obsolete: 7, suspended: 3 });

/** reuse: already active; replace: delete then create; block: stop and tell the agent; ignore: history. */
export type ServiceDisposition = 'reuse' | 'replace' | 'block' | 'ignore';

/** What the activation does with an existing service of the client. */
export function dispositionOf(status: number, table: ServiceStatusTable): ServiceDisposition {
  if (status === table.active) return 'reuse';
  if (status === table.quoted || status === table.obsolete) return 'replace';
  if (status === table.suspended) return 'block';
  return 'ignore';
}

export function statusLabel(status: number, table: ServiceStatusTable): string {
  if (status === table.active) return 'Active';
  if (status === table.quoted) return 'Quoted';
  if (status === table.obsolete) return 'Obsolete';
  if (status === table.suspended) return 'Suspended';
  return `status ${status}`;
}
