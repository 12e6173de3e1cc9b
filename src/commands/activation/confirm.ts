/**
 * The agent confirmed a plan that deletes services and/or moves the device off another client's site.
 * UISP is read again first (`services.activation.recheck`): if anything differs from what they were
 * shown (a Quoted service someone turned Active, the device moved, a refusal now), nothing is written
 * and the confirmation (or the form) is shown again with what changed. Otherwise the run goes on from
 * that fresh read, so every delete it sends was read as confirmed in the same run.
 */
import type { App } from '@slack/bolt';
import { runActivation } from './run.js';
import { approvalReasons } from '../../services/approvals.js';
import { requestApproval } from '../approvals/index.js';
import { decideOrShowForm } from './plan.js';
import { changeSentence } from '../../render/activation.js';
import { onceView } from '../../slack/deliveries.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { ActivationMetaSchema, decodeMetadata } from '../../slack/metadata.js';
import { updateView, updateViewInBackground } from '../../slack/modals.js';
import { activationChecking, activationConfirm, activationStarted, formValuesOf } from '../../views/activation.js';
import { CALLBACK } from '../../views/ids.js';

export function registerConfirm(app: App, deps: ListenerDeps): void {
  app.view(CALLBACK.activateConfirm, onceView(deps, async ({ ack, body, view, client }) => {
    const { origin, request, confirmedDeletes = [], confirmedMove, confirmedClientId } = decodeMetadata(ActivationMetaSchema, view.private_metadata);
    if (!request) throw new Error('activation confirmation without a request in private_metadata');
    await ack({ response_action: 'update', view: activationChecking(request) });
    const actor = { ...origin, userId: body.user.id };
    const logger = deps.logger.child({ flow: 'activation', userId: actor.userId });
    const shown = { deletes: confirmedDeletes, ...(confirmedClientId !== undefined && { clientId: confirmedClientId }), ...(confirmedMove && { moveFrom: confirmedMove.siteId }) };
    let changes: string[] = [];
    const decision = await decideOrShowForm(client, deps, { viewId: view.id, origin, request, values: formValuesOf(request), logger }, async () => {
      const checked = await deps.services.activation.recheck(request, shown);
      changes = checked.changes.map(changeSentence);
      return checked.decision;
    });
    if (!decision) return;
    if (changes.length) {
      const notice = `UISP changed since you confirmed, so nothing was written: ${changes.join('; ')}. Check the plan below and confirm again.`;
      await updateView(client, { viewId: view.id, view: activationConfirm(origin, request, decision.plan, notice) }, logger);
      return;
    }
    // Deleting a service or moving a device may need a second pair of eyes: then the confirmation becomes a request.
    const reasons = approvalReasons(deps.approvals.settings, { kind: 'activation', deletes: confirmedDeletes.map((s) => s.id), moveFromSite: confirmedMove?.siteId });
    if (reasons.length) {
      const operation = { kind: 'activation' as const, request, confirmedDeletes, ...(confirmedMove && { confirmedMove }), ...(confirmedClientId !== undefined && { confirmedClientId }) };
      await requestApproval(deps, client, { viewId: view.id, title: 'Activate', origin: actor, reasons, operation, logger });
      return;
    }
    updateViewInBackground(deps.work, client, { viewId: view.id, view: activationStarted(origin, request) }, logger);
    await runActivation(deps, {
      request,
      origin: actor,
      startedBy: actor.userId,
      // A move is confirmed off one site only; deleting fewer services than confirmed is fine, any other is not.
      confirm: { deletes: confirmedDeletes.map((s) => s.id), ...(confirmedMove && { moveFrom: confirmedMove.siteId }) },
      decided: decision,
    });
  }));
}
