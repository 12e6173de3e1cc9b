/** The agent confirmed: suspend or lift the suspension, with the result in the channel and the audit trail. */
import type { App } from '@slack/bolt';
import { onceView } from '../../slack/deliveries.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { describeFailure } from '../../slack/errors.js';
import { escapeMrkdwn } from '../../slack/escape.js';
import { decodeMetadata, SuspensionMetaSchema } from '../../slack/metadata.js';
import { tellAgent } from '../../slack/notify.js';
import { loadSuspensionTarget, runSuspension } from './run.js';
import { approvalReasons } from '../../services/approvals.js';
import { clientDisplayName } from '../../services/uisp/client-name.js';
import { requestApproval } from '../approvals/index.js';
import { notice } from '../../views/help.js';
import { CALLBACK } from '../../views/ids.js';
import { suspensionConfirm, suspensionSubmitted } from '../../views/suspension.js';
import { updateView } from '../../slack/modals.js';

export function registerConfirm(app: App, deps: ListenerDeps): void {
  app.view(CALLBACK.suspensionConfirm, onceView(deps, async ({ ack, body, view, client }) => {
    const meta = decodeMetadata(SuspensionMetaSchema, view.private_metadata);
    const { action, serviceId, reasonId, shown } = meta;
    if (serviceId === undefined) throw new Error('suspension confirmation without a service id in private_metadata');
    const origin = { ...meta.origin, userId: body.user.id };
    await ack({ response_action: 'update', view: suspensionSubmitted(action, origin) });
    const logger = deps.logger.child({ flow: action, userId: origin.userId, serviceId });
    let target;
    try {
      // Read again: names and status for the channel message must be current, not what the form saw.
      target = await loadSuspensionTarget(deps.services.suspensions, serviceId, reasonId);
    } catch (error) {
      const failure = describeFailure(error);
      if (!failure.expected) logger.error({ err: error }, 'suspension lookup failed');
      await tellAgent(client, origin, notice(`:x: Could not read service #${serviceId}: ${escapeMrkdwn(failure.message)} Nothing was changed.`), logger);
      return;
    }
    // UISP changed the service while the confirmation was open (lifted, then suspended again for another
    // reason): what the agent confirmed is not what would be written, so it is shown again as it is now.
    if (deps.services.suspensions.asksAgain(action, shown, target.service)) {
      const why = `Service #${serviceId} changed in UISP while this confirmation was open. Check it as it is now before confirming again.`;
      await updateView(client, { viewId: view.id, view: suspensionConfirm(action, origin, target, deps.statusLabel, why) }, logger);
      return;
    }
    // Suspensions may need a second pair of eyes (APPROVAL_REQUIRED_FOR=suspension): then this becomes a request.
    const reasons = approvalReasons(deps.approvals.settings, { kind: 'suspension', action });
    if (reasons.length) {
      const { service, client: owner } = target;
      const operation = { kind: 'suspension' as const, action, serviceId: service.id, ...(reasonId !== undefined && { reasonId }), status: service.status, clientName: clientDisplayName(owner) };
      await requestApproval(deps, client, { viewId: view.id, title: action === 'suspend' ? 'Suspend service' : 'Lift suspension', origin, reasons, operation, logger });
      return;
    }
    await runSuspension(deps, { action, origin, target, ...(action === 'unsuspend' && { shown }) });
  }));
}
