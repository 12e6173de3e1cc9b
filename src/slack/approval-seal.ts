/**
 * The bot's seal on its approval rows (issue #37 §2, §3): an HMAC, keyed from the bot's own Slack secret
 * (as ./record-seal.ts, under a label of its own), over exactly what the approver was shown (the request:
 * its kind, ids, confirmed deletes and move, requester, expiry) and the message it was shown in; and one
 * over each decision. Whoever holds DATABASE_URL or the state folder can write any row, but not one that
 * verifies: Approve, the approved run and a Retry act only on rows whose seal does.
 */
import { keyedMac } from './keyed-mac.js';
import { botSecretOf } from './record-seal.js';

/** What a request row vouches for: the request as posted, and where its message is. */
export interface SealedRequest {
  id: string;
  channel: string;
  ts: string;
  request: unknown;
}

/** A decision, bound to the request it decides (by that request's seal). */
export interface SealedDecision {
  requestSeal: string;
  decision: string;
  by: string;
  at: number;
}

export interface ApprovalSeal {
  request(row: SealedRequest): string;
  decision(decision: SealedDecision): string;
  verifiesRequest(row: SealedRequest, seal: string | undefined): boolean;
  verifiesDecision(decision: SealedDecision, seal: string | undefined): boolean;
}

export function approvalSeal(secret: string): ApprovalSeal {
  // A label of its own: an approval seal never verifies as a record seal, a Slack signature or a token.
  const mac = keyedMac(secret, 'subops approval seal v1');
  const requestFacts = ({ id, channel, ts, request }: SealedRequest) => ['request', { id, channel, ts, request }];
  const decisionFacts = ({ requestSeal, decision, by, at }: SealedDecision) => ['decision', { requestSeal, decision, by, at }];
  return {
    request: (row) => mac.make(requestFacts(row)),
    decision: (decision) => mac.make(decisionFacts(decision)),
    verifiesRequest: (row, seal) => mac.verifies(requestFacts(row), seal),
    verifiesDecision: (decision, seal) => mac.verifies(decisionFacts(decision), seal),
  };
}

/** The bot's approval seal from its configuration: the signing secret, else the app token (the bot always has one). */
export function approvalSealOf(slack: { signingSecret?: string | undefined; appToken?: string | undefined }): ApprovalSeal {
  const secret = botSecretOf(slack);
  if (!secret) throw new Error('approvals need SLACK_SIGNING_SECRET or SLACK_APP_TOKEN to seal their requests');
  return approvalSeal(secret);
}
