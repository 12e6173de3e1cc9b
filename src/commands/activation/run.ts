/**
 * Runs the activation workflow and renders its event stream as a thread: the parent message first,
 * one reply per step as it happens, the parent updated to the final status, then the failure report
 * (with Retry) or the manual CRM–NMS link reminder. Slack errors while rendering never stop the
 * workflow: they are logged, and the agent is told privately what was and was not changed.
 */
import type { webApi } from '@slack/bolt';
import type { ActivationConfirmation, ActivationRequest, ActivationResult, StepEvent } from '../../services/activation/types.js';
import { activationAudit } from '../../services/audit-records.js';
import { activationFailure, activationParent, activationStep, manualLinkReminder, retryStarted } from '../../views/activation-progress.js';
import { channelLink } from '../../views/format.js';
import { notice } from '../../views/help.js';
import type { SlackMessage } from '../../views/kit.js';
import { escapeMrkdwn } from '../../slack/escape.js';
import { errorSummary } from '../../slack/errors.js';
import type { ListenerDeps } from '../../slack/deps.js';
import type { Origin } from '../../slack/metadata.js';
import { tellAgent } from '../../slack/notify.js';

export interface ActivationRun {
  request: ActivationRequest;
  /** Where the command ran and who is acting now. */
  origin: Origin;
  /** Who started the first run; the parent message names them. */
  startedBy: string;
  /** Set on retry: the existing parent message, whose thread the new run continues. */
  parentTs?: string;
  /** What the agent confirmed (a device move off another client's site); Retry carries it on. */
  confirm?: ActivationConfirmation;
}

/** Runs on the same device or client take turns inside ActivationService (its lock is on resolved ids). */
export async function runActivation(client: webApi.WebClient, deps: ListenerDeps, run: ActivationRun): Promise<void> {
  const { logger, audit } = deps;
  const { request, origin, startedBy, confirm } = run;
  const channel = origin.channelId;
  const log = logger.child({ flow: 'activation', device: request.device, userId: origin.userId });
  const renderFailures: string[] = [];

  const post = async (msg: SlackMessage, threadTs?: string): Promise<string | undefined> => {
    try {
      const response = await client.chat.postMessage({ channel, ...msg, ...(threadTs && { thread_ts: threadTs }), unfurl_links: false });
      return response.ts;
    } catch (error) {
      log.error({ err: errorSummary(error) }, 'could not post activation progress');
      renderFailures.push(errorSummary(error).slackError ?? errorSummary(error).message);
      return undefined;
    }
  };

  // Nothing is written before the thread exists: if Slack refuses the parent, the agent is told and
  // UISP is untouched.
  const parentTs = run.parentTs ?? (await post(activationParent({ request, startedBy })));
  if (!parentTs) {
    await tellAgent(client, origin, notice(`:x: I could not post in ${channelLink(channel)} (${escapeMrkdwn(renderFailures.join(', '))}). Invite me to the channel (\`/invite @SubOps\`) and run /activate again. Nothing was changed.`), log);
    return;
  }
  if (run.parentTs) await post(retryStarted(origin.userId), parentTs);

  let result: ActivationResult | undefined;
  let manualStep: StepEvent | undefined;
  try {
    for await (const event of deps.services.activation.run(request, confirm ? { confirm } : {})) {
      if (event.type === 'result') result = event;
      else if (event.status === 'manual') manualStep = event;
      else await post(activationStep(event), parentTs);
    }
  } catch (error) {
    // The workflow promises never to throw; if it does, say so rather than end silently.
    log.error({ err: error }, 'the activation workflow threw');
  }
  result ??= {
    type: 'result',
    outcome: 'failed',
    message: 'The activation stopped unexpectedly; the details are in the SubOps log.',
    done: [],
    notDone: ['Unknown: check UISP, then retry (a retry only does what is still missing).'],
  };

  try {
    await client.chat.update({ channel, ts: parentTs, ...activationParent({ request, startedBy, result }) });
  } catch (error) {
    log.error({ err: errorSummary(error) }, 'could not update the activation message');
    renderFailures.push(errorSummary(error).slackError ?? errorSummary(error).message);
  }
  if (result.outcome === 'failed') await post(activationFailure(request, startedBy, result, confirm), parentTs);
  else if (manualStep || result.client) await post(manualLinkReminder(result), parentTs);
  // The manual CRM–NMS link is watched from here until it is made (src/commands/link-watch).
  if (result.outcome !== 'failed' && result.site && result.client) {
    deps.events?.links.watch({ siteId: result.site.id, siteName: result.site.name, clientId: result.client.id, thread: { channel, ts: parentTs } });
  }

  await audit.record({ actorId: origin.userId, ...activationAudit(request, result), thread: { channel, ts: parentTs } });

  if (renderFailures.length) {
    const lines = [
      `:warning: Slack did not show every step of the activation of *${escapeMrkdwn(request.device)}* (${escapeMrkdwn([...new Set(renderFailures)].join(', '))}). Outcome: *${result.outcome}*. ${escapeMrkdwn(result.message)}`,
      result.done.length ? `Done: ${escapeMrkdwn(result.done.join('; '))}` : 'Done: nothing was changed.',
      ...(result.notDone.length ? [`Not done: ${escapeMrkdwn(result.notDone.join('; '))}`] : []),
    ];
    await tellAgent(client, origin, notice(lines.join('\n')), log);
  }
}
