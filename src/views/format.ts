/** Text formatting shared by the views: money, dates, user mentions and CRM links, all mrkdwn-safe. */
import { formatMoney as moneyText } from '../services/money.js';
import { escapeEntities, escapeMrkdwn } from '../slack/escape.js';

/** The currency code comes from UISP, so it is escaped like any other UISP string. */
export function formatMoney(amount: number, currency?: string | null): string {
  return escapeMrkdwn(moneyText(amount, currency));
}

/** A Slack user mention; user ids come from Slack's signed payload, never from UISP or typed input. */
export function mention(userId: string): string {
  return `<@${userId.replace(/[^A-Z0-9]/gi, '')}>`;
}

export function channelLink(channelId: string): string {
  return `<#${channelId.replace(/[^A-Z0-9]/gi, '')}>`;
}

/**
 * A mrkdwn link whose label is escaped like any text; the URL only gets the entities Slack asks for
 * inside links (its `_` or `~` must stay as they are to lead anywhere).
 */
export function link(url: string, label: string): string {
  return `<${escapeEntities(url).replace(/\|/g, '%7C')}|${escapeMrkdwn(label).replace(/\|/g, '¦')}>`;
}

/** `YYYY-MM-DD` of an ISO timestamp as UISP sends it (the CRM's own zone offset is kept as given); anything else UISP sent, escaped. */
export function isoDate(value: string): string {
  return /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : escapeMrkdwn(value);
}
