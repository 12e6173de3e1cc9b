/**
 * The confirmed suspend or unsuspend: a message in the channel, the services layer's decision and CRM
 * call (it reads the service again right before writing), the outcome as a threaded reply (done,
 * nothing to do, refused or failed), the message updated in place, and the audit record.
 */
import type { webApi } from '@slack/bolt';
import { suspensionAudit, suspensionFailureAudit } from '../../services/audit-records.js';
import type { SuspensionService } from '../../services/suspensions.js';
import { InputError } from '../../services/errors.js';
import { channelLink } from '../../views/format.js';
import { notice } from '../../views/help.js';
import { suspensionParent, suspensionResultReply, type SuspensionResult, type SuspensionTarget } from '../../views/suspension.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { describeFailure, errorSummary } from '../../slack/errors.js';
import { escapeMrkdwn } from '../../slack/escape.js';
import type { Origin, SuspensionAction } from '../../slack/metadata.js';
import { tellAgent } from '../../slack/notify.js';

/** Reads only: the service, its client and (for suspend) the reason, or an InputError naming the field. */
export async function loadSuspensionTarget(suspensions: SuspensionService, serviceId: number, reasonId?: number): Promise<SuspensionTarget> {
  const service = await suspensions.getService(serviceId);
  const [client, reasons] = await Promise.all([suspensions.getClient(service.clientId), reasonId === undefined ? undefined : suspensions.listReasons()]);
  const reason = reasons?.find((r) => r.id === reasonId);
  if (reasons && !reason) throw new InputError('reason', `No suspension reason #${reasonId}; pick one from the list.`);
  return { service, client, reason };
}

export interface SuspensionRun {
  action: SuspensionAction;
  origin: Origin;
  target: SuspensionTarget;
}

export async function runSuspension(client: webApi.WebClient, deps: ListenerDeps, { action, origin, target }: SuspensionRun): Promise<void> {
  const { logger, services, statusLabel } = deps;
  const log = logger.child({ flow: action, serviceId: target.service.id, userId: origin.userId });
  const channel = origin.channelId;
  const slackProblems: string[] = [];
  const noteProblem = (error: unknown, what: string) => {
    log.error({ err: errorSummary(error) }, what);
    slackProblems.push(errorSummary(error).slackError ?? errorSummary(error).message);
  };

  let parentTs: string | undefined;
  try {
    parentTs = (await client.chat.postMessage({ channel, ...suspensionParent({ action, actorId: origin.userId, target }) })).ts;
  } catch (error) {
    noteProblem(error, 'could not post the suspension message');
  }
  if (!parentTs) {
    await tellAgent(client, origin, notice(`:x: I could not post in ${channelLink(channel)} (${escapeMrkdwn(slackProblems.join(', '))}). Invite me to the channel and try again. Nothing was changed.`), log);
    return;
  }

  let result: SuspensionResult;
  try {
    const outcome = action === 'suspend' ? await services.suspensions.suspend(target.service.id, target.reason!) : await services.suspensions.unsuspend(target.service.id);
    if (outcome.kind === 'refused' && outcome.detail) log.warn({ refusal: outcome.reason, detail: outcome.detail }, `${action} refused`);
    result = { ok: true, outcome };
  } catch (error) {
    const failure = describeFailure(error);
    if (!failure.expected) log.error({ err: error }, `${action} failed unexpectedly`);
    result = { ok: false, message: failure.message, changed: failure.changed };
  }

  const reply = suspensionResultReply(action, result, statusLabel);
  try {
    await client.chat.postMessage({ channel, thread_ts: parentTs, ...reply });
  } catch (error) {
    noteProblem(error, 'could not post the suspension result');
  }
  try {
    await client.chat.update({ channel, ts: parentTs, ...suspensionParent({ action, actorId: origin.userId, target, result }) });
  } catch (error) {
    noteProblem(error, 'could not update the suspension message');
  }

  const thread = { channel, ts: parentTs };
  const entry = result.ok
    ? suspensionAudit(result.outcome, statusLabel)
    : suspensionFailureAudit(action, { serviceId: target.service.id, clientId: target.client.id, ...(target.reason && { reasonId: target.reason.id }) }, result);
  await deps.audit.record({ actorId: origin.userId, ...entry, thread });

  if (slackProblems.length) await tellAgent(client, origin, reply, log);
}
