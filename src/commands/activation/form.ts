/**
 * Submission of the activation form: field errors go back under the field; a valid request is acked
 * with a "checking" view at once, and the planner's decision says what comes next: the confirmation
 * (the plan deletes a service or moves a device off another client's site), the form again (refused),
 * or the run itself.
 */
import type { App } from '@slack/bolt';
import { validateActivationRequest } from '../../services/activation/request.js';
import { decideOrShowForm } from './plan.js';
import { runActivation } from './run.js';
import { onceView } from '../../slack/deliveries.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { ActivationMetaSchema, decodeMetadata } from '../../slack/metadata.js';
import { updateView, updateViewInBackground } from '../../slack/modals.js';
import { readInputs } from '../../slack/state.js';
import { activationChecking, activationConfirm, activationStarted } from '../../views/activation.js';
import { CALLBACK } from '../../views/ids.js';

export function registerForm(app: App, deps: ListenerDeps): void {
  app.view(CALLBACK.activateForm, onceView(deps, async ({ ack, body, view, client }) => {
    const { origin } = decodeMetadata(ActivationMetaSchema, view.private_metadata);
    const actor = { ...origin, userId: body.user.id };
    const values = readInputs(view.state.values);
    const validation = validateActivationRequest(values);
    if (!validation.ok) {
      await ack({ response_action: 'errors', errors: validation.errors });
      return;
    }
    const { request } = validation;
    await ack({ response_action: 'update', view: activationChecking(request) });

    const logger = deps.logger.child({ flow: 'activation', userId: actor.userId });
    const decision = await decideOrShowForm(client, deps, { viewId: view.id, origin, request, values, logger });
    if (!decision) return;
    if (decision.kind === 'needs-confirmation') {
      await updateView(client, { viewId: view.id, view: activationConfirm(origin, request, decision.plan) }, logger);
      return;
    }
    // The run does not wait for Slack: the modal says "started" while the first UISP writes go out.
    updateViewInBackground(deps.work, client, { viewId: view.id, view: activationStarted(origin, request) }, logger);
    await runActivation(deps, { request, origin: actor, startedBy: actor.userId, decided: decision });
  }));
}
