/**
 * Messages of an activation's progress thread: the parent (updated in place to the final status), one
 * reply per step, the failure report with its Retry button and the manual CRM–NMS link reminder.
 */
import { candidateLines, describeMove, errorSentence, resultLists, resultSentence, stepSentence } from '../render/activation.js';
import type { ActivationConfirmation, ActivationRequest, ActivationResult, StepEvent, StepStatus } from '../services/activation/types.js';
import { escapeMrkdwn } from '../slack/escape.js';
import { encodeMetadata, RetryValueSchema, type RetryValue } from '../slack/metadata.js';
import { fullName } from './activation.js';
import { link, mention } from './format.js';
import { ACTION, BLOCK } from './ids.js';
import { actions, button, capBlocks, context, message, section, sections, type Block, type SlackMessage } from './kit.js';
import { LIMITS } from './limits.js';

const STATUS_EMOJI: Record<StepStatus, string> = {
  done: ':white_check_mark:',
  skipped: ':fast_forward:',
  failed: ':x:',
  planned: ':memo:',
  manual: ':raised_hand:',
};

const STEP_LABEL: Record<StepEvent['step'], string> = {
  discover: 'Device',
  client: 'Client',
  service: 'Service',
  site: 'Site',
  authorize: 'Authorization',
  'manual-link': 'CRM–NMS link',
};

export interface ActivationParentInput {
  request: ActivationRequest;
  startedBy: string;
  /** Absent while the workflow runs. */
  result?: ActivationResult;
}

export function activationParent({ request, startedBy, result }: ActivationParentInput): SlackMessage {
  const title = `Activation of *${escapeMrkdwn(request.device)}* for ${escapeMrkdwn(fullName(request))}, started by ${mention(startedBy)}`;
  return message(`${title} — ${plainStatus(result)}`, [section(title), context(statusLine(result))]);
}

function plainStatus(result: ActivationResult | undefined): string {
  if (!result) return 'in progress';
  return result.outcome === 'failed' ? 'failed' : result.outcome === 'already-activated' ? 'already activated' : 'activated';
}

function statusLine(result: ActivationResult | undefined): string {
  if (!result) return ':hourglass_flowing_sand: In progress: each step is posted in the thread as it happens.';
  const ids = [
    result.client && `client #${result.client.id} ${escapeMrkdwn(result.client.name)}`,
    result.service && `service #${result.service.id}`,
    result.site && `site "${escapeMrkdwn(result.site.name)}"`,
    result.movedFrom && `device moved from ${escapeMrkdwn(describeMove(result.movedFrom))}`,
  ].filter(Boolean);
  switch (result.outcome) {
    case 'activated':
      return `:white_check_mark: *Activated*: ${ids.join(', ')}.`;
    case 'already-activated':
      return `:white_check_mark: *Already activated*: ${ids.join(', ')}. Nothing was changed.`;
    case 'planned':
      return ':memo: *Dry run*: nothing was written.';
    case 'failed':
      return `:x: *Failed*: ${escapeMrkdwn(fullStop(errorSentence(result.error)))} See the thread for what was done and to retry.`;
  }
}

/** An error sentence from UISP may end without one; the next sentence follows it. */
const fullStop = (text: string) => (/[.!?]$/.test(text.trim()) ? text : `${text.trimEnd()}.`);

export function activationStep(event: StepEvent): SlackMessage {
  const text = `${STATUS_EMOJI[event.status]} *${STEP_LABEL[event.step]}* (${event.status}): ${escapeMrkdwn(stepSentence(event))}`;
  const ids = Object.entries(event.ids).map(([key, value]) => `${escapeMrkdwn(key)} \`${escapeMrkdwn(String(value))}\``);
  const blocks: Block[] = [section(text)];
  if (ids.length) blocks.push(context(ids.join('  ·  ')));
  return message(text, blocks);
}

/**
 * What was done, what was not, and a Retry button that re-runs the converging workflow in this thread
 * with what the agent had confirmed.
 */
export function activationFailure(request: ActivationRequest, startedBy: string, result: ActivationResult, confirm?: ActivationConfirmation, approvalId?: string): SlackMessage {
  const sentence = resultSentence(result);
  const headline = `:x: *Activation failed.* ${escapeMrkdwn(sentence)}`;
  const code = result.outcome === 'failed' ? result.error.code : undefined;
  const candidates = result.outcome === 'failed' ? candidateLines(result.error) : [];
  const { done, notDone } = resultLists(result);
  const lists: Block[] = [];
  if (candidates.length) lists.push(...sections('*Candidates:*', candidates.map((c) => `• ${escapeMrkdwn(c)}`)));
  lists.push(...sections('*Done:*', done.length ? done.map((line) => `• ${escapeMrkdwn(line)}`) : ['• Nothing: UISP was not changed.']));
  if (notDone.length) lists.push(...sections('*Not done:*', notDone.map((line) => `• ${escapeMrkdwn(line)}`)));
  // A move or deletion nobody confirmed stays unconfirmed on Retry: the form's confirmation is where it is agreed to.
  if (code === 'device-in-use') lists.push(context('Run /activate again to see the move and confirm it.'));
  if (code === 'delete-unconfirmed') lists.push(context('Run /activate again to see what it deletes and confirm it.'));
  const tail = retryBlocks(request, startedBy, confirm, approvalId);
  // However long the lists, the Retry button must survive the 50-block cap.
  const blocks = [section(headline), ...capBlocks(lists, LIMITS.messageBlocks - 1 - tail.length), ...tail];
  return message(`Activation failed: ${escapeMrkdwn(sentence)}`, blocks);
}

/** Why Retry is safe, and the button that re-runs the activation in the same thread. */
function retryBlocks(request: ActivationRequest, startedBy: string, confirm: ActivationConfirmation | undefined, approvalId: string | undefined): Block[] {
  const retry: RetryValue = { request, startedBy, ...(confirm && { confirm }), ...(approvalId && { approvalId }) };
  return [
    context('Retrying is safe: the workflow re-reads UISP and only does what is still missing, so no client, service or site is created twice.'),
    actions(BLOCK.activationRetry, [button({ actionId: ACTION.activationRetry, text: 'Retry', style: 'primary', value: encodeMetadata(RetryValueSchema, retry) })]),
  ];
}

/**
 * What the thread says when the SubOps process running the activation stopped hard (crash, OOM kill)
 * before its end: posted by the next process (src/slack/in-flight.ts), with Retry.
 */
export function activationStopped(request: ActivationRequest, startedBy: string, confirm?: ActivationConfirmation, approvalId?: string): SlackMessage {
  // Only what is known: the thread may lag behind UISP (steps are posted as their chains end), and the
  // process may only have been slow. Retry reads UISP and finishes what is missing.
  const headline = `:warning: *SubOps stopped* before this activation of *${escapeMrkdwn(request.device)}* ended (its process was restarted, killed or stalled). UISP may hold more than this thread shows: *Retry* reads it and finishes what is missing.`;
  return message(`SubOps stopped before the activation of ${escapeMrkdwn(request.device)} ended.`, [section(headline), ...retryBlocks(request, startedBy, confirm, approvalId)]);
}

/** The last reply of a successful run: the one step SubOps never performs. */
export function manualLinkReminder(result: ActivationResult): SlackMessage {
  const text = `:raised_hand: *One manual step left:* in the CRM web interface, link ${manualLink(result)}. SubOps does not make this link.`;
  return message(text, [section(text)]);
}

/** The manual link a run leaves: `client <its CRM page> to NMS site "…" and device …`. */
export function manualLink(result: ActivationResult): string {
  const client = result.client;
  const clientText = client ? (result.crmClientUrl ? link(result.crmClientUrl, `#${client.id} ${client.name}`) : `#${client.id} ${escapeMrkdwn(client.name)}`) : 'the client';
  const site = result.site ? ` to NMS site "${escapeMrkdwn(result.site.name)}"` : '';
  const device = result.device ? ` and device ${escapeMrkdwn(result.device.name)}` : '';
  return `client ${clientText}${site}${device}`;
}

export function retryStarted(userId: string): SlackMessage {
  const text = `:repeat: Retry started by ${mention(userId)}.`;
  return message(text, [context(text)]);
}
