/**
 * Changes made in UISP outside SubOps, from its CRM webhooks: one line in the audit channel per change
 * (src/views/uisp-changes.ts), and the Unsuspend button on a payment by a client whose service is
 * suspended, which runs the normal un-suspend flow (the service is read again, the result threaded,
 * the audit recorded) in the channel where the notice is.
 */
import type { App, BlockButtonAction } from '@slack/bolt';
import type { ChangeNotice } from '../../services/events/webhooks.js';
import { onceButton } from '../../slack/deliveries.js';
import { auditTrail } from '../../slack/audit-trail.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { describeFailure, errorSummary } from '../../slack/errors.js';
import { escapeMrkdwn } from '../../slack/escape.js';
import { tellAgent } from '../../slack/notify.js';
import { loadSuspensionTarget, runSuspension } from '../suspension/run.js';
import { notice } from '../../views/help.js';
import { ACTION } from '../../views/ids.js';
import { actionsOf, type Block } from '../../views/kit.js';
import { changeMetadata, changeNotice, UnsuspendValueSchema, unsuspendPressed, webhookFailedNotice } from '../../views/uisp-changes.js';

export function register(app: App, deps: ListenerDeps): void {
  const { events, auditChannelId, logger } = deps;
  if (!events) return;
  const crmClientUrl = (clientId: number) => deps.services.activation.crmClientUrl(clientId);

  // What other SubOps processes (CLI runs, other replicas) did is in the audit channel: not posted again.
  // Only records SubOps wrote count: another app's (or a person's) cannot hide a change made in UISP.
  if (auditChannelId) events.webhooks.recognize(auditTrail({ client: app.client, channelId: auditChannelId, identity: deps.identity }));
  events.webhooks.subscribe(async (change: ChangeNotice) => {
    if (!auditChannelId) {
      logger.info({ change: change.change.kind, uuid: change.event.uuid }, 'a change was made in UISP (AUDIT_CHANNEL_ID is not set: not posted)');
      return;
    }
    await app.client.chat.postMessage({ channel: auditChannelId, ...changeNotice(change, { crmClientUrl }), metadata: changeMetadata(change), unfurl_links: false });
  });
  // With the daily digest on, an event given up on is noted where the digest reads ("needs a person").
  if (auditChannelId && events.settings.failureNotices) {
    events.webhooks.onFailure(async (failure) => {
      await app.client.chat.postMessage({ channel: auditChannelId, ...webhookFailedNotice(failure), unfurl_links: false });
    });
  }

  app.action<BlockButtonAction>(actionsOf(ACTION.uispUnsuspend), onceButton(deps, async ({ ack, body, action, client }) => {
    await ack();
    const { serviceId } = UnsuspendValueSchema.parse(JSON.parse(action.value ?? 'null'));
    const channelId = body.channel?.id;
    if (!channelId || !body.message) throw new Error('Unsuspend clicked outside a message');
    const origin = { channelId, userId: body.user.id, ...(body.response_url && { responseUrl: body.response_url }) };
    const log = logger.child({ flow: 'unsuspend', serviceId, userId: body.user.id, from: 'uisp-payment-notice' });
    try {
      await client.chat.update({ channel: channelId, ts: body.message.ts, text: body.message.text ?? 'Payment recorded in UISP', blocks: unsuspendPressed((body.message.blocks ?? []) as Block[], serviceId, body.user.id) });
    } catch (error) {
      log.warn({ err: errorSummary(error) }, 'could not mark the Unsuspend button as pressed');
    }
    let target;
    try {
      target = await loadSuspensionTarget(deps.services.suspensions, serviceId);
    } catch (error) {
      const failure = describeFailure(error);
      if (!failure.expected) log.error({ err: error }, 'could not read the service to unsuspend');
      await tellAgent(client, origin, notice(`:x: ${escapeMrkdwn(failure.message)} ${failure.changed}`), log);
      return;
    }
    await runSuspension(deps, { action: 'unsuspend', origin, target });
  }));
}
