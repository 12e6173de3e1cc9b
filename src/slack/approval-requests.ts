/**
 * Approval requests kept in SubOps' store (src/store/approvals.ts), not in Slack: each request is a row
 * holding the request as it was confirmed (its shape: ApprovalRequestSchema in ./metadata.ts) and at most
 * one decision, made by a transaction whichever approver or replica acts first. The messages SubOps
 * posts in the approvals channel mirror the rows: nothing anyone posts in Slack can change a decision,
 * and the request message's metadata names the request only.
 *
 * The store is storage, not authority (issue #37 §2): a row counts as a request only while the bot's seal
 * over it (./approval-seal.ts) verifies, over what the approver was shown and where, and its decision
 * only with its own seal. Anything else is `tampered`: nothing acts on it. The requester's response_url
 * is not kept (it would outlive its use and is a credential to post as SubOps to them): the approved run
 * reaches the requester in the channel, else by DM.
 */
import type { Decision } from '../services/approvals.js';
import type { ApprovalBook, DecisionRow, RequestRow } from '../store/index.js';
import type { ApprovalSeal } from './approval-seal.js';
import { ApprovalRequestSchema, type ApprovalRequest, type StoredRequest } from './metadata.js';

const APPROVAL_REQUEST_EVENT = 'subops_approval_request';

/** The request message's metadata: which request it shows. */
export function requestMetadata(request: ApprovalRequest): { event_type: string; event_payload: Record<string, string> } {
  return { event_type: APPROVAL_REQUEST_EVENT, event_payload: { request_id: request.id } };
}

/** A stored request whose seals verify, with its decision when it has one; `seal` binds a decision to it. */
export type RequestState = StoredRequest & { seal: string; decision: { decision: Decision; by: string } | undefined };

/** A row that does not verify: not what SubOps wrote (or written by a newer SubOps that reads otherwise). Nothing acts on it. */
export interface TamperedRow {
  tampered: true;
  id: string;
  /** What did not verify, for the log line. */
  part: 'request' | 'decision';
}

export type ReadRow = RequestState | TamperedRow;

export const isTampered = (read: ReadRow): read is TamperedRow => 'tampered' in read;

/** The row as a request, when its seals verify over exactly what it holds. */
function stateOf(row: RequestRow, seal: ApprovalSeal): ReadRow {
  const parsed = ApprovalRequestSchema.safeParse(row.request);
  if (!parsed.success || parsed.data.id !== row.id || !row.seal || !seal.verifiesRequest({ id: row.id, channel: row.channel, ts: row.ts, request: row.request }, row.seal)) {
    return { tampered: true, id: row.id, part: 'request' };
  }
  const { decision } = row;
  if (decision && !seal.verifiesDecision({ requestSeal: row.seal, decision: decision.decision, by: decision.by, at: decision.at }, decision.seal)) return { tampered: true, id: row.id, part: 'decision' };
  return { channel: row.channel, ts: row.ts, request: parsed.data, seal: row.seal, decision: decision && { decision: decision.decision, by: decision.by } };
}

/** The request as it is kept: without the requester's response_url. */
function kept(request: ApprovalRequest): ApprovalRequest {
  const { responseUrl: _dropped, ...origin } = request.origin;
  return ApprovalRequestSchema.parse({ ...request, origin });
}

/** Records a request posted as the message at channel/ts, sealed; the request as kept (what the approved run gets). */
export async function saveRequest(book: ApprovalBook, seal: ApprovalSeal, request: ApprovalRequest, channel: string, ts: string): Promise<ApprovalRequest> {
  const stored = kept(request);
  await book.add({ id: stored.id, channel, ts, request: stored, seal: seal.request({ id: stored.id, channel, ts, request: stored }), expiresAt: stored.expiresAt });
  return stored;
}

/** A decision as the store keeps it, sealed to the request it decides. */
export function sealedDecision(seal: ApprovalSeal, stored: RequestState, decision: Decision, by: string, at: number): DecisionRow & { seal: string } {
  return { decision, by, at, seal: seal.decision({ requestSeal: stored.seal, decision, by, at }) };
}

/** The request the message at channel/ts shows, as the store holds it now. */
export async function readRequest(book: ApprovalBook, seal: ApprovalSeal, channel: string, ts: string): Promise<ReadRow | undefined> {
  const row = await book.at(channel, ts);
  return row && stateOf(row, seal);
}

/** The request of this id, as the store holds it now. */
export async function readRequestById(book: ApprovalBook, seal: ApprovalSeal, id: string): Promise<ReadRow | undefined> {
  const row = await book.byId(id);
  if (!row) return undefined;
  return row.id === id ? stateOf(row, seal) : { tampered: true, id, part: 'request' };
}

/** Every request without a decision (expired ones included: the sweep decides those), and the rows that do not verify. */
export async function readUndecided(book: ApprovalBook, seal: ApprovalSeal): Promise<{ requests: RequestState[]; tampered: TamperedRow[] }> {
  const read = { requests: [] as RequestState[], tampered: [] as TamperedRow[] };
  for (const row of await book.undecided()) {
    const state = stateOf(row, seal);
    if (isTampered(state)) read.tampered.push(state);
    else read.requests.push(state);
  }
  return read;
}
