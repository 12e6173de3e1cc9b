/**
 * The agent confirmed a plan that deletes services and/or moves the device off another client's site.
 * The run starts at once with what the confirmation showed (from private_metadata): the confirmed
 * deletes (and the new site) go out in the same wave as its fresh reads, and those reads decide the rest. If UISP changed
 * meanwhile so that the run would delete a service, or move the device off a site, the agent did not
 * see, the run refuses it and the thread says so (what was done, what was not).
 */
import type { App } from '@slack/bolt';
import { runActivation } from './run.js';
import { onceView } from '../../slack/deliveries.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { ActivationMetaSchema, decodeMetadata } from '../../slack/metadata.js';
import { activationStarted } from '../../views/activation.js';
import { CALLBACK } from '../../views/ids.js';

export function registerConfirm(app: App, deps: ListenerDeps): void {
  app.view(CALLBACK.activateConfirm, onceView(deps, async ({ ack, body, view }) => {
    const { origin, request, confirmedDeletes = [], confirmedMove, confirmedReadAt = 0, confirmedClientId, confirmedSite } = decodeMetadata(ActivationMetaSchema, view.private_metadata);
    if (!request) throw new Error('activation confirmation without a request in private_metadata');
    await ack({ response_action: 'update', view: activationStarted(origin, request) });
    await runActivation(deps, {
      request,
      origin: { ...origin, userId: body.user.id },
      startedBy: body.user.id,
      // A move is confirmed off one site only; deleting fewer services than confirmed is fine, any other is not.
      confirm: { deletes: confirmedDeletes.map((s) => s.id), ...(confirmedMove && { moveFrom: confirmedMove.siteId }) },
      confirmed: { readAt: confirmedReadAt, deletes: confirmedDeletes, ...(confirmedClientId !== undefined && { clientId: confirmedClientId }), ...(confirmedSite && { site: confirmedSite }) },
    });
  }));
}
