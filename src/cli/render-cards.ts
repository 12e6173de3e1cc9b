/** Terminal lines for the lookup cards (`subops client`, `subops device`); UISP text is escaped by writeText. */
import { formatMoney } from '../services/money.js';
import { describeAccount, describeDeviceLink, describeDeviceState, describePrice, describeServiceState } from '../services/lookups/format.js';
import type { ActivationPrefill, ClientCard, ClientMatch, DeviceCard, DeviceLine } from '../services/lookups/index.js';
import { outageNoteLine } from '../render/outages.js';

const GAP_NAMES = { services: 'CRM services', payments: 'payments', nms: 'NMS sites and devices', outages: 'outages in progress' } as const;

function gapLines(gaps: ClientCard['gaps']): string[] {
  return gaps.map((gap) => `! Could not read the ${GAP_NAMES[gap.part]}: ${gap.problem}`);
}

export function deviceRow(d: DeviceLine): string {
  return `  ${[d.name, d.model ?? '', describeDeviceState(d), describeDeviceLink(d), d.ip ?? '', d.mac ?? ''].filter(Boolean).join('  ')}`;
}

function activateCommand(prefill: ActivationPrefill): string {
  const quote = (text: string) => (/^[\w.:@-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`);
  const flags = [
    prefill.device ? `--device ${quote(prefill.device)}` : '--device <ip|mac|name>',
    prefill.firstName ? `--first-name ${quote(prefill.firstName)}` : '--first-name <name>',
    prefill.lastName ? `--last-name ${quote(prefill.lastName)}` : '--last-name <name>',
    ...(prefill.clientId ? [`--client-id ${prefill.clientId}`] : []),
  ];
  return `subops activate ${flags.join(' ')}`;
}

export function renderClientCard(card: ClientCard, methodName: (id: string) => string | undefined): string[] {
  const { client } = card;
  const lines = [`Client #${client.id} ${client.name}${client.userIdent ? ` (${client.userIdent})` : ''}${client.archived ? '  [archived]' : ''}`];
  const contact = [client.address, client.email, client.phone].filter(Boolean).join(' · ');
  if (contact) lines.push(`  ${contact}`);
  lines.push(`  CRM: ${card.crmUrl}`, `  Balance: ${describeAccount(card.account)}`, ...card.outages.map((note) => `! ${outageNoteLine(note)}`), '', 'Services');
  if (!card.services.length) lines.push('  none');
  for (const s of card.services) lines.push(`  ${[`#${s.id}`, s.plan ?? s.name ?? '', describeServiceState(s), describePrice(s) ?? ''].filter(Boolean).join('  ')}`);
  const last = card.lastPayment;
  lines.push('', `Last payment: ${last ? `#${last.id} ${last.createdDate.slice(0, 10)} ${formatMoney(last.amount, last.currencyCode)}${last.methodId ? ` ${methodName(last.methodId) ?? ''}` : ''}`.trimEnd() : 'none'}`);
  for (const site of card.sites) {
    lines.push('', `NMS site "${site.name}" (${site.linkedBy === 'crm' ? 'linked in the CRM' : 'CRM link still missing: link it in the CRM'})`);
    lines.push(...(site.devices.length ? site.devices.map(deviceRow) : ['   no devices']));
  }
  if (!card.sites.length && !card.gaps.some((g) => g.part === 'nms')) lines.push('', 'NMS: no site of this client');
  const next = [
    ...card.services.filter((s) => s.action === 'suspend').map((s) => `subops suspend --service-id ${s.id} --reason <reason>`),
    ...card.services.filter((s) => s.action === 'unsuspend').map((s) => `subops unsuspend --service-id ${s.id}`),
    `subops payments add --client-id ${client.id} --amount <amount>`,
    ...(card.activate ? [activateCommand(card.activate)] : []),
  ];
  if (card.gaps.length) lines.push('', ...gapLines(card.gaps));
  if (client.archived) lines.push('', 'Archived: restore the client in the CRM before changing anything.');
  else lines.push('', 'Next:', ...next.map((command) => `  ${command}`));
  return lines;
}

export function renderClientMatches(query: string, matches: ClientMatch[]): string[] {
  return [
    `${matches.length} clients match "${query}":`,
    ...matches.map((c) => `  ${[`#${c.id}`, c.name, c.archived ? '[archived]' : '', c.address ?? '', c.email ?? '', c.phone ?? ''].filter(Boolean).join('  ')}`),
    'Show one with: subops client <id>',
  ];
}

export function renderNoClient(query: string, activate: ActivationPrefill | null): string[] {
  return [`No CRM client matches "${query}".`, ...(activate ? [`To activate a new customer: ${activateCommand(activate)}`] : [])];
}

export function renderDeviceCard(card: DeviceCard): string[] {
  const { device } = card;
  const lines = [
    `Device ${device.name}${device.model ? ` (${device.model})` : ''}`,
    `  Status: ${describeDeviceState(device)}`,
    ...(describeDeviceLink(device) ? [`  Link: ${describeDeviceLink(device)}`] : []),
    `  IP: ${device.ip ?? '-'}   MAC: ${device.mac ?? '-'}   Role: ${device.role ?? 'not reported'}`,
    `  Authorized: ${device.authorized ? 'yes' : 'no (discovered)'}`,
    `  Site: ${card.site ? `${card.site.name}${card.site.type ? ` (${card.site.type})` : ''}` : 'none'}`,
    `  Client: ${card.client ? `#${card.client.id}${card.client.name ? ` ${card.client.name}` : ' (not in the CRM)'}${card.client.archived ? ' [archived]' : ''}` : 'none'}`,
    ...card.outages.map((note) => `! ${outageNoteLine(note)}`),
  ];
  if (card.gaps.length) lines.push('', ...gapLines(card.gaps));
  if (card.activate) lines.push('', `Activate it for a customer: ${activateCommand(card.activate)}`);
  return lines;
}

export function renderDeviceMatches(query: string, matches: DeviceLine[]): string[] {
  return [`${matches.length} devices match "${query}":`, ...matches.map(deviceRow), 'Show one with: subops device <ip | mac>'];
}
