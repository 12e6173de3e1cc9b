/**
 * The start-up line naming who may do what and which changes wait for a second person: the permissions
 * the bot runs with, after the environment, .env and compose have had their say, in one line an
 * operator (or a log search) can check. Names ids only; no secret is part of either setting.
 */
import type { ApprovalConfig } from '../config.js';
import { ACCESS_ACTIONS, type AccessAction, type AccessSettings, type Grant } from '../services/access.js';

const EVERYONE_ALLOWED = 'everyone allowed';

const ids = (grant: Grant) => [...grant.userIds, ...grant.groupIds];

export function accessSettingsLine(access: AccessSettings, approvals: ApprovalConfig): { fields: Record<string, unknown>; message: string } {
  // Actions with the same grant share one clause: "lookup, activate: everyone allowed".
  const clauses = new Map<string, AccessAction[]>();
  for (const action of ACCESS_ACTIONS) {
    const grant = access.actions[action];
    const who = grant ? ids(grant).join(', ') : EVERYONE_ALLOWED;
    clauses.set(who, [...(clauses.get(who) ?? []), action]);
  }
  const { required, paymentAbove, expiresAfterMs } = approvals.settings;
  const kinds = [...required].map((kind) => (kind === 'large-payment' ? `large-payment above ${paymentAbove}` : kind));
  const approvalText = kinds.length ? `${kinds.join(', ')}; posted in ${approvals.channelId}; expire after ${expiresAfterMs / 3_600_000} h` : 'none';
  const message = `Access: SubOps ${access.everyone ? `to ${ids(access.everyone).join(', ')}` : 'to the whole workspace'}; ${[...clauses].map(([who, actions]) => `${actions.join(', ')}: ${who}`).join('; ')}. Approvals: ${approvalText}.`;
  const fields = {
    access: { everyone: access.everyone ? ids(access.everyone) : null, actions: Object.fromEntries(ACCESS_ACTIONS.map((action) => [action, access.actions[action] ? ids(access.actions[action]) : null])) },
    approvals: { required: [...required], paymentAbove: paymentAbove ?? null, channelId: kinds.length ? approvals.channelId : null, expiresAfterMs },
  };
  return { fields, message };
}
