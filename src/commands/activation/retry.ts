/**
 * Retry on a failed activation: re-runs the (converging) workflow in the same thread. The button is
 * replaced by who retried, so the thread shows one live Retry at a time.
 *
 * A Retry that deletes services or moves a device the approval rule covers runs only under the approval
 * its run had, while the store says it stands (approved, not expired, its row sealed by the bot) and only
 * for that approval's own operation: after the expiry it asks for a new approval instead (the run's
 * thread says so); without one, or for another operation than the approved one, it runs nothing.
 */
import type { App, BlockButtonAction, webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import { approvalReasons, judgeRetry, type NamedApproval, type RetriedActivation, type RetryVerdict } from '../../services/approvals.js';
import { isTampered, readRequestById, type RequestState } from '../../slack/approval-requests.js';
import { markPressed } from '../../slack/button-marks.js';
import { errorSummary } from '../../slack/errors.js';
import { runActivation } from './run.js';
import { onceButton } from '../../slack/deliveries.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { decodeMetadata, RetryValueSchema, type Origin, type RetryValue } from '../../slack/metadata.js';
import { tellAgent } from '../../slack/notify.js';
import { approvalAskedAgain } from '../../views/approvals.js';
import { mention } from '../../views/format.js';
import { notice } from '../../views/help.js';
import { ACTION, BLOCK } from '../../views/ids.js';
import { logTampered, postApprovalRequest, TAMPERED_TEXT } from '../approvals/index.js';

export function registerRetry(app: App, deps: ListenerDeps): void {
  app.action<BlockButtonAction>(ACTION.activationRetry, onceButton(deps, async ({ ack, body, action, client }) => {
    await ack();
    const retry = decodeMetadata(RetryValueSchema, action.value);
    const { request, startedBy, confirm } = retry;
    const channelId = body.channel?.id;
    const failureReply = body.message;
    if (!channelId || !failureReply) throw new Error('Retry clicked outside a message');
    const logger = deps.logger.child({ flow: 'activation', userId: body.user.id, retry: true });
    const origin: Origin = { channelId, userId: body.user.id, ...(body.response_url && { responseUrl: body.response_url }) };
    // Bolt types a message's extra fields as any: thread_ts is a string when the reply is in a thread.
    const parentTs: string = typeof failureReply.thread_ts === 'string' ? failureReply.thread_ts : failureReply.ts;
    const judged = await judge(deps, retry, logger);
    if (!judged) return void (await tellAgent(client, origin, notice(':x: SubOps could not read the approval this activation ran under. Nothing was changed; press Retry again.'), logger));
    if (judged === 'tampered') return void (await tellAgent(client, origin, notice(TAMPERED_TEXT), logger));
    const { verdict, approval } = judged;
    const markButton = (line: string) => markPressed(deps, client, { channel: channelId, message: failureReply, blockId: BLOCK.activationRetry, fallbackText: 'Activation failed' }, line, logger);
    if (verdict.kind === 'ask-again') {
      if (verdict.why === 'expired' && approval) return askAgain(deps, client, { approval, origin, thread: { channel: channelId, ts: parentTs }, markButton, logger });
      if (verdict.why === 'other-operation') logger.warn({ approvalId: retry.approvalId }, 'a Retry names an approval of another operation: nothing ran');
      return void (await tellAgent(client, origin, notice(RETRY_NOT_APPROVED[verdict.why === 'other-operation' ? 'other-operation' : 'not-approved']), logger));
    }
    markButton(`:repeat: Retried by ${mention(body.user.id)}`);
    await runActivation(deps, { request, startedBy, ...(confirm && { confirm }), origin, parentTs, ...(verdict.approvedBy && { approvedBy: verdict.approvedBy, approvalId: retry.approvalId }) });
  }));
}

const RETRY_NOT_APPROVED = {
  'not-approved': ':lock: This Retry deletes services or moves a device, which needs approval, and no approval stands for it. Run /activate again to ask for one. Nothing was changed.',
  'other-operation': ':lock: This Retry is not the operation its approval was given for (another device, client, requester, or services to delete), so it needs an approval of its own. Run /activate again to ask for one. Nothing was changed.',
} as const;

/** The approval as the Retry rule reads it, from its verified row. */
function namedApproval({ request, decision }: RequestState): NamedApproval {
  const { operation } = request;
  const activation = operation.kind === 'activation' ? { request: operation.request, deletes: operation.confirmedDeletes.map((s) => s.id), moveFrom: operation.confirmedMove?.siteId } : undefined;
  return { decision: decision?.decision, by: decision?.by ?? '', expiresAt: request.expiresAt, requester: request.requester, activation };
}

/**
 * What this Retry may do, with the approval it names as the store holds it now; undefined when the store
 * cannot be read, 'tampered' when the row does not verify (logged).
 */
async function judge(deps: ListenerDeps, { request, startedBy, confirm, approvalId }: RetryValue, logger: Logger): Promise<{ verdict: RetryVerdict; approval: RequestState | undefined } | 'tampered' | undefined> {
  const retried: RetriedActivation = { request, startedBy, deletes: confirm?.deletes ?? [], moveFrom: confirm?.moveFrom };
  const reasons = approvalReasons(deps.approvals.settings, { kind: 'activation', deletes: retried.deletes, moveFromSite: retried.moveFrom });
  let read;
  try {
    read = reasons.length && approvalId ? await readRequestById(deps.store.approvals, deps.approvals.seal, approvalId) : undefined;
  } catch (error) {
    logger.error({ err: errorSummary(error), approvalId }, 'could not read the approval a Retry names');
    return undefined;
  }
  if (read && isTampered(read)) {
    logTampered(logger, read);
    return 'tampered';
  }
  return { verdict: judgeRetry(reasons, retried, read && namedApproval(read), deps.approvals.now()), approval: read };
}

interface AskAgain {
  approval: RequestState;
  /** Who pressed Retry, where: the new request is theirs. */
  origin: Origin;
  /** The run's thread, told what happened. */
  thread: { channel: string; ts: string };
  markButton: (line: string) => void;
  logger: Logger;
}

/** The expired approval's operation, asked for again by whoever pressed Retry; the run's thread says so. */
async function askAgain(deps: ListenerDeps, client: webApi.WebClient, { approval, origin, thread, markButton, logger }: AskAgain): Promise<void> {
  const { request } = approval;
  const outcome = await postApprovalRequest(deps, client, { origin, reasons: request.reasons, operation: request.operation, logger });
  if (outcome.posted) markButton(`:lock: Approval asked again by ${mention(origin.userId)}`);
  const reply = approvalAskedAgain(request, origin.userId, outcome.posted ? { asked: outcome.channelId } : { problem: outcome.problem });
  await deps.work
    .run(() => client.chat.postMessage({ channel: thread.channel, thread_ts: thread.ts, ...reply, unfurl_links: false }))
    .catch((error: unknown) => logger.warn({ err: errorSummary(error) }, 'could not say in the thread that the approval was asked again'));
}
