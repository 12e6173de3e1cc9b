/**
 * /client and /device: the cards, the short lists of matches and the "nothing matches" answers, as
 * ephemeral messages. Buttons carry only ids (or the activation prefill); their listeners read UISP
 * again, so a card never acts on what it showed minutes ago.
 */
import { lateDuplicateSentence } from '../render/activation.js';
import { outageNoteLine } from '../render/outages.js';
import { describeAccount, describeDeviceLink, describeDeviceState, describePrice, describeServiceState } from '../services/lookups/format.js';
import { EVERY_ACTION, type AccessAction } from '../services/access.js';
import type { ActivationPrefill, ClientCard, ClientMatch, DeviceCard, DeviceLine } from '../services/lookups/index.js';
import { escapeMrkdwn } from '../slack/escape.js';
import { ActivatePrefillSchema, encodeMetadata } from '../slack/metadata.js';
import { formatMoney, isoDate, link } from './format.js';
import { actions, button, context, divider, fields, header, message, section, sections, type Block, type SlackMessage } from './kit.js';
import { clip } from './limits.js';

export const LOOKUP_ACTION = {
  openClient: 'lookup_open_client',
  openDevice: 'lookup_open_device',
  suspend: 'lookup_suspend',
  unsuspend: 'lookup_unsuspend',
  recordPayment: 'lookup_record_payment',
  activate: 'lookup_activate',
} as const;

const LOOKUP_BLOCK = { clientActions: 'lookup_client_actions', deviceActions: 'lookup_device_actions' } as const;

/** A list longer than this asks the agent to narrow the search instead. */
export const MATCHES_SHOWN = 15;
/** Names in one-line rows are cut so a row stays a row. */
const NAME_IN_ROW = 60;

const GAP_NAMES = { services: 'CRM services', payments: 'payments', nms: 'NMS sites and devices', outages: 'outages in progress' } as const;

const outageBlocks = (outages: ClientCard['outages']): Block[] => outages.map((note) => section(`:rotating_light: *${escapeMrkdwn(outageNoteLine(note))}*`));

const gapBlocks = (gaps: ClientCard['gaps']): Block[] => gaps.map((gap) => context(`:warning: Could not read the ${GAP_NAMES[gap.part]}: ${escapeMrkdwn(gap.problem)}`));

function activateButton(prefill: ActivationPrefill, text: string): ReturnType<typeof button> {
  return button({ actionId: LOOKUP_ACTION.activate, text, value: encodeMetadata(ActivatePrefillSchema, prefill) });
}

function deviceRow(d: DeviceLine): string {
  const dot = d.online ? ':large_green_circle:' : d.list === 'discovered' ? ':white_circle:' : ':red_circle:';
  const parts = [d.model ?? '', describeDeviceState(d), describeDeviceLink(d), d.ip ?? '', d.mac ?? ''].filter(Boolean).map(escapeMrkdwn);
  return `${dot} *${escapeMrkdwn(clip(d.name, NAME_IN_ROW))}*  ${parts.join('  ·  ')}`;
}

/**
 * `allowed`: the actions the reader may do; a button for any other is not offered (a card is only
 * ever shown to the agent who asked).
 */
export function clientCardMessage(card: ClientCard, methodName: (id: string) => string | undefined = () => undefined, allowed: ReadonlySet<AccessAction> = EVERY_ACTION): SlackMessage {
  const { client } = card;
  const name = escapeMrkdwn(client.name);
  const blocks: Block[] = [header(`${client.name} · client #${client.id}`)];
  const contact = [client.userIdent, client.address, client.email, client.phone].filter((x): x is string => Boolean(x)).map(escapeMrkdwn);
  blocks.push(
    fields([`*Balance*\n${escapeMrkdwn(describeAccount(card.account))}`, `*CRM*\n${link(card.crmUrl, `Open client #${client.id}`)}`, ...(contact.length ? [`*Contact*\n${contact.join('\n')}`] : [])]),
  );
  if (client.archived) blocks.push(context(':file_cabinet: Archived in the CRM: restore the client there before changing anything.'));
  blocks.push(...outageBlocks(card.outages));

  const serviceRows = card.services.map((s) => `• *#${s.id} ${escapeMrkdwn(s.plan ?? s.name ?? 'service')}*  ${escapeMrkdwn([describeServiceState(s), describePrice(s)].filter(Boolean).join('  ·  '))}`);
  blocks.push(...sections('*Services*', serviceRows.length ? serviceRows : [card.gaps.some((g) => g.part === 'services') ? '—' : 'None.']));
  // Late duplicates (services or sites): named here; a person removes one with the audit notice's button.
  for (const duplicate of card.duplicates) blocks.push(context(`:warning: *Late duplicate:* ${escapeMrkdwn(lateDuplicateSentence(duplicate))}. Its notice in the audit channel has *Remove duplicate*.`));

  const last = card.lastPayment;
  const method = last?.methodId ? methodName(last.methodId) : undefined;
  blocks.push(section(`*Last payment*  ${last ? `\`${isoDate(last.createdDate)}\`  *${formatMoney(last.amount, last.currencyCode)}*${method ? `  ${escapeMrkdwn(method)}` : ''}  (#${last.id})` : 'none'}`));

  for (const site of card.sites) {
    const linkState = site.linkedBy === 'crm' ? 'linked in the CRM' : ':warning: CRM link still missing: link it in the CRM';
    blocks.push(...sections(`*NMS site ${escapeMrkdwn(site.name)}*  (${linkState})`, site.devices.length ? site.devices.map(deviceRow) : ['No devices.']));
  }
  if (!card.sites.length && !card.gaps.some((g) => g.part === 'nms')) blocks.push(context('No NMS site of this client.'));
  blocks.push(...gapBlocks(card.gaps));

  if (!client.archived) {
    const buttons = [
      // Action ids are unique within a block: one per service (`lookup_suspend:101`), routed by prefix.
      ...card.services.filter((s) => s.action && allowed.has(s.action)).map((s) => button({ actionId: `${LOOKUP_ACTION[s.action!]}:${s.id}`, text: `${s.action === 'suspend' ? 'Suspend' : 'Unsuspend'} #${s.id}`, value: String(s.id), ...(s.action === 'unsuspend' && { style: 'primary' as const }) })),
      ...(allowed.has('record-payment') ? [button({ actionId: LOOKUP_ACTION.recordPayment, text: 'Record payment', value: String(client.id) })] : []),
      ...(card.activate && allowed.has('activate') ? [activateButton(card.activate, 'Activate')] : []),
    ];
    if (buttons.length) blocks.push(divider(), actions(LOOKUP_BLOCK.clientActions, buttons));
  }
  return message(`Client #${client.id} ${name}: ${escapeMrkdwn(describeAccount(card.account))}`, blocks);
}

/** What each listed client's button does: open its card by default, or another flow (its payments). */
export interface ClientPick {
  actionId: string;
  text: string;
  value: (match: ClientMatch) => string;
}

const OPEN_CARD: ClientPick = { actionId: LOOKUP_ACTION.openClient, text: 'Open', value: (match) => String(match.id) };

export function clientMatchesMessage(query: string, matches: ClientMatch[], pick: ClientPick = OPEN_CARD): SlackMessage {
  const shown = matches.slice(0, MATCHES_SHOWN);
  const blocks: Block[] = [section(`*${matches.length} clients match “${escapeMrkdwn(query)}”*`)];
  for (const c of shown) {
    const details = [c.archived ? 'archived' : '', c.address ?? '', c.email ?? '', c.phone ?? ''].filter(Boolean).map(escapeMrkdwn);
    blocks.push(section(`*#${c.id} ${escapeMrkdwn(clip(c.name, NAME_IN_ROW))}*\n${details.join('  ·  ') || '—'}`, button({ actionId: `${pick.actionId}:${c.id}`, text: pick.text, value: pick.value(c) })));
  }
  if (matches.length > shown.length) blocks.push(context(`…and ${matches.length - shown.length} more: type more of the name, or the id (\`/client #1001\`).`));
  return message(`${matches.length} clients match “${escapeMrkdwn(query)}”`, blocks);
}

export function noClientMessage(query: string, activate: ActivationPrefill | null, allowed: ReadonlySet<AccessAction> = EVERY_ACTION): SlackMessage {
  const text = `No CRM client matches “${escapeMrkdwn(query)}” (active or archived).`;
  const blocks: Block[] = [section(text)];
  if (!allowed.has('activate')) return message(text, blocks);
  if (activate) blocks.push(actions(LOOKUP_BLOCK.clientActions, [activateButton(activate, 'Activate a new customer')]));
  else blocks.push(context('To add a customer, use `/activate`.'));
  return message(text, blocks);
}

export function deviceCardMessage(card: DeviceCard, allowed: ReadonlySet<AccessAction> = EVERY_ACTION): SlackMessage {
  const { device, site, client } = card;
  const owner = client ? `#${client.id}${client.name ? ` ${escapeMrkdwn(client.name)}` : ' (not in the CRM)'}${client.archived ? ' (archived)' : ''}` : 'none';
  const blocks: Block[] = [
    header(`Device ${device.name}`),
    fields([
      `*Model*\n${escapeMrkdwn(device.model ?? 'not reported')}`,
      `*Status*\n${escapeMrkdwn(describeDeviceState(device))}`,
      `*Signal · uptime*\n${escapeMrkdwn(describeDeviceLink(device) || '—')}`,
      `*IP · MAC*\n${escapeMrkdwn(device.ip ?? '—')}\n${escapeMrkdwn(device.mac ?? '—')}`,
      `*Authorized*\n${device.authorized ? 'yes' : 'no (discovered)'}`,
      `*Role*\n${escapeMrkdwn(device.role ?? 'not reported')}`,
      `*Site*\n${site ? `${escapeMrkdwn(site.name)}${site.type ? ` (${escapeMrkdwn(site.type)})` : ''}` : 'none'}`,
      `*Client*\n${owner}`,
    ]),
    ...outageBlocks(card.outages),
    ...gapBlocks(card.gaps),
  ];
  const buttons = [
    ...(card.activate && allowed.has('activate') ? [activateButton(card.activate, 'Activate for a customer')] : []),
    ...(client?.name ? [button({ actionId: LOOKUP_ACTION.openClient, text: `Open client #${client.id}`, value: String(client.id) })] : []),
  ];
  if (buttons.length) blocks.push(actions(LOOKUP_BLOCK.deviceActions, buttons));
  return message(`Device ${escapeMrkdwn(device.name)}: ${escapeMrkdwn(describeDeviceState(device))}`, blocks);
}

export function deviceMatchesMessage(query: string, matches: DeviceLine[], keyOf: (d: DeviceLine) => string): SlackMessage {
  const shown = matches.slice(0, MATCHES_SHOWN);
  const blocks: Block[] = [section(`*${matches.length} devices match “${escapeMrkdwn(query)}”*`)];
  shown.forEach((d, row) => blocks.push(section(deviceRow(d), button({ actionId: `${LOOKUP_ACTION.openDevice}:${row + 1}`, text: 'Open', value: keyOf(d) }))));
  if (matches.length > shown.length) blocks.push(context(`…and ${matches.length - shown.length} more: give the IP or MAC address.`));
  return message(`${matches.length} devices match “${escapeMrkdwn(query)}”`, blocks);
}

export function noDeviceMessage(query: string): SlackMessage {
  return message(`No NMS device matches “${escapeMrkdwn(query)}”`, [section(`No NMS device matches “${escapeMrkdwn(query)}” (IP, MAC or name; authorized and discovered devices were searched).`)]);
}
