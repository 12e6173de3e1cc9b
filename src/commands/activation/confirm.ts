/**
 * The agent confirmed a plan that deletes services and/or moves the device off another client's site.
 * The decision is read again first: if UISP changed meanwhile and the run would now delete a service,
 * or move the device off a site, that the agent did not see, they confirm the new plan. The run itself
 * re-checks the confirmed move against what it reads.
 */
import type { App } from '@slack/bolt';
import { decideOrShowForm } from './plan.js';
import { runActivation } from './run.js';
import { onceView } from '../../slack/deliveries.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { ActivationMetaSchema, decodeMetadata } from '../../slack/metadata.js';
import { updateView } from '../../slack/modals.js';
import { activationChecking, activationConfirm, activationStarted } from '../../views/activation.js';
import { CALLBACK } from '../../views/ids.js';

export function registerConfirm(app: App, deps: ListenerDeps): void {
  app.view(CALLBACK.activateConfirm, onceView(deps, async ({ ack, body, view, client }) => {
    const { origin, request, confirmedDeletes = [], confirmedMove, confirmedClientId } = decodeMetadata(ActivationMetaSchema, view.private_metadata);
    if (!request) throw new Error('activation confirmation without a request in private_metadata');
    await ack({ response_action: 'update', view: activationChecking(request) });
    const logger = deps.logger.child({ flow: 'activation', userId: body.user.id });

    const values = Object.fromEntries(Object.entries(request).map(([key, value]) => [key, String(value)]));
    const decision = await decideOrShowForm(client, deps, { viewId: view.id, origin, request, values, logger, expectedClientId: confirmedClientId });
    if (!decision) return;
    const { plan } = decision;
    const deletes = plan.service.action === 'create' ? plan.service.delete.map((s) => s.id) : [];
    // Deleting fewer services than confirmed is fine; deleting any the agent did not see is not. A move
    // is confirmed for one device off one site only.
    const unseenDelete = deletes.some((id) => !confirmedDeletes.includes(id));
    const unseenMove = plan.move !== null && (confirmedMove?.deviceId !== plan.device.id || confirmedMove.siteId !== plan.move.site.id);
    if (unseenDelete || unseenMove) {
      await updateView(client, { viewId: view.id, view: activationConfirm(origin, request, plan, 'UISP changed since you looked: check the new plan before confirming.') }, logger);
      return;
    }
    await updateView(client, { viewId: view.id, view: activationStarted(origin, request) }, logger);
    await runActivation(deps, {
      request,
      origin: { ...origin, userId: body.user.id },
      startedBy: body.user.id,
      confirm: { deletes, ...(plan.move && { moveFrom: plan.move.site.id }) },
      // Read again just now, against what the agent confirmed: the run builds on it.
      decided: decision,
    });
  }));
}
