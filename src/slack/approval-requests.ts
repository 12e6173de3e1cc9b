/**
 * Approval requests kept in SubOps' store (src/store/approvals.ts), not in Slack: each request is a row
 * holding the request as it was confirmed (its shape: ApprovalRequestSchema in ./metadata.ts) and at most
 * one decision, made by a transaction whichever approver or replica acts first. The messages SubOps
 * posts in the approvals channel mirror the rows: nothing anyone posts in Slack can change a decision,
 * and the request message's metadata names the request only.
 */
import type { Decision } from '../services/approvals.js';
import type { ApprovalBook, RequestRow } from '../store/index.js';
import { ApprovalRequestSchema, type ApprovalRequest, type StoredRequest } from './metadata.js';

const APPROVAL_REQUEST_EVENT = 'subops_approval_request';

/** The request message's metadata: which request it shows. */
export function requestMetadata(request: ApprovalRequest): { event_type: string; event_payload: Record<string, string> } {
  return { event_type: APPROVAL_REQUEST_EVENT, event_payload: { request_id: request.id } };
}

/** A stored request, with its decision when it has one. */
export type RequestState = StoredRequest & { decision: { decision: Decision; by: string } | undefined };

/** The row as a request, or undefined when it does not read as one (written by a newer SubOps, say). */
function stateOf(row: RequestRow): RequestState | undefined {
  const parsed = ApprovalRequestSchema.safeParse(row.request);
  if (!parsed.success) return undefined;
  return { channel: row.channel, ts: row.ts, request: parsed.data, decision: row.decision && { decision: row.decision.decision, by: row.decision.by } };
}

/** Records a request posted as the message at channel/ts. */
export function saveRequest(book: ApprovalBook, request: ApprovalRequest, channel: string, ts: string): Promise<void> {
  return book.add({ id: request.id, channel, ts, request: ApprovalRequestSchema.parse(request), expiresAt: request.expiresAt });
}

/** The request the message at channel/ts shows, as the store holds it now. */
export async function readRequest(book: ApprovalBook, channel: string, ts: string): Promise<RequestState | undefined> {
  const row = await book.at(channel, ts);
  return row && stateOf(row);
}

/** The request of this id, as the store holds it now. */
export async function readRequestById(book: ApprovalBook, id: string): Promise<RequestState | undefined> {
  const row = await book.byId(id);
  return row && stateOf(row);
}

/** Every request without a decision (expired ones included: the sweep decides those). */
export async function readUndecided(book: ApprovalBook): Promise<StoredRequest[]> {
  return (await book.undecided()).map(stateOf).filter((state) => state !== undefined);
}
