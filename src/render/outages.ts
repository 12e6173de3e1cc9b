/**
 * The text of an outage in progress (src/services/outages.ts): its headline, and the customers it
 * affects, the first ten and a count of the rest. Plain text; the terminal escapes it, a Slack view
 * escapes it for mrkdwn.
 */
import { formatDuration, formatTimestamp } from '../services/lookups/format.js';
import type { AffectedCustomer, OutageInProgress, OutageNote } from '../services/outages.js';

/** Customers named in an outage's text; the rest are counted ("… and 32 more"). */
export const CUSTOMERS_SHOWN = 10;

/** "diamond-ap1 (Rocket 5AC Prism, ap, 10.20.1.2/24) and 1 more device at Diamond Tower". */
export function outageSubject(outage: Pick<OutageInProgress, 'device' | 'site' | 'devicesDown'>): string {
  const { device, site } = outage;
  const details = device ? [device.model, device.role, device.ip].filter(Boolean).join(', ') : '';
  const what = device ? `${device.name}${details ? ` (${details})` : ''}` : 'A device';
  const others = outage.devicesDown > 1 ? ` and ${outage.devicesDown - 1} more device${outage.devicesDown > 2 ? 's' : ''}` : '';
  return `${what}${others}${site ? ` at ${site.name ?? site.id}` : ''}`;
}

/** "diamond-ap1 (Rocket 5AC Prism, ap, 10.20.1.2/24) at Diamond Tower, down since 2026-11-28 14:02 UTC (1h 5m)". */
export function outageHeadline(outage: OutageInProgress, now: Date): string {
  const lasted = Math.max(0, Math.floor((now.getTime() - Date.parse(outage.since)) / 1000));
  return `${outageSubject(outage)}, down since ${formatTimestamp(outage.since)} (${formatDuration(lasted)})`;
}

/** How long something lasted: "45s" under a minute, else as durations are written ("1h 5m"). */
export function lastedText(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  return seconds < 60 ? `${seconds}s` : formatDuration(seconds);
}

/** "#1001 Marcus Baptiste: service #101 Standard Monthly (Active)". */
export function affectedCustomerLine(customer: AffectedCustomer): string {
  const who = customer.clientId === null ? `${customer.name} (site not linked to a client)` : `#${customer.clientId} ${customer.name}`;
  const { service } = customer;
  if (!service) return `${who}: no service linked`;
  const status = service.statusLabel ?? (service.status === null ? null : `status ${service.status}`);
  return `${who}: service #${service.id}${service.name ? ` ${service.name}` : ''}${status ? ` (${status})` : ''}`;
}

/** "2 customers affected:" and the first ten, then "… and N more", or "No customer affected." */
export function affectedLines(affected: readonly AffectedCustomer[]): string[] {
  if (affected.length === 0) return ['No customer affected.'];
  const rest = affected.length - CUSTOMERS_SHOWN;
  return [
    `${affected.length} customer${affected.length === 1 ? '' : 's'} affected:`,
    ...affected.slice(0, CUSTOMERS_SHOWN).map(affectedCustomerLine),
    ...(rest > 0 ? [`… and ${rest} more`] : []),
  ];
}

/** A card's line: "Affected by an outage since 2026-11-28 14:02 UTC (diamond-ap1 at Diamond Tower)". */
export function outageNoteLine(note: OutageNote): string {
  const what = [note.device, note.site].filter(Boolean).join(' at ');
  return `Affected by an outage since ${formatTimestamp(note.since)}${what ? ` (${what})` : ''}`;
}
