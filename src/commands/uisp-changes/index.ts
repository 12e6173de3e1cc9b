/**
 * Changes made in UISP outside SubOps, from its CRM webhooks: one line in the audit channel per change
 * (src/views/uisp-changes.ts), and the Unsuspend button on a payment by a client whose service is
 * suspended, which runs the normal un-suspend flow (the service is read again, the result threaded,
 * the audit recorded) in the channel where the notice is.
 */
import type { App, BlockButtonAction, webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import type { PressedButton } from '../../services/suspensions.js';
import type { ChangeNotice } from '../../services/events/webhooks.js';
import { onceButton } from '../../slack/deliveries.js';
import { auditTrail } from '../../slack/audit-trail.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { describeFailure, errorSummary } from '../../slack/errors.js';
import { escapeMrkdwn } from '../../slack/escape.js';
import type { Origin } from '../../slack/metadata.js';
import { openAndFill } from '../../slack/modals.js';
import { tellAgent } from '../../slack/notify.js';
import { runSuspension, suspensionTargetOf } from '../suspension/run.js';
import { notice } from '../../views/help.js';
import { ACTION } from '../../views/ids.js';
import { suspensionConfirm, unchangedText } from '../../views/suspension.js';
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
    const { serviceId, shown } = UnsuspendValueSchema.parse(JSON.parse(action.value ?? 'null'));
    const channelId = body.channel?.id;
    if (!channelId || !body.message) throw new Error('Unsuspend clicked outside a message');
    const origin = { channelId, userId: body.user.id, ...(body.response_url && { responseUrl: body.response_url }) };
    const log = logger.child({ flow: 'unsuspend', serviceId, userId: body.user.id, from: 'uisp-payment-notice' });
    const cannotRead = async (error: unknown) => {
      const failure = describeFailure(error);
      if (!failure.expected) log.error({ err: error }, 'could not read the service to unsuspend');
      await tellAgent(client, origin, notice(`:x: ${escapeMrkdwn(failure.message)} ${escapeMrkdwn(failure.changed)}`), log);
    };
    // The notice may be old: UISP is asked whether the service is still as the button showed it.
    let pressed;
    try {
      pressed = await deps.services.suspensions.pressed('unsuspend', serviceId, shown);
    } catch (error) {
      await cannotRead(error);
      return;
    }
    if (pressed.kind === 'changed') {
      await askAgain(deps, { client, triggerId: body.trigger_id, origin, pressed, log }).catch(cannotRead);
      return;
    }
    try {
      await client.chat.update({ channel: channelId, ts: body.message.ts, text: body.message.text ?? 'Payment recorded in UISP', blocks: unsuspendPressed((body.message.blocks ?? []) as Block[], serviceId, body.user.id) });
    } catch (error) {
      log.warn({ err: errorSummary(error) }, 'could not mark the Unsuspend button as pressed');
    }
    let target;
    try {
      target = await suspensionTargetOf(deps.services.suspensions, pressed.service);
    } catch (error) {
      await cannotRead(error);
      return;
    }
    await runSuspension(deps, { action: 'unsuspend', origin, target, shown });
  }));
}

interface AskAgain {
  client: webApi.WebClient;
  triggerId: string;
  origin: Origin;
  pressed: Extract<PressedButton, { kind: 'changed' }>;
  log: Logger;
}

/**
 * UISP changed the service since the notice: nothing is written from the button. A service still
 * suspended gets the normal /unsuspend confirmation with its status and reason now; otherwise the agent
 * is told there is nothing to lift.
 */
async function askAgain(deps: ListenerDeps, { client, triggerId, origin, pressed, log }: AskAgain): Promise<void> {
  const { service, decision } = pressed;
  if (decision !== 'write') {
    await tellAgent(client, origin, notice(`:information_source: ${escapeMrkdwn(unchangedText('unsuspend', service, 'already', deps.statusLabel))} Nothing was changed.`), log);
    return;
  }
  const target = await suspensionTargetOf(deps.services.suspensions, service);
  const why = `Service #${service.id} changed in UISP since this notice was posted. Check its suspension as it is now before lifting it.`;
  const opened = await openAndFill(client, { triggerId, view: suspensionConfirm('unsuspend', origin, target, deps.statusLabel, why), logger: log });
  if (!opened) await tellAgent(client, origin, notice(`:x: Service #${service.id} changed in UISP since this notice was posted, and Slack did not open the confirmation: use \`/unsuspend ${service.id}\`. Nothing was changed.`), log);
}
