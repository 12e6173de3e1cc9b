/**
 * The outage thread (issue #40): its parent message (what is down, where, since when, whom it affects,
 * who is on it, the latest update, and ✅ with the duration once it is back), the replies in its thread,
 * the flapping notice, the update form and the "Show all" list. Pure functions of what the outage watch
 * and the people acting on it decided (src/services/events/outage-watch.ts, src/commands/outages).
 *
 * The parent's state travels in its metadata (`OUTAGE_EVENT_TYPE`, sealed by the bot when posted), so
 * another process, or this one after a restart, redraws it from the message alone.
 */
import type { OutageInProgress, SiteOutage } from '../services/outages.js';
import { affectedCustomerLine, affectedLines, CUSTOMERS_SHOWN, lastedText, outageSubject } from '../render/outages.js';
import { escapeMrkdwn } from '../slack/escape.js';
import { mention } from './format.js';
import { actions, button, context, message, modal, section, sections, textInput, type Block, type ModalView, type SlackMessage } from './kit.js';

export const OUTAGE_EVENT_TYPE = 'subops_outage';
export const OUTAGE_ACTIONS = { acknowledge: 'outage_acknowledge', update: 'outage_update', showAll: 'outage_show_all' } as const;
export const OUTAGE_UPDATE_VIEW = 'outage_update';
export const OUTAGE_NOTE_BLOCK = 'outage_note';
/** An update's note: one line or two, as a status line holds. */
export const OUTAGE_NOTE_MAX = 300;
const STATUS_BLOCK = 'outage_status';
const BUTTONS_BLOCK = 'outage_buttons';

/** What the parent message's metadata holds: the outage's identity and where its state stands. */
export interface OutageState {
  key: string;
  siteId: string;
  siteName: string;
  siteKind: 'infrastructure' | 'customer';
  deviceName: string;
  since: string;
  devicesDown: number;
  affectedCount: number;
  acknowledgedBy?: string;
  acknowledgedAt?: number;
  update?: { by: string; at: number; note: string };
  ended?: { at: string; known: boolean };
}

/** The metadata payload (flat facts, as Slack keeps them) of a state, and back. */
export function stateFacts(state: OutageState): Record<string, string | number | boolean> {
  return {
    key: state.key,
    site_id: state.siteId,
    site_name: state.siteName,
    site_kind: state.siteKind,
    device_name: state.deviceName,
    since: state.since,
    devices_down: state.devicesDown,
    affected: state.affectedCount,
    ...(state.acknowledgedBy && { ack_by: state.acknowledgedBy, ack_at: state.acknowledgedAt ?? 0 }),
    ...(state.update && { update_by: state.update.by, update_at: state.update.at, update_note: state.update.note }),
    ...(state.ended && { ended_at: state.ended.at, end_known: state.ended.known }),
  };
}

export function initialState(key: string, outage: OutageInProgress): OutageState {
  return {
    key,
    siteId: outage.site?.id ?? '',
    siteName: outage.site?.name ?? outage.site?.id ?? '',
    siteKind: outage.site?.kind ?? 'infrastructure',
    deviceName: outage.device?.name ?? 'A device',
    since: outage.since,
    devicesDown: outage.devicesDown,
    affectedCount: outage.affected.length,
  };
}

/** The outage as the watch knows it again, from a parent's state (after a takeover). */
export function outageOfState(state: OutageState): SiteOutage {
  return {
    id: state.key,
    since: state.since,
    device: { id: '', name: state.deviceName, model: null, role: null, ip: null },
    devicesDown: state.devicesDown,
    site: state.siteId ? { id: state.siteId, name: state.siteName, kind: state.siteKind } : null,
  };
}

/** Slack renders the time in the reader's zone; the fallback is UTC. */
function slackTime(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  return `<!date^${seconds}^{date_short_pretty} {time}|${new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC>`;
}

/** The parent's last lines: back up, who is on it, the latest update. */
function statusLines(state: OutageState): string[] {
  const lines: string[] = [];
  if (state.ended) {
    const lasted = lastedText(Date.parse(state.ended.at) - Date.parse(state.since));
    lines.push(state.ended.known ? `:white_check_mark: *Back up* ${slackTime(Date.parse(state.ended.at))} after ${lasted}` : `:white_check_mark: *Back up* by ${slackTime(Date.parse(state.ended.at))} (about ${lasted})`);
  }
  if (state.acknowledgedBy) lines.push(`:bust_in_silhouette: ${mention(state.acknowledgedBy)} is on it (since ${slackTime(state.acknowledgedAt ?? 0)})`);
  if (state.update) lines.push(`:memo: Latest: ${escapeMrkdwn(state.update.note)} — ${mention(state.update.by)}, ${slackTime(state.update.at)}`);
  return lines;
}

function buttons(state: OutageState): Block[] {
  const showAll = state.affectedCount > CUSTOMERS_SHOWN ? [button({ actionId: OUTAGE_ACTIONS.showAll, text: `Show all ${state.affectedCount}`, value: state.key })] : [];
  const acting = state.ended ? [] : [...(state.acknowledgedBy ? [] : [button({ actionId: OUTAGE_ACTIONS.acknowledge, text: 'Acknowledge', style: 'primary', value: state.key })]), button({ actionId: OUTAGE_ACTIONS.update, text: 'Add update', value: state.key })];
  const elements = [...acting, ...showAll];
  return elements.length ? [actions(BUTTONS_BLOCK, elements)] : [];
}

const statusBlocks = (state: OutageState): Block[] => {
  const lines = statusLines(state);
  return lines.length ? [{ ...context(lines.join('\n')), block_id: STATUS_BLOCK }] : [];
};

/** The thread's parent when the outage is first reported. */
export function outageParent(key: string, outage: OutageInProgress): { message: SlackMessage; state: OutageState } {
  const state = initialState(key, outage);
  // No "for how long": a posted message does not tick; the status line says it once the outage is over.
  const headline = `${escapeMrkdwn(outageSubject(outage))}, down since ${slackTime(Date.parse(outage.since))}`;
  const [count, ...named] = affectedLines(outage.affected);
  const blocks: Block[] = [
    section(`:red_circle: *Outage:* ${headline}`),
    ...sections(`*${escapeMrkdwn(count!)}*`, named.map(escapeMrkdwn)),
    ...buttons(state),
    ...statusBlocks(state),
  ];
  return { message: message(`Outage: ${headline}`, blocks), state };
}

/** The parent as it read, with its state redrawn: the first line's icon, the buttons and the status lines. */
export function redrawnParent(blocks: readonly Block[], state: OutageState): Block[] {
  const kept = blocks.filter((block) => block.block_id !== STATUS_BLOCK && block.block_id !== BUTTONS_BLOCK && block.type !== 'actions');
  const [first, ...rest] = kept;
  const headline = first?.type === 'section' && first.text ? { ...first, text: { ...first.text, text: first.text.text.replace(/^:(red_circle|white_check_mark): \*Outage:\*/, state.ended ? ':white_check_mark: *Outage:*' : ':red_circle: *Outage:*') } } : first;
  return [...(headline ? [headline] : []), ...rest, ...buttons(state), ...statusBlocks(state)];
}

export function recoveredReply(event: { outage: SiteOutage; end: string; endKnown: boolean }, inThread: boolean): SlackMessage {
  const lasted = lastedText(Date.parse(event.end) - Date.parse(event.outage.since));
  const what = inThread ? '' : ` ${escapeMrkdwn(outageWhat(event.outage))}`;
  const text = event.endKnown ? `:white_check_mark: *Back up*${what} ${slackTime(Date.parse(event.end))} after ${lasted}.` : `:white_check_mark: *Back up*${what}: UISP no longer lists it as down (seen ${slackTime(Date.parse(event.end))}, about ${lasted}).`;
  return message(`Back up after ${lasted}`, [section(text)]);
}

export function flappingMessage(event: { outage: SiteOutage; times: number; downMs: number; windowMs: number }): SlackMessage {
  const minutes = Math.round(event.windowMs / 60_000);
  const text = `:warning: *Flapping:* ${escapeMrkdwn(outageWhat(event.outage))} went down ${event.times} times in ${minutes} minutes, each time briefly: ${lastedText(event.downMs)} down in total.`;
  return message(`Flapping: ${escapeMrkdwn(outageWhat(event.outage))}`, [section(text)]);
}

/** "diamond-ap1 at Diamond Tower" (what the watch knows again after a takeover has no model or IP). */
function outageWhat(outage: SiteOutage): string {
  const device = outage.device?.name ?? 'A device';
  return outage.site ? `${device} at ${outage.site.name ?? outage.site.id}` : device;
}

export function acknowledgedReply(userId: string): SlackMessage {
  const text = `:bust_in_silhouette: ${mention(userId)} acknowledged: on it.`;
  return message('Acknowledged', [section(text)]);
}

export function updateReply(userId: string, note: string): SlackMessage {
  const text = `:memo: *Update* from ${mention(userId)}: ${escapeMrkdwn(note)}`;
  return message(`Update: ${escapeMrkdwn(note)}`, [section(text)]);
}

export function updateModal(privateMetadata: string): ModalView {
  return modal({
    callbackId: OUTAGE_UPDATE_VIEW,
    title: 'Outage update',
    submit: 'Post update',
    privateMetadata,
    blocks: [textInput({ blockId: OUTAGE_NOTE_BLOCK, actionId: 'value', label: 'What is the news?', multiline: true, maxLength: OUTAGE_NOTE_MAX, placeholder: 'Crew on site, replacing the AP' })],
  });
}

/** Every affected customer, as many sections as it takes (an ephemeral message: at most 50 blocks). */
export function everyAffected(outage: OutageInProgress, limitBlocks = 45): SlackMessage {
  const lines = outage.affected.map((c) => escapeMrkdwn(affectedCustomerLine(c)));
  const blocks = sections(`*${outage.affected.length} customers affected* by ${escapeMrkdwn(outageWhat(outage))}:`, lines);
  const shown = blocks.slice(0, limitBlocks);
  const cut = blocks.length > limitBlocks ? [context('More than a message holds: `subops outages --json` lists them all.')] : [];
  return message(`${outage.affected.length} customers affected`, [...shown, ...cut]);
}
