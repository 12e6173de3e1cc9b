/**
 * CRM service status numbers. Two numberings exist:
 * - the interface document's (§3): 1 Active, 6 Quoted, 7 Obsolete (and UISP's 2 Ended, 3 Suspended);
 * - stock UISP's (CRM API Blueprint, `ServiceStatus`; UCRM 2.x numbered them the same): 0 Prepared,
 *   1 Active, 2 Ended, 3 Suspended, 4 Prepared blocked, 5 Obsolete, 6 Deferred, 7 Quoted, 8 Inactive.
 * Both agree on 1 Active, 2 Ended and 3 Suspended, so suspensions, cards and events need no numbering;
 * only what an activation replaces (Quoted, Obsolete) does. Which numbering applies is a setting or is
 * detected (./numbering.ts); a status the numbering does not name is "status N" and never deleted.
 */
export interface ServiceStatusTable {
  active: number;
  /** A suspended service blocks activation: the agent lifts the suspension instead of adding a service. */
  suspended: number;
}

/** What both numberings agree on: enough for everything but replacing a service. */
export const SHARED_STATUSES: ServiceStatusTable = Object.freeze({ active: 1, suspended: 3 });

export type NumberingName = 'interface' | 'stock';

export interface ServiceNumbering extends ServiceStatusTable {
  name: NumberingName;
  quoted: number;
  obsolete: number;
  /** Every status this numbering names. Anything else is unknown: shown as "status N", never deleted. */
  labels: Readonly<Record<number, string>>;
}

const SHARED_LABELS = { 1: 'Active', 2: 'Ended', 3: 'Suspended' } as const;

export const INTERFACE_NUMBERING: ServiceNumbering = Object.freeze({
  name: 'interface',
  ...SHARED_STATUSES,
  quoted: 6,
  obsolete: 7,
  labels: Object.freeze({ ...SHARED_LABELS, 6: 'Quoted', 7: 'Obsolete' }),
});

export const STOCK_NUMBERING: ServiceNumbering = Object.freeze({
  name: 'stock',
  ...SHARED_STATUSES,
  quoted: 7,
  obsolete: 5,
  labels: Object.freeze({ 0: 'Prepared', ...SHARED_LABELS, 4: 'Prepared blocked', 5: 'Obsolete', 6: 'Deferred', 7: 'Quoted', 8: 'Inactive' }),
});

export const NUMBERINGS: Readonly<Record<NumberingName, ServiceNumbering>> = Object.freeze({ interface: INTERFACE_NUMBERING, stock: STOCK_NUMBERING });

/** Quoted or Obsolete: what an activation deletes (as confirmed) and replaces with an Active service. */
export const isReplaceable = (status: number, numbering: ServiceNumbering): boolean => status === numbering.quoted || status === numbering.obsolete;

/** Active, Ended or Suspended: the statuses both numberings name alike. */
export const isSharedStatus = (status: number): boolean => Object.hasOwn(SHARED_LABELS, status);

/** Whether the numbering names this status (a status it does not name contradicts it). */
export const isKnownStatus = (status: number, numbering: ServiceNumbering): boolean => Object.hasOwn(numbering.labels, status);

/** The status's name under the numbering; without one (not known yet), only what both numberings agree on. */
export function statusLabel(status: number, numbering?: ServiceNumbering | null): string {
  const labels: Readonly<Record<number, string>> = numbering?.labels ?? SHARED_LABELS;
  return Object.hasOwn(labels, status) ? labels[status]! : `status ${status}`;
}
