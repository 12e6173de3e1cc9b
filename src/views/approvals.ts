/**
 * Approval requests as people see them: the request message in the approvals channel (what will change,
 * why it needs a second pair of eyes, until when, Approve and Reject), the same message once decided,
 * the decision and outcome replies in its thread, the requester's modal, and the Home tab's lists.
 */
import type { ApprovalReason, Decision } from '../services/approvals.js';
import type { ApprovalRequest, ApprovedOperation, StoredRequest } from '../slack/metadata.js';
import { escapeMrkdwn } from '../slack/escape.js';
import { fullName } from './activation.js';
import { formatMoney as moneyText } from '../services/money.js';
import { channelLink, formatMoney, mention } from './format.js';
import { CALLBACK } from './ids.js';
import { actions, button, context, header, message, modal, section, type Block, type ModalView, type SlackMessage } from './kit.js';
import { clipMrkdwn, LIMITS } from './limits.js';
import { rowsToRun, sheetPlanSections } from './sheet.js';

export const APPROVAL_ACTION = { approve: 'approval_approve', reject: 'approval_reject' } as const;

/** How a phrase shows what it names: bold and escaped in mrkdwn, as it is in plain text. */
type Naming = (text: string) => string;
const BOLD: Naming = (text) => `*${escapeMrkdwn(text)}*`;
const AS_IS: Naming = (text) => text;

function phrase(operation: ApprovedOperation, name: Naming): string {
  switch (operation.kind) {
    case 'activation':
      return `activate ${name(operation.request.device)} for ${name(fullName(operation.request))}`;
    case 'suspension':
      return `${operation.action === 'suspend' ? 'suspend' : 'lift the suspension of'} service ${name(`#${operation.serviceId}`)} of ${name(operation.clientName)}`;
    case 'payment':
      return `record a payment of ${name(moneyText(operation.input.amount, operation.currency))} for client ${name(`#${operation.input.clientId} ${operation.clientName}`)}`;
    case 'remove-duplicate': {
      const { removal } = operation;
      return `remove the late duplicate ${removal.record} ${name(`#${removal.duplicateId}`)} of client ${name(`#${removal.clientId}`)}`;
    }
    case 'sheet': {
      // The rows that run; rows in error are in the plan but never run.
      const runs = rowsToRun(operation.check.totals);
      const { inError } = operation.check.totals;
      return `run an install sheet of ${name(`${runs} row${runs === 1 ? '' : 's'}`)}${inError ? ` (and ${inError} in error, which do not run)` : ''}`;
    }
  }
}

/** What the operation will do, as a phrase after "asks to" (mrkdwn). */
export function operationPhrase(operation: ApprovedOperation): string {
  return phrase(operation, BOLD);
}

export function reasonLine(reason: ApprovalReason, currency?: string): string {
  switch (reason.kind) {
    case 'delete-service':
      if (reason.late?.record === 'client') return `Deletes client #${reason.late.id}, a late namesake, with anything under it`;
      if (reason.late) return `Deletes service #${reason.late.id}, an Active late duplicate`;
      return `Deletes ${reason.serviceIds.length === 1 ? 'service' : 'services'} ${reason.serviceIds.map((id) => `#${id}`).join(', ')} (Quoted or Obsolete)`;
    case 'move-device':
      return `Moves the device off NMS site \`${escapeMrkdwn(reason.fromSite)}\`, another client's`;
    case 'large-payment':
      return `${formatMoney(reason.amount, currency)} is above the approval limit of ${formatMoney(reason.above, currency)}`;
    case 'suspension':
      return 'Every suspension needs approval';
  }
}

const currencyOf = (operation: ApprovedOperation) => (operation.kind === 'payment' ? operation.currency : undefined);

/** Slack shows the time in the reader's own zone; the fallback is UTC. */
function when(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  return `<!date^${seconds}^{date_short_pretty} {time}|${new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC>`;
}

/** Blocks a request message keeps for its context and buttons (and one to spare), around a sheet's rows. */
const AROUND_THE_PLAN = 5;

function requestBlocks(request: ApprovalRequest): Block[] {
  const { operation } = request;
  const reasons = request.reasons.map((r) => `• ${reasonLine(r, currencyOf(operation))}`).join('\n');
  const asked = [header('Approval needed'), section(clipMrkdwn(`${mention(request.requester)} asks to ${operationPhrase(operation)}.\n${reasons}`, LIMITS.text))];
  // A sheet's approver sees the plan its requester saw in the check, row by row.
  return operation.kind === 'sheet' ? [...asked, ...sheetPlanSections(operation.check, new Set(operation.approvalRows), LIMITS.messageBlocks - asked.length - AROUND_THE_PLAN)] : asked;
}

const summaryText = (request: ApprovalRequest) => `Approval needed: ${mention(request.requester)} asks to ${operationPhrase(request.operation)}`;

/** The request as posted: Approve and Reject are for approvers other than the requester. */
export function approvalRequestMessage(request: ApprovalRequest): SlackMessage {
  return message(summaryText(request), [
    ...requestBlocks(request),
    context(`Expires ${when(request.expiresAt)}. *Approve* runs it as ${mention(request.requester)}'s, after reading UISP again; *Reject* changes nothing.`),
    actions('approval', [
      button({ actionId: APPROVAL_ACTION.approve, text: 'Approve', style: 'primary', value: request.id }),
      button({ actionId: APPROVAL_ACTION.reject, text: 'Reject', style: 'danger', value: request.id }),
    ]),
  ]);
}

const DECIDED: Record<Decision, (by: string) => string> = {
  approved: (by) => `:white_check_mark: Approved by ${mention(by)}.`,
  rejected: (by) => `:no_entry_sign: Rejected by ${mention(by)}. Nothing was changed.`,
  expired: () => ':hourglass: Expired without a decision. Nothing was changed.',
};

/** The request once decided: no buttons, and who decided. */
export function decidedRequestMessage(request: ApprovalRequest, decision: Decision, by: string): SlackMessage {
  return message(`${summaryText(request)} — ${decision}`, [...requestBlocks(request), context(DECIDED[decision](by))]);
}

/** The decision reply in the request's thread: names the requester and the approver, so both are told. */
export function decisionReply(request: ApprovalRequest, decision: Decision, by: string): SlackMessage {
  const requester = mention(request.requester);
  const text = {
    approved: `${mention(by)} approved ${requester}'s request. It runs now as ${requester}'s, after reading UISP again; the outcome follows here.`,
    rejected: `${mention(by)} rejected ${requester}'s request. Nothing was changed.`,
    expired: `${requester}, your request expired without a decision. Nothing was changed; start again if it is still needed.`,
  }[decision];
  return message(text, [section(text)]);
}

/**
 * What the request's thread says when the SubOps process carrying out the approved change stopped hard
 * before its end (posted by the next process: src/slack/in-flight.ts).
 */
export function approvedRunStopped(requester: string, approver: string): SlackMessage {
  const text = `${mention(requester)} ${mention(approver)} :warning: *SubOps stopped* while carrying out this approved change (its process was restarted or killed): it may be done in part, or not at all. Look at its own thread, if one was started, before asking again; a new request reads UISP afresh.`;
  return message(text, [section(text)]);
}

/**
 * Retry on a failed approved run whose approval has expired, in the run's thread: nothing ran, and a new
 * request went to the approvals channel (`asked`), or could not be posted (`problem`).
 */
export function approvalAskedAgain(expired: ApprovalRequest, by: string, outcome: { asked: string } | { problem: string }): SlackMessage {
  const then = `:lock: ${mention(by)}, the approval of this activation has expired (${when(expired.expiresAt)}), so Retry did not run it. Nothing was changed.`;
  const now = 'asked' in outcome ? `A new approval request is in ${channelLink(outcome.asked)}: once approved, it runs after reading UISP again.` : `A new approval request could not be posted (${escapeMrkdwn(outcome.problem)}); press Retry again.`;
  const text = `${then} ${now}`;
  return message(text, [section(text)]);
}

/** The approved operation's outcome, in the request's thread, for the requester and the approver; `sentence` is plain text that quotes UISP. */
export function outcomeReply(request: ApprovalRequest, approver: string, outcome: { ok: boolean; sentence: string }): SlackMessage {
  const text = `${mention(request.requester)} ${mention(approver)} ${outcome.ok ? ':white_check_mark:' : ':x:'} ${escapeMrkdwn(outcome.sentence)}`;
  return message(text, [section(text)]);
}

/** The operation in plain text (audit summaries, logs): no mrkdwn, names as UISP and the agent gave them. */
export function plainPhrase(operation: ApprovedOperation): string {
  return phrase(operation, AS_IS);
}

/** The requester's modal when the request could not be posted: nothing was written. */
export function approvalNotPostedView(title: string, problem: string): ModalView {
  return modal({ callbackId: CALLBACK.info, title, close: 'Close', blocks: [section(`:x: Could not post the approval request (${escapeMrkdwn(problem)}). Nothing was changed; try again.`)] });
}

/** The first reply of an approved operation's own thread. */
export function approvedNote(approver: string): SlackMessage {
  const text = `:white_check_mark: Approved by ${mention(approver)}.`;
  return message(text, [context(text)]);
}

/** The requester's modal once the request is posted: nothing is written until someone else approves. */
export function approvalRequestedView(title: string, request: ApprovalRequest, channelId: string): ModalView {
  const reasons = request.reasons.map((r) => `• ${reasonLine(r, currencyOf(request.operation))}`).join('\n');
  return modal({
    callbackId: CALLBACK.info,
    title,
    close: 'Close',
    blocks: [
      section(clipMrkdwn(`:raised_hand: *Sent for approval* in ${channelLink(channelId)}:\n${reasons}`, LIMITS.text)),
      context(`Nothing is changed until an approver other than you approves it. It expires ${when(request.expiresAt)}. You are told the outcome in its thread.`),
    ],
  });
}

/** The Home tab's part: the user's own pending requests, and (for approvers) those waiting for them, with the buttons. */
export function pendingApprovalBlocks(mine: StoredRequest[], waiting: StoredRequest[] | undefined): Block[] {
  const line = ({ request }: StoredRequest) => `• ${operationPhrase(request.operation)} — expires ${when(request.expiresAt)}`;
  const blocks: Block[] = [section(`*Your requests awaiting approval*\n${mine.length ? mine.map(line).join('\n') : 'None.'}`)];
  if (!waiting) return blocks;
  blocks.push(section(`*Waiting for your approval*${waiting.length ? '' : '\nNothing.'}`));
  for (const stored of waiting) {
    const where = JSON.stringify({ channel: stored.channel, ts: stored.ts });
    blocks.push(
      section(clipMrkdwn(`${mention(stored.request.requester)} asks to ${operationPhrase(stored.request.operation)}.\n${stored.request.reasons.map((r) => reasonLine(r, currencyOf(stored.request.operation))).join('; ')}`, LIMITS.text)),
      actions(`approval_${stored.request.id}`, [
        button({ actionId: `${APPROVAL_ACTION.approve}:${stored.request.id}`, text: 'Approve', style: 'primary', value: where }),
        button({ actionId: `${APPROVAL_ACTION.reject}:${stored.request.id}`, text: 'Reject', style: 'danger', value: where }),
      ]),
    );
  }
  return blocks;
}
