/**
 * The confirmed suspend or unsuspend: a message in the channel, the services layer's decision and CRM
 * call (it reads the service again right before writing), the outcome as a threaded reply (done,
 * nothing to do, refused or failed), the message updated in place, and the audit record, all through
 * the thread reporter, which never holds the CRM call back (a refused parent included: the agent then
 * gets the outcome privately).
 */
import { suspensionAudit, suspensionFailureAudit } from '../../services/audit-records.js';
import type { ShownService, SuspensionService } from '../../services/suspensions.js';
import type { Service } from '../../services/uisp/schemas.js';
import { InputError } from '../../services/errors.js';
import { threadNotPosted } from '../../views/thread-not-posted.js';
import { suspensionParent, suspensionResultReply, type SuspensionResult, type SuspensionTarget } from '../../views/suspension.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { describeFailure } from '../../slack/errors.js';
import type { Origin, SuspensionAction } from '../../slack/metadata.js';
import { approvedNote } from '../../views/approvals.js';
import type { RunOutcome } from '../activation/run.js';

/**
 * Reads only: the service, its client, (for suspend) the reason, and what a suspended service is
 * suspended for, or an InputError naming the field. The reason in force is shown, never needed: when the
 * reasons cannot be read, it is left out.
 */
export async function loadSuspensionTarget(suspensions: SuspensionService, serviceId: number, reasonId?: number): Promise<SuspensionTarget> {
  return suspensionTargetOf(suspensions, await suspensions.getService(serviceId), reasonId);
}

/** `loadSuspensionTarget` for a service just read (a button press reads it first to compare). */
export async function suspensionTargetOf(suspensions: SuspensionService, service: Service, reasonId?: number): Promise<SuspensionTarget> {
  const inForceId = suspensions.applicableAction(service) === 'unsuspend' ? service.suspensionReasonId : undefined;
  const reading = reasonId !== undefined ? suspensions.listReasons() : inForceId != null ? suspensions.listReasons().catch(() => undefined) : undefined;
  const [client, reasons] = await Promise.all([suspensions.getClient(service.clientId), reading]);
  const reason = reasonId === undefined ? undefined : reasons?.find((r) => r.id === reasonId);
  if (reasonId !== undefined && !reason) throw new InputError('reason', `No suspension reason #${reasonId}; pick one from the list.`);
  const suspendedFor = inForceId == null ? undefined : reasons?.find((r) => r.id === inForceId);
  return { service, client, reason, ...(suspendedFor && { suspendedFor }) };
}

export interface SuspensionRun {
  action: SuspensionAction;
  origin: Origin;
  target: SuspensionTarget;
  /** The change needed a second pair of eyes: who approved it. */
  approvedBy?: string | undefined;
  /** A lift: the service as the person saw it (button or confirmation); another suspension found right before the write is left alone. */
  shown?: ShownService | undefined;
}

export async function runSuspension(deps: ListenerDeps, { action, origin, target, approvedBy, shown }: SuspensionRun): Promise<RunOutcome> {
  const { services, statusLabel } = deps;
  const logger = deps.logger.child({ flow: action, serviceId: target.service.id, userId: origin.userId });
  // The parent is queued, not awaited: the CRM call goes out while Slack answers.
  const id = target.service.id;
  const report = deps.reporter.start({ origin, parent: suspensionParent({ action, actorId: origin.userId, target }), logger, ifStopped: { kind: 'suspension', action, serviceId: id, clientId: target.client.id } });
  if (approvedBy) report.reply(approvedNote(approvedBy));

  let result: SuspensionResult;
  try {
    const outcome = action === 'suspend' ? await services.suspensions.suspend(target.service.id, target.reason!) : await services.suspensions.unsuspend(target.service.id, shown);
    if (outcome.kind === 'refused' && outcome.detail) logger.warn({ refusal: outcome.reason, detail: outcome.detail }, `${action} refused`);
    result = { ok: true, outcome };
  } catch (error) {
    const failure = describeFailure(error);
    if (!failure.expected) logger.error({ err: error }, `${action} failed unexpectedly`);
    result = { ok: false, message: failure.message, changed: failure.changed };
  }

  const reply = suspensionResultReply(action, result, statusLabel);
  report.reply(reply);
  report.update(suspensionParent({ action, actorId: origin.userId, target, result }));
  const entry = result.ok
    ? suspensionAudit(result.outcome, statusLabel)
    : suspensionFailureAudit(action, { serviceId: target.service.id, clientId: target.client.id, ...(target.reason && { reasonId: target.reason.id }) }, result);
  // When Slack refused part of the thread (or all of it), the agent gets the result privately.
  await report.finish({ audit: { actorId: origin.userId, approvedBy, ...entry }, whenSlackRefused: (problems, threadPosted) => (threadPosted ? reply : threadNotPosted(origin.channelId, problems, reply)) });
  return { ok: entry.ok, sentence: entry.summary };
}
