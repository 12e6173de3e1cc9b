/**
 * What the agent confirmed, checked against what UISP says now (pure). A Slack confirmation is read
 * again before the run (`confirmationChanges`): anything that differs from what the agent was shown is
 * shown again, and nothing of it is written. Every run then lets only confirmed deletes and moves through
 * (`planToRun`): a delete goes out only for a service this run's own read shows Quoted or Obsolete.
 */
import { ActivationFailure } from './failure.js';
import { serviceRefUnder, type ActivationReads } from './planner.js';
import type { ActivationConfirmation, ActivationDecision, ActivationPlan, ConfirmationChange, DeviceMove, ServiceRef, ShownConfirmation } from './types.js';

export function confirmationChanges(shown: ShownConfirmation, decision: ActivationDecision, reads: Pick<ActivationReads, 'services' | 'numbering'>): ConfirmationChange[] {
  if (decision.kind === 'refused') return [{ kind: 'refused', refusal: decision.refusal }];
  const { plan } = decision;
  const deletes = plan.service.action === 'create' ? plan.service.delete : [];
  const changes: ConfirmationChange[] = [];
  for (const { id, status } of shown.deletes) {
    const now = reads.services.find((s) => s.id === id);
    const planned = deletes.some((s) => s.id === id);
    if (!now || now.status !== status || !planned) {
      const ref: ServiceRef | null = now ? serviceRefUnder(reads.numbering.numbering)(now) : null;
      changes.push({ kind: 'service-changed', id, shown: status, now: ref });
    }
  }
  for (const service of deletes) if (!shown.deletes.some((s) => s.id === service.id)) changes.push({ kind: 'service-added', service });
  const moveNow = plan.move?.site.id ?? null;
  if ((shown.moveFrom ?? null) !== moveNow) changes.push({ kind: 'move-changed', shown: shown.moveFrom ?? null, now: plan.move });
  return changes;
}

/**
 * The plan to run: a refusal, a service deletion or a device move the caller has not confirmed, stops
 * here (a dry run only shows them). Deleting fewer services than confirmed is fine; any other is not.
 */
export function planToRun(decision: ActivationDecision, confirm: ActivationConfirmation, dryRun: boolean): ActivationPlan {
  if (decision.kind === 'refused') throw new ActivationFailure(decision.refusal);
  const { plan } = decision;
  if (dryRun) return plan;
  const confirmed = confirm.deletes ?? [];
  const deletes = plan.service.action === 'create' ? plan.service.delete : [];
  const unconfirmed = confirmed === 'any' ? [] : deletes.filter((s) => !confirmed.includes(s.id));
  if (unconfirmed.length) {
    throw new ActivationFailure({ code: 'delete-unconfirmed', services: unconfirmed, client: plan.client.action === 'reuse' ? plan.client.client : null }, plan);
  }
  if (plan.move && !moveConfirmed(confirm, plan.move)) throw new ActivationFailure({ code: 'device-in-use', device: plan.device, move: plan.move }, plan);
  return plan;
}

/** Whether the agent agreed to take the device off that site (the site shown, or any: CLI --yes). */
export const moveConfirmed = (confirm: ActivationConfirmation, move: DeviceMove): boolean => confirm.moveFrom === 'any' || confirm.moveFrom === move.site.id;
