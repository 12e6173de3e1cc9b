/**
 * Which rows of a checked sheet the approval rule (APPROVAL_REQUIRED_FOR) covers: a row whose confirmed
 * deletes or move need a second pair of eyes, as the same single activation would. Pure: the front end
 * asks it and renders the answer.
 */
import { approvalReasons, type ApprovalReason, type ApprovalSettings } from '../approvals.js';
import type { SheetCheck } from './types.js';

/** Each row (by its number) that needs approval, with why. Empty: the sheet runs without one. */
export function rowsNeedingApproval(settings: ApprovalSettings, check: SheetCheck): ReadonlyMap<number, ApprovalReason[]> {
  const needs = new Map<number, ApprovalReason[]>();
  for (const row of check.rows) {
    if (row.kind !== 'plan' || !row.confirm) continue;
    const reasons = approvalReasons(settings, { kind: 'activation', deletes: row.confirm.deletes.map((s) => s.id), moveFromSite: row.confirm.move?.site.id });
    if (reasons.length) needs.set(row.row, reasons);
  }
  return needs;
}

/** The sheet's reasons in one list, as its one approval request names them: every service it deletes, each site it moves a device off. */
export function sheetApprovalReasons(needs: ReadonlyMap<number, readonly ApprovalReason[]>): ApprovalReason[] {
  const reasons = [...needs.values()].flat();
  const serviceIds = reasons.flatMap((reason) => (reason.kind === 'delete-service' ? reason.serviceIds : []));
  const sites = new Set(reasons.flatMap((reason) => (reason.kind === 'move-device' ? [reason.fromSite] : [])));
  return [...(reasons.some((reason) => reason.kind === 'delete-service') ? [{ kind: 'delete-service' as const, serviceIds }] : []), ...[...sites].map((fromSite) => ({ kind: 'move-device' as const, fromSite }))];
}

/** The approval a sheet ran under, as the store holds it now (its seal verified by the front end). */
export interface SheetApproval {
  decision: 'approved' | 'rejected' | 'expired' | undefined;
  by: string;
  expiresAt: number;
}

/**
 * What Continue confirms of the rest of a sheet: everything as the check showed it while the sheet's
 * approval stands (approved, not expired); otherwise the rows under approval confirm nothing and stop
 * before any write (`lapsed`: the sheet had an approval that no longer stands), as a Retry's would.
 */
export function continuedUnder(settings: ApprovalSettings, rest: SheetCheck, approval: SheetApproval | undefined, at: number): { check: SheetCheck; approvedBy: string | undefined; lapsed: boolean } {
  const needs = rowsNeedingApproval(settings, rest);
  if (!needs.size) return { check: rest, approvedBy: undefined, lapsed: false };
  if (approval?.decision === 'approved' && at < approval.expiresAt) return { check: rest, approvedBy: approval.by, lapsed: false };
  // A row under approval keeps its plan but confirms nothing, so it stops before any write.
  const rows = rest.rows.map((row) => (row.kind === 'plan' && needs.has(row.row) ? { ...row, confirm: null } : row));
  return { check: { ...rest, rows }, approvedBy: undefined, lapsed: approval !== undefined };
}
