/**
 * Late duplicates in Slack (issue §5): the audit channel's notice (posted once per late record by
 * src/slack/duplicate-notices.ts, from an activation's result, a `/client` card or here from a UISP event
 * about a client's service) and its **Remove duplicate** button. The button reads both records again
 * (services.duplicates.remove) and removes the late one only if it is still SubOps-made and was never
 * invoiced (a site: no device, no CRM link; a client: an empty namesake of the kept one, newer, named the
 * same, no service, payment or invoice); the notice then says what happened and who pressed, and the
 * click is an audit record. A person's click (or `subops duplicates remove`, the same call) is the only way
 * SubOps removes an Active service. With APPROVAL_REQUIRED_FOR=delete-service, removing a late service (an
 * Active one) or a late client (with anything under it) is an approval request instead (issue #37 §9): the
 * removal runs, decided again on fresh reads, only once an approver other than the presser approves it.
 */
import type { App, BlockButtonAction, webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import { removalSentence } from '../../render/duplicates.js';
import { approvalReasons } from '../../services/approvals.js';
import { duplicateRemovalAudit } from '../../services/audit-records.js';
import type { RemovalOutcome } from '../../services/duplicates.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { describeFailure, errorSummary } from '../../slack/errors.js';
import { escapeMrkdwn } from '../../slack/escape.js';
import { decodeMetadata, originOfAction, RemoveDuplicateValueSchema } from '../../slack/metadata.js';
import { noticeAfterClick, removalApprovalAsked, removalLine } from '../../views/duplicates.js';
import { notice } from '../../views/help.js';
import { ACTION } from '../../views/ids.js';
import { actionsOf, type Block } from '../../views/kit.js';
import { postApprovalRequest } from '../approvals/index.js';

export function register(app: App, deps: ListenerDeps): void {
  const { events, logger } = deps;

  // A service added, edited or activated in UISP (a late create arrives this way): its client's late duplicates.
  events?.webhooks.onServiceWrite(async ({ clientId }) => {
    deps.lateDuplicates.post(await deps.services.duplicates.find(clientId), 'event');
  });

  // Not onceButton: a second press is answered from UISP ("already removed"), not from memory.
  app.action<BlockButtonAction>(actionsOf(ACTION.removeDuplicate), async ({ ack, body, action, client, respond }) => {
    await ack();
    const request = decodeMetadata(RemoveDuplicateValueSchema, action.value);
    const userId = body.user.id;
    const log = logger.child({ flow: 'remove-duplicate', record: request.record, clientId: request.clientId, duplicateId: request.duplicateId, userId });
    const tell = async (text: string) => {
      try {
        await respond({ response_type: 'ephemeral', replace_original: false, ...notice(text) });
      } catch (error) {
        log.warn({ err: errorSummary(error) }, 'could not answer the agent privately');
      }
    };

    const reasons = approvalReasons(deps.approvals.settings, { kind: 'remove-duplicate', record: request.record, duplicateId: request.duplicateId });
    if (reasons.length) {
      const asked = await postApprovalRequest(deps, client, { origin: originOfAction(body), reasons, operation: { kind: 'remove-duplicate', removal: request }, logger: log });
      await tell(removalApprovalAsked(request, asked.posted ? { asked: asked.channelId } : { problem: asked.problem }));
      return;
    }

    let outcome: RemovalOutcome;
    try {
      outcome = await deps.services.duplicates.remove(request);
    } catch (error) {
      const failure = describeFailure(error);
      if (!failure.expected) log.error({ err: error }, 'could not read UISP for Remove duplicate');
      await tell(`:x: ${escapeMrkdwn(failure.message)} Nothing was changed; press Remove duplicate again when UISP answers.`);
      return;
    }
    const sentence = removalSentence(outcome);
    log.info({ outcome: outcome.kind, ...(outcome.kind === 'refused' && { reason: outcome.refusal.reason }) }, sentence);

    const channel = body.channel?.id;
    const clicked = body.message as (ShownMessage & { ts?: string }) | undefined;
    const ts = clicked?.ts;
    const updated = channel && ts ? await updateNotice(client, { channel, ts }, outcome, removalLine(outcome, sentence, userId), clicked ?? {}, log) : false;
    // The notice already said what came of this record (a second press), or could not be updated: say it to the presser.
    if (!updated) await tell(`${outcome.kind === 'removed' ? ':wastebasket:' : ':information_source:'} ${escapeMrkdwn(sentence)}`);
    await deps.audit.record({ actorId: userId, ...duplicateRemovalAudit(outcome, sentence), ...(channel && ts && { thread: { channel, ts } }) });
  });
}

type ShownMessage = { text?: string | undefined; blocks?: unknown[] | undefined };

/**
 * Updates the notice from its blocks as they read now (another record's outcome may have been added since
 * this button was shown), else as the click carried them. False when there is nothing to update.
 */
async function updateNotice(client: webApi.WebClient, at: { channel: string; ts: string }, outcome: RemovalOutcome, line: string, clicked: ShownMessage, log: Logger): Promise<boolean> {
  let current: ShownMessage | undefined;
  try {
    const history = await client.conversations.history({ channel: at.channel, latest: at.ts, inclusive: true, limit: 1 });
    current = history.messages?.find((m) => m.ts === at.ts);
  } catch (error) {
    log.warn({ err: errorSummary(error) }, 'could not read the late-duplicate notice again; updating it as the click showed it');
  }
  const shown = current ?? clicked;
  const blocks = noticeAfterClick((shown.blocks ?? []) as Block[], outcome, line);
  if (!blocks) return false;
  try {
    await client.chat.update({ channel: at.channel, ts: at.ts, text: shown.text ?? 'Late duplicate', blocks });
    return true;
  } catch (error) {
    log.warn({ err: errorSummary(error) }, 'could not update the late-duplicate notice');
    return false;
  }
}
