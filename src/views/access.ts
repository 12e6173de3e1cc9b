/** What a person is told when the access rule refuses them: which action needs which group or users. */
import type { AccessAction, AccessDecision } from '../services/access.js';
import { mention } from './format.js';
import { ACCESS_REFUSED } from './help.js';

export const ACTION_LABEL: Record<AccessAction, string> = {
  lookup: 'Looking up clients, devices and payments',
  activate: 'Activating a customer',
  suspend: 'Suspending a service',
  unsuspend: 'Lifting a suspension',
  'record-payment': 'Recording a payment',
  approve: 'Approving or rejecting a request',
  'acknowledge-outage': 'Acknowledging an outage and posting its updates',
};

/** A user group as Slack renders it in mrkdwn: its @handle. */
const groupMention = (groupId: string) => `<!subteam^${groupId.replace(/[^A-Z0-9]/gi, '')}>`;

/** The refusal sentence (mrkdwn); nothing was read or written when it is shown. */
export function accessRefusalText(refusal: Extract<AccessDecision, { allowed: false }>): string {
  if (!refusal.action) return ACCESS_REFUSED;
  const who = [...refusal.needs.groupIds.map(groupMention), ...refusal.needs.userIds.map(mention)];
  const holders = who.length > 1 ? `${who.slice(0, -1).join(', ')} or ${who.at(-1)}` : (who[0] ?? 'nobody');
  return `:no_entry: *${ACTION_LABEL[refusal.action]}* is for ${holders}, and you are not one of them. Ask a team lead to add you. Nothing was read or changed.`;
}
