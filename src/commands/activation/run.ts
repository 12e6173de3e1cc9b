/**
 * Runs the activation workflow and describes its event stream for the thread reporter: the parent
 * message first, one reply per step as it happens, the parent updated to the final status, then the
 * failure report (with Retry) or the manual CRM–NMS link reminder, and the audit entry. Nothing here
 * waits for Slack before UISP: the reporter posts in the background, and Slack errors never stop the
 * workflow (not even a refused parent): the agent is told privately what was and was not changed.
 */
import type { ActivationConfirmation, ActivationRequest, ActivationResult, StepEvent } from '../../services/activation/types.js';
import type { ReadDecision } from '../../services/activation/workflow.js';
import { activationAudit } from '../../services/audit-records.js';
import { resultLists, resultSentence } from '../../render/activation.js';
import { activationFailure, activationParent, activationStep, manualLinkReminder, retryStarted } from '../../views/activation-progress.js';
import { threadNotPosted } from '../../views/thread-not-posted.js';
import { notice } from '../../views/help.js';
import { approvedNote } from '../../views/approvals.js';
import { escapeMrkdwn } from '../../slack/escape.js';
import type { ListenerDeps } from '../../slack/deps.js';
import type { Origin } from '../../slack/metadata.js';

export interface ActivationRun {
  request: ActivationRequest;
  /** Where the command ran and who is acting now. */
  origin: Origin;
  /** Who started the first run; the parent message names them. */
  startedBy: string;
  /** Set on retry: the existing parent message, whose thread the new run continues. */
  parentTs?: string;
  /** What the agent confirmed (services to delete, a device move off another client's site); Retry carries it on. */
  confirm?: ActivationConfirmation;
  /** The decision the submission (or the confirmation) has just read: the run builds on it instead of reading UISP again. */
  decided?: ReadDecision;
  /** The run needed a second pair of eyes: who approved it (named in the thread and the audit record). */
  approvedBy?: string | undefined;
  /** The approval request it runs under: Retry names it, and runs only while that approval stands. */
  approvalId?: string | undefined;
}

/** What a run came to, for whoever waits on it elsewhere (an approval's thread). */
export interface RunOutcome {
  ok: boolean;
  sentence: string;
}

/** Runs on the same device or client take turns inside ActivationService (its lock is on resolved ids). */
export async function runActivation(deps: ListenerDeps, run: ActivationRun): Promise<RunOutcome> {
  const { request, origin, startedBy, confirm, decided, approvedBy, approvalId } = run;
  const logger = deps.logger.child({ flow: 'activation', device: request.device, userId: origin.userId });

  // The parent is queued, not awaited: the first UISP requests go out while Slack answers.
  const report = deps.reporter.start({ origin, parent: activationParent({ request, startedBy }), parentTs: run.parentTs, logger, ifStopped: { kind: 'activation', retry: { request, startedBy, ...(confirm && { confirm }), ...(approvalId && { approvalId }) } } });
  if (run.parentTs) report.reply(retryStarted(origin.userId));
  if (approvedBy) report.reply(approvedNote(approvedBy));

  let result: ActivationResult | undefined;
  let manualStep: StepEvent | undefined;
  try {
    // Each step is queued for the thread and the workflow goes on at once: Slack is off UISP's critical path.
    for await (const event of deps.services.activation.run(request, { ...(confirm && { confirm }), ...(decided && { decided }) })) {
      if (event.type === 'result') result = event;
      else if (event.status === 'manual') manualStep = event;
      else report.reply(activationStep(event));
    }
  } catch (error) {
    // The workflow promises never to throw; if it does, say so rather than end silently.
    logger.error({ err: error }, 'the activation workflow threw');
  }
  const outcome: ActivationResult = result ?? { type: 'result', outcome: 'failed', failedStep: null, error: { code: 'stopped' }, done: [], notDone: [{ kind: 'unknown' }] };
  // Late duplicates the run met: one audit-channel notice each, queued (the thread does not wait for it).
  if (outcome.duplicates?.length) deps.lateDuplicates.post(outcome.duplicates, 'activation');

  report.update(activationParent({ request, startedBy, result: outcome }));
  if (outcome.outcome === 'failed') report.reply(activationFailure(request, startedBy, outcome, confirm, approvalId));
  else if (manualStep || outcome.client) report.reply(manualLinkReminder(outcome));
  // The manual CRM–NMS link is watched from here until it is made (src/commands/link-watch), in its thread.
  const thread = await report.posted();
  if (thread && outcome.outcome !== 'failed' && outcome.site && outcome.client) {
    deps.events?.links.watch({ siteId: outcome.site.id, siteName: outcome.site.name, clientId: outcome.client.id, thread });
  }

  const sentence = resultSentence(outcome);
  await report.finish({
    audit: { actorId: origin.userId, approvedBy, ...activationAudit(request, outcome, sentence) },
    whenSlackRefused: (problems, threadPosted) =>
      threadPosted ? notice(slackRefusedLines(request, outcome, problems).join('\n')) : threadNotPosted(origin.channelId, problems, notice(slackRefusedLines(request, outcome).join('\n'))),
  });
  return { ok: outcome.outcome !== 'failed', sentence };
}

/** `problems`: what Slack refused of a thread that exists; without them, nothing of the thread was posted. */
function slackRefusedLines(request: ActivationRequest, result: ActivationResult, problems?: readonly string[]): string[] {
  const unposted = !problems;
  const { done, notDone } = resultLists(result);
  const what = problems ? `:warning: Slack did not show every step of the activation of *${escapeMrkdwn(request.device)}* (${escapeMrkdwn(problems.join(', '))}).` : `Activation of *${escapeMrkdwn(request.device)}*:`;
  return [
    `${what} Outcome: *${result.outcome}*. ${escapeMrkdwn(resultSentence(result))}`,
    done.length ? `Done: ${escapeMrkdwn(done.join('; '))}` : 'Done: nothing was changed.',
    ...(notDone.length ? [`Not done: ${escapeMrkdwn(notDone.join('; '))}`] : []),
    // What the thread would have carried: Retry (a new /activate does the same) or the manual link.
    ...(unposted && result.outcome === 'failed' ? ['Run /activate again to retry: it only does what is still missing.'] : []),
    ...(unposted && result.outcome !== 'failed' && result.client ? [manualLinkReminder(result).text] : []),
  ];
}
