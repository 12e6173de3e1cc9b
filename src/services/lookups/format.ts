/** Plain-text wording of card values shared by the terminal and Slack (which escape it as they need). */
import { formatMoney } from '../money.js';
import type { AccountSummary, DeviceLine, ServiceLine } from './types.js';

/** 1904500 → "22d 1h"; under a day "5h 12m"; under an hour "7m". */
export function formatDuration(seconds: number): string {
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3_600);
  const minutes = Math.floor((seconds % 3_600) / 60);
  if (days) return `${days}d ${hours}h`;
  if (hours) return `${hours}h ${minutes}m`;
  return `${minutes}m`;
}

/** "GYD -20,000.00 (owes GYD 20,000.00)", "GYD 25,000.00 in credit", "GYD 0.00", or "not reported". */
export function describeAccount({ balance, outstanding, currency }: AccountSummary): string {
  if (balance === null) return outstanding ? `owes ${formatMoney(outstanding, currency)}` : 'not reported by the CRM';
  if (outstanding) return `${formatMoney(balance, currency)} (owes ${formatMoney(outstanding, currency)})`;
  return balance > 0 ? `${formatMoney(balance, currency)} in credit` : formatMoney(balance, currency);
}

/** "Suspended (Non-payment)", "Active", "Quoted". */
export function describeServiceState(service: ServiceLine): string {
  return service.suspensionReason ? `${service.statusLabel} (${service.suspensionReason})` : service.statusLabel;
}

/** "GYD 10,000.00 / month", "GYD 29,000.00 / 3 months", or null without a price. */
export function describePrice(service: ServiceLine): string | null {
  if (service.price === null) return null;
  const period = service.periodMonths === null ? '' : service.periodMonths === 1 ? ' / month' : ` / ${service.periodMonths} months`;
  return `${formatMoney(service.price, service.currency)}${period}`;
}

/** "online", "offline (disconnected), last seen 2025-11-02 08:15 UTC", "not authorized". */
export function describeDeviceState(device: DeviceLine): string {
  if (device.online) return 'online';
  if (device.list === 'discovered') return 'discovered, not authorized';
  const seen = device.lastSeen ? `, last seen ${formatTimestamp(device.lastSeen)}` : '';
  return `offline${device.status ? ` (${device.status})` : ''}${seen}`;
}

/** Signal and uptime of an online device, where it reports them: "-63 dBm · up 22d 1h" (an offline device's are stale). */
export function describeDeviceLink(device: DeviceLine): string {
  if (!device.online) return '';
  return [device.signal === null ? '' : `${device.signal} dBm`, device.uptimeSeconds === null ? '' : `up ${formatDuration(device.uptimeSeconds)}`].filter(Boolean).join(' · ');
}

/** An ISO 8601 date-time as "YYYY-MM-DD HH:MM UTC"; anything else as given. */
export function formatTimestamp(value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
