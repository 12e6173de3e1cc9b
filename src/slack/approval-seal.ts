/**
 * The bot's seal on its approval rows (issue #37 §2, §3): an HMAC, keyed from the bot's own Slack secret
 * (as ./record-seal.ts, under a label of its own), over exactly what the approver was shown (the request:
 * its kind, ids, confirmed deletes and move, requester, expiry) and the message it was shown in; and one
 * over each decision. Whoever holds DATABASE_URL or the state folder can write any row, but not one that
 * verifies: Approve, the approved run and a Retry act only on rows whose seal does.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

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

/** JSON with every object's keys sorted: the store (jsonb) hands objects back in its own order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function approvalSeal(secret: string): ApprovalSeal {
  // A key of its own: an approval seal never verifies as a record seal, a Slack signature or a token.
  const key = createHmac('sha256', secret).update('subops approval seal v1').digest();
  const mac = (what: string, value: unknown) => createHmac('sha256', key).update(canonical([what, value])).digest();
  const verifies = (expected: Buffer, seal: string | undefined) => {
    if (typeof seal !== 'string') return false;
    const actual = Buffer.from(seal, 'base64url');
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  };
  const requestFacts = ({ id, channel, ts, request }: SealedRequest) => ({ id, channel, ts, request });
  const decisionFacts = ({ requestSeal, decision, by, at }: SealedDecision) => ({ requestSeal, decision, by, at });
  return {
    request: (row) => mac('request', requestFacts(row)).toString('base64url'),
    decision: (decision) => mac('decision', decisionFacts(decision)).toString('base64url'),
    verifiesRequest: (row, seal) => verifies(mac('request', requestFacts(row)), seal),
    verifiesDecision: (decision, seal) => verifies(mac('decision', decisionFacts(decision)), seal),
  };
}

/** The bot's approval seal from its configuration: the signing secret, else the app token (the bot always has one). */
export function approvalSealOf(slack: { signingSecret?: string | undefined; appToken?: string | undefined }): ApprovalSeal {
  const secret = slack.signingSecret || slack.appToken;
  if (!secret) throw new Error('approvals need SLACK_SIGNING_SECRET or SLACK_APP_TOKEN to seal their requests');
  return approvalSeal(secret);
}
