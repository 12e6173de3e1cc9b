/**
 * The bot's Home tab: buttons for the common actions, the agent's recent operations and the team's
 * (read back from the audit channel's message metadata), and the activations whose manual CRM–NMS link
 * is still missing (read from UISP). A part that could not be read says so; the rest is shown.
 */
import { EVERY_ACTION, type AccessAction } from '../services/access.js';
import type { types } from '@slack/bolt';
import type { MissingLink } from '../services/lookups/index.js';
import type { OutagesReading } from '../services/outages.js';
import { outageHeadline } from '../render/outages.js';
import type { StoredRequest } from '../slack/metadata.js';
import { pendingApprovalBlocks } from './approvals.js';
import { escapeMrkdwn } from '../slack/escape.js';
import { link, mention } from './format.js';
import { ACTION } from './ids.js';
import { actions, button, capBlocks, context, divider, header, modal, section, sections, textInput, type Block, type ModalView } from './kit.js';

export const HOME_ACTION = {
  activate: 'home_activate',
  sheet: 'home_sheet',
  suspend: 'home_suspend',
  unsuspend: 'home_unsuspend',
  payment: 'home_payment',
  lookupClient: 'home_lookup_client',
} as const;

/** The "Look up a client" modal opened from the Home tab. */
export const HOME_LOOKUP = { callbackId: 'home_client_lookup', blockId: 'query' } as const;

/** One audit record as read back from the audit channel. */
export interface AuditLine {
  action: string;
  result: string;
  ok: boolean;
  actor: { via: 'slack'; userId: string } | { via: 'cli'; username: string };
  summary: string;
  /** The audit message's ts (seconds since the epoch, as Slack writes it). */
  ts: string;
  /** The operation's thread: only ever one of the workspace's own permalinks (src/slack/audit-trail.ts). */
  permalink?: string | undefined;
}

/** A part of the Home tab: what was read, or why it could not be. */
export type Part<T> = { ok: true; value: T } | { ok: false; problem: string };

export interface HomeInput {
  userId: string;
  /** The agent's and the team's recent audit records, newest first; not shown to a user who may not look things up. */
  operations?: Part<{ mine: AuditLine[]; team: AuditLine[] }> | undefined;
  missingLinks?: Part<MissingLink[]> | undefined;
  /** The outages in progress (issue #40): a section while there are some, nothing when none (or the NMS lists none). */
  outages?: Part<OutagesReading> | undefined;
  /** When the tab is read: how long each outage has lasted. */
  now?: Date;
  /** The actions the user may do: only their buttons are offered. */
  allowed?: ReadonlySet<AccessAction>;
  /** With approvals configured: the user's pending requests, and (approvers only) those waiting for them. */
  approvals?: Part<{ mine: StoredRequest[]; waiting: StoredRequest[] | undefined }> | undefined;
}

const HOME_BUTTONS: { action: AccessAction; button: ReturnType<typeof button> }[] = [
  { action: 'activate', button: button({ actionId: HOME_ACTION.activate, text: 'Activate a customer', style: 'primary' }) },
  { action: 'activate', button: button({ actionId: HOME_ACTION.sheet, text: 'Install sheet' }) },
  { action: 'suspend', button: button({ actionId: HOME_ACTION.suspend, text: 'Suspend a service' }) },
  { action: 'unsuspend', button: button({ actionId: HOME_ACTION.unsuspend, text: 'Unsuspend a service' }) },
  { action: 'record-payment', button: button({ actionId: HOME_ACTION.payment, text: 'Record a payment' }) },
  { action: 'lookup', button: button({ actionId: HOME_ACTION.lookupClient, text: 'Look up a client' }) },
];

/** How many lines each list shows: the Home tab is a glance, the audit channel has the rest. */
export const HOME_LIST_LENGTH = 10;
// A Home tab holds 100 blocks; the lists are sections of several lines, so this is never reached in practice.
const HOME_BLOCKS = 100;

export function homeView({ userId, operations, missingLinks, outages, now = new Date(), allowed = EVERY_ACTION, approvals }: HomeInput): types.HomeView {
  const buttons = HOME_BUTTONS.filter((b) => allowed.has(b.action)).map((b) => b.button);
  const blocks: Block[] = [
    header('SubOps'),
    section(`Hello ${mention(userId)}: start an operation, or see what happened lately.`),
    ...(buttons.length ? [actions('home_actions', buttons)] : []),
    ...(outages ? outageBlocks(outages, now) : []),
    ...(approvals ? [divider(), ...(approvals.ok ? pendingApprovalBlocks(approvals.value.mine, approvals.value.waiting) : [section(`*Approvals*\n:warning: ${escapeMrkdwn(approvals.problem)}`)])] : []),
    ...(operations
      ? [
          divider(),
          ...operationBlocks('Your recent operations', operations.ok ? { ok: true, value: operations.value.mine } : operations, 'You have no recent operations.'),
          ...operationBlocks("The team's recent operations", operations.ok ? { ok: true, value: operations.value.team } : operations, 'No recent operations.'),
        ]
      : []),
    ...(missingLinks ? [divider(), ...missingLinkBlocks(missingLinks)] : []),
  ];
  return { type: 'home', callback_id: 'subops_home', blocks: capBlocks(blocks, HOME_BLOCKS) };
}

function operationBlocks(title: string, part: Part<AuditLine[]>, empty: string): Block[] {
  if (!part.ok) return [section(`*${title}*\n:warning: ${escapeMrkdwn(part.problem)}`)];
  if (!part.value.length) return [section(`*${title}*\n${empty}`)];
  return sections(`*${title}*`, part.value.slice(0, HOME_LIST_LENGTH).map(operationLine));
}

function operationLine(line: AuditLine): string {
  const icon = line.ok ? ':white_check_mark:' : ':x:';
  const who = line.actor.via === 'slack' ? mention(line.actor.userId) : `${escapeMrkdwn(line.actor.username)} (CLI)`;
  const when = slackDate(line.ts);
  const thread = line.permalink ? `  ·  ${link(line.permalink, 'thread')}` : '';
  return `${icon} ${when} *${escapeMrkdwn(line.action)}* by ${who}: ${escapeMrkdwn(line.result)} — ${escapeMrkdwn(line.summary)}${thread}`;
}

/** Slack renders the date in the reader's own time zone; the fallback is UTC. */
function slackDate(ts: string): string {
  const seconds = Math.floor(Number(ts));
  const fallback = `${new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return `<!date^${seconds}^{date_short} {time}|${fallback}>`;
}

/** Each outage in progress, its headline and how many customers it affects; nothing when none. */
function outageBlocks(part: Part<OutagesReading>, now: Date): Block[] {
  if (!part.ok) return [divider(), section(`*Outages in progress*\n:warning: ${escapeMrkdwn(part.problem)}`)];
  if (!part.value.available || !part.value.outages.length) return [];
  const { outages } = part.value;
  const shown = outages.slice(0, HOME_LIST_LENGTH);
  const lines = shown.map((o) => `:rotating_light: ${escapeMrkdwn(outageHeadline(o, now))} — *${o.affected.length} customer${o.affected.length === 1 ? '' : 's'} affected*`);
  const more = outages.length - shown.length;
  return [divider(), ...sections(`*Outages in progress (${outages.length})*`, lines), ...(more > 0 ? [context(`…and ${more} more: \`subops outages\` lists them all.`)] : [])];
}

function missingLinkBlocks(part: Part<MissingLink[]>): Block[] {
  const title = '*Activations awaiting the manual CRM–NMS link*';
  if (!part.ok) return [section(`${title}\n:warning: ${escapeMrkdwn(part.problem)}`)];
  if (!part.value.length) return [section(`${title}\nNone: every activated site is linked to its CRM client.`)];
  const shown = part.value.slice(0, HOME_LIST_LENGTH);
  const lines = shown.map((m) => `• NMS site "${escapeMrkdwn(m.siteName)}" → link it to client ${link(m.crmUrl, `#${m.clientId}`)} in the CRM`);
  const more = part.value.length - shown.length;
  return [...sections(title, lines), ...(more > 0 ? [context(`…and ${more} more.`)] : [])];
}

/** The Home tab's "Look up a client": one box, answered with the client's card in the agent's DM with the bot. */
export function clientLookupModal(): ModalView {
  return modal({
    callbackId: HOME_LOOKUP.callbackId,
    title: 'Look up a client',
    submit: 'Look up',
    close: 'Cancel',
    blocks: [
      textInput({ blockId: HOME_LOOKUP.blockId, actionId: ACTION.value, label: 'Client name, id or #id', placeholder: 'e.g. #1001 or kevin singh' }),
    ],
  });
}
