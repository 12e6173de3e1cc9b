/**
 * Messages of the manual CRM–NMS link watch: "✅ Linked in CRM" in the activation's thread (and a line on
 * its parent message), and the one reminder with the client's CRM link. Without a thread (the
 * activation's message could not be found after a restart) the same text goes to the audit channel.
 */
import type { LinkEvent, PendingLink } from '../services/events/link-watch.js';
import { escapeMrkdwn } from '../slack/escape.js';
import { link } from './format.js';
import { context, message, section, type Block, type SlackMessage } from './kit.js';

/** Metadata event type of the reminder, so a restarted SubOps sees it was already posted. */
export const LINK_REMINDER_EVENT_TYPE = 'subops_link_reminder';

const siteText = (pending: PendingLink) => `NMS site "${escapeMrkdwn(pending.siteName)}"`;
const clientText = (pending: PendingLink) => link(pending.crmClientUrl, `#${pending.clientId}`);

export function linkedReply(event: Extract<LinkEvent, { kind: 'linked' }>): SlackMessage {
  const { link: pending, boundClientId } = event;
  const text =
    boundClientId === null || boundClientId === pending.clientId
      ? `:white_check_mark: *Linked in CRM*: ${siteText(pending)} is now linked to client ${clientText(pending)}.`
      : `:warning: *Linked in CRM*, but ${siteText(pending)} is linked to client #${boundClientId}, not to client ${clientText(pending)} of this activation: check the link in the CRM.`;
  return message(text, [section(text)]);
}

export function linkReminder(pending: PendingLink, reminderHours: number): SlackMessage & { metadata: { event_type: string; event_payload: Record<string, string> } } {
  const hours = Number.isInteger(reminderHours) ? String(reminderHours) : reminderHours.toFixed(1);
  const text = `:alarm_clock: *Reminder:* ${siteText(pending)} is still not linked in the CRM, ${hours} h after the activation. In the CRM web interface, link client ${clientText(pending)} to ${siteText(pending)}.`;
  return { ...message(text, [section(text)]), metadata: { event_type: LINK_REMINDER_EVENT_TYPE, event_payload: { site_id: pending.siteId } } };
}

/** The activation's parent message, with the link noted under what it said. */
export function linkedParent(blocks: Block[]): Block[] {
  return [...blocks, context(':white_check_mark: Linked in CRM')];
}
