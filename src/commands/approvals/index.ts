/**
 * A second pair of eyes (issue #21 §2). A confirmation whose change needs approval (services/approvals.ts)
 * becomes a request in the approvals channel instead of a run; Approve and Reject on it (or on an
 * approver's Home tab) decide it once, whichever replica or approver acts first; an approved request runs
 * as the requester's after a fresh read; a rejected or expired one writes nothing. Requester and approver
 * are named in the request's thread and in the audit record. The requests and their decisions live in
 * the store (src/slack/approval-requests.ts), so a restart or another replica picks them up where they
 * are, and nothing posted in Slack can change a decision.
 */
import { randomUUID } from 'node:crypto';
import type { App, BlockButtonAction, webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import type { AuditAction, AuditEntry } from '../../services/audit.js';
import { judgeClick, type ApprovalReason, type Decision } from '../../services/approvals.js';
import { isTampered, readRequest, readUndecided, requestMetadata, saveRequest, sealedDecision, type RequestState, type TamperedRow } from '../../slack/approval-requests.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { errorSummary } from '../../slack/errors.js';
import type { ApprovalRequest, ApprovedOperation, Origin } from '../../slack/metadata.js';
import { updateView } from '../../slack/modals.js';
import { tellAgent } from '../../slack/notify.js';
import { approvalNotPostedView, approvalRequestedView, APPROVAL_ACTION, approvalRequestMessage, decidedRequestMessage, decisionReply, outcomeReply, plainPhrase } from '../../views/approvals.js';
import { mention } from '../../views/format.js';
import { notice } from '../../views/help.js';
import { actionsOf } from '../../views/kit.js';
import { runApproved } from './run-approved.js';

export interface ApprovalAsk {
  /** The modal the requester confirmed in: it says where the request went. */
  viewId: string;
  title: string;
  origin: Origin;
  reasons: ApprovalReason[];
  operation: ApprovedOperation;
  logger: Logger;
}

/** A request posted in the approvals channel and kept in the store, or why it is not. */
export type PostedRequest = { posted: true; request: ApprovalRequest; channelId: string } | { posted: false; problem: string };

/** Posts the request in the approvals channel and keeps it in the store; nothing is written to UISP. */
export async function postApprovalRequest(deps: ListenerDeps, client: webApi.WebClient, { origin, reasons, operation, logger }: Omit<ApprovalAsk, 'viewId' | 'title'>): Promise<PostedRequest> {
  const { settings, channelId, now } = deps.approvals;
  const at = now();
  const asked: ApprovalRequest = { id: randomUUID(), requester: origin.userId, origin, requestedAt: at, expiresAt: at + settings.expiresAfterMs, reasons, operation };
  let posted: { ts?: string | undefined } | undefined;
  let request: ApprovalRequest;
  try {
    // Config makes sure a channel exists whenever approvals are required.
    posted = await client.chat.postMessage({ channel: channelId!, ...approvalRequestMessage(asked), metadata: requestMetadata(asked), unfurl_links: false });
    request = await saveRequest(deps.store.approvals, deps.approvals.seal, asked, channelId!, posted.ts!);
  } catch (error) {
    logger.error({ err: errorSummary(error), channelId }, 'could not post or store the approval request');
    // A request message the store does not hold could never be decided: take it down again.
    if (posted?.ts) await client.chat.delete({ channel: channelId!, ts: posted.ts }).catch(() => undefined);
    return { posted: false, problem: errorSummary(error).message };
  }
  logger.info({ requestId: request.id, reasons: reasons.map((r) => r.kind) }, 'approval requested');
  return { posted: true, request, channelId: channelId! };
}

/** Posts the request instead of running the operation, and says so in the requester's modal. */
export async function requestApproval(deps: ListenerDeps, client: webApi.WebClient, ask: ApprovalAsk): Promise<void> {
  const { viewId, title, logger } = ask;
  const outcome = await postApprovalRequest(deps, client, ask);
  const view = outcome.posted ? approvalRequestedView(title, outcome.request, outcome.channelId) : approvalNotPostedView(title, outcome.problem);
  await updateView(client, { viewId, view }, logger);
}

const AUDIT_ACTION = { activation: 'activate', sheet: 'activate', payment: 'payment', 'remove-duplicate': 'remove-duplicate' } as const;
const auditActionOf = (operation: ApprovedOperation): AuditAction => (operation.kind === 'suspension' ? operation.action : AUDIT_ACTION[operation.kind]);

function targetsOf(operation: ApprovedOperation): AuditEntry['targets'] {
  if (operation.kind === 'activation') return { device: operation.request.device, ...(operation.request.clientId !== undefined && { clientId: operation.request.clientId }) };
  if (operation.kind === 'suspension') return { serviceId: operation.serviceId };
  if (operation.kind === 'sheet') return { sheetRows: operation.check.rows.length };
  if (operation.kind === 'remove-duplicate') return { clientId: operation.removal.clientId, [operation.removal.record === 'client' ? 'lateClientId' : `${operation.removal.record}Id`]: operation.removal.duplicateId };
  return { clientId: operation.input.clientId };
}

/** A request that ended without a run: rejected (by whom) or expired. Requester is the actor. */
function endedAudit(request: ApprovalRequest, decision: Exclude<Decision, 'approved'>, by: string): AuditEntry {
  const targets = { ...targetsOf(request.operation), ...(decision === 'rejected' && { rejectedBy: by }) };
  const how = decision === 'rejected' ? `rejected by ${by}` : 'expired without a decision';
  return { action: auditActionOf(request.operation), targets, result: decision, ok: false, summary: `The request to ${plainPhrase(request.operation)} was ${how}: nothing was changed.` };
}

/**
 * Decides the request once: the store takes the first decision and refuses any later one (another
 * replica's or approver's), naming the standing one. The winner mirrors it in Slack (a reply in the
 * request's thread, the request message updated) and runs the operation when approved.
 */
async function decide(deps: ListenerDeps, client: webApi.WebClient, stored: RequestState, decision: Decision, by: string, logger: Logger): Promise<{ won: true } | { won: false; decision: string; by: string }> {
  const { request } = stored;
  // An approval is recorded with its run in flight, in one transaction: a process that stops at any point
  // after the decision (before its Slack calls, say) leaves the thread to be told by the next sweep.
  const intent = decision === 'approved' ? deps.reporter.inFlight?.intent({ channel: stored.channel, ts: stored.ts }, { kind: 'approved-run', requester: request.requester, approver: by }) : undefined;
  const decided = await deps.store.approvals.decide(request.id, sealedDecision(deps.approvals.seal, stored, decision, by, deps.approvals.now()), intent);
  if (!decided.won) return decided;
  logger.info({ requestId: request.id, decision, by }, 'approval request decided');
  const reply = decisionReply(request, decision, by);
  await client.chat
    .postMessage({ channel: stored.channel, thread_ts: stored.ts, ...reply, unfurl_links: false })
    .catch((error: unknown) => logger.warn({ err: errorSummary(error) }, 'could not post the decision in the approval thread (the store holds it)'));
  try {
    await client.chat.update({ channel: stored.channel, ts: stored.ts, ...decidedRequestMessage(request, decision, by) });
  } catch (error) {
    logger.warn({ err: errorSummary(error) }, 'could not mark the approval request as decided (the store holds the decision)');
  }
  if (decision !== 'approved') {
    await deps.audit.record({ actorId: request.requester, ...endedAudit(request, decision, by) });
    return { won: true };
  }
  // In flight (since the decision) until its outcome is posted.
  const inFlight = intent && deps.reporter.inFlight?.recorded(intent);
  const outcome = await runApproved(deps, request, by, logger);
  await deps.work.run(() => client.chat.postMessage({ channel: stored.channel, thread_ts: stored.ts, ...outcomeReply(request, by, outcome), unfurl_links: false })).catch((error: unknown) => {
    logger.warn({ err: errorSummary(error) }, 'could not post the outcome in the approval thread');
  });
  await inFlight?.end();
  return { won: true };
}

type ButtonBody = BlockButtonAction & { view?: { type?: string } };

/** The request a button acts on: the message it sits on, or (on the Home tab) the one its value names. */
function placeOf(body: ButtonBody, value: string | undefined): { channel: string; ts: string } | undefined {
  if (body.view?.type === 'home') {
    try {
      const where = JSON.parse(value ?? 'null') as { channel?: unknown; ts?: unknown } | null;
      return typeof where?.channel === 'string' && typeof where.ts === 'string' ? { channel: where.channel, ts: where.ts } : undefined;
    } catch {
      return undefined;
    }
  }
  // Bolt types the container loosely: read its two fields as what Slack sends.
  const container = body.container as { channel_id?: string; message_ts?: string };
  const channel = body.channel?.id ?? container.channel_id;
  const ts = body.message?.ts ?? container.message_ts;
  return channel && ts ? { channel, ts } : undefined;
}

export function register(app: App, deps: ListenerDeps): void {
  for (const approve of [true, false]) {
    app.action<BlockButtonAction>(actionsOf(approve ? APPROVAL_ACTION.approve : APPROVAL_ACTION.reject), async ({ ack, body, action, client }) => {
      await ack();
      const by = body.user.id;
      const logger = deps.logger.child({ flow: 'approval', userId: by });
      const where = placeOf(body, action.value);
      const origin = { channelId: where?.channel ?? by, userId: by, ...(body.response_url && { responseUrl: body.response_url }) };
      const tell = (text: string) => tellAgent(client, body.view?.type === 'home' ? { channelId: by, userId: by } : origin, notice(text), logger);
      // The request as the store holds it now, never as the button or the message remembers it.
      const stored = where && (await readRequest(deps.store.approvals, deps.approvals.seal, where.channel, where.ts).catch(() => undefined));
      if (!stored) return void (await tell(':x: SubOps could not read this approval request (it may have been deleted). Nothing was changed.'));
      if (isTampered(stored)) {
        logTampered(logger, stored);
        return void (await tell(TAMPERED_TEXT));
      }
      // Decided already: say by whom (a race between two deciders is settled by the store).
      if (stored.decision) return void (await tell(`This request was already ${stored.decision.decision} (by ${mention(stored.decision.by)}). Nothing else was done.`));
      const verdict = judgeClick(stored.request, { by, approve, at: deps.approvals.now() });
      if (verdict.kind === 'own-request') return void (await tell('You asked for this change: an approver other than you decides it. Nothing was changed.'));
      const decided = await decide(deps, client, stored, verdict.decision, by, logger);
      if (!decided.won) await tell(`This request was already ${decided.decision} (by ${mention(decided.by)}). Nothing else was done.`);
      else if (verdict.decision === 'expired') await tell('This request had expired: nothing was changed. The requester is told in its thread.');
    });
  }
}

/** What the person who acted on a row that does not verify is told. */
export const TAMPERED_TEXT = ':x: This approval request in SubOps\' store does not match what was posted for approval, so SubOps refuses it. Nothing was changed; ask for the change again.';

/** The log line of a row that does not verify: what an operator looks into (someone wrote the store). */
export function logTampered(logger: Logger, row: TamperedRow): void {
  logger.warn({ requestId: row.id, part: row.part }, 'an approval row in the store does not match its seal: refused (the store was written by something other than SubOps)');
}

/** The store's undecided requests that verify; each row that does not is logged and left alone. */
async function undecided(deps: Pick<ListenerDeps, 'approvals' | 'store' | 'logger'>): Promise<RequestState[]> {
  const { requests, tampered } = await readUndecided(deps.store.approvals, deps.approvals.seal);
  for (const row of tampered) logTampered(deps.logger, row);
  return requests;
}

/** The undecided requests that have not expired yet (the Home tab's lists). */
export async function pendingRequests(deps: Pick<ListenerDeps, 'approvals' | 'store' | 'logger'>): Promise<RequestState[]> {
  const { channelId, settings, now } = deps.approvals;
  if (!channelId || !settings.required.size) return [];
  const at = now();
  return (await undecided(deps)).filter((stored) => stored.request.expiresAt > at);
}

/**
 * Sets a row that does not verify aside: decided `expired` in the store only (no seal, nothing posted,
 * nothing run), so it is logged once and never read as pending again. What it says is not SubOps'.
 */
async function setAside(deps: ListenerDeps, row: TamperedRow, logger: Logger): Promise<void> {
  logTampered(logger, row);
  await deps.store.approvals.decide(row.id, { decision: 'expired', by: deps.identity.botUserId, at: deps.approvals.now(), seal: '' });
}

/** Expires every undecided request past its time (once, whichever replica gets there first); how many it expired. */
export async function sweepExpired(client: webApi.WebClient, deps: ListenerDeps): Promise<number> {
  const { channelId, settings, now } = deps.approvals;
  if (!channelId || !settings.required.size) return 0;
  const logger = deps.logger.child({ flow: 'approval-expiry' });
  const at = now();
  const { requests, tampered } = await readUndecided(deps.store.approvals, deps.approvals.seal);
  for (const row of tampered) await setAside(deps, row, logger);
  let expired = 0;
  for (const stored of requests.filter((s) => s.request.expiresAt <= at)) {
    if ((await decide(deps, client, stored, 'expired', deps.identity.botUserId, logger)).won) expired++;
  }
  return expired;
}

/**
 * Expired requests are decided by the clock: every interval, and once at start (after a restart),
 * the store's undecided requests are read and each one past its time is marked expired, its requester told.
 */
export function startApprovalWatch(client: webApi.WebClient, deps: ListenerDeps, intervalMs: number): { stop(): void } {
  const run = () =>
    void deps.work.run(() => sweepExpired(client, deps)).catch((error: unknown) => {
      deps.logger.warn({ err: errorSummary(error) }, 'could not read the approval requests to expire them; trying again later');
    });
  const timer = setInterval(run, intervalMs);
  timer.unref();
  run();
  return { stop: () => clearInterval(timer) };
}
