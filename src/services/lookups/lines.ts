/** Pure conversions from UISP records to the lines cards are made of. */
import { toDeviceRef } from '../activation/device-match.js';
import { clientDisplayName } from '../uisp/crm-client.js';
import { isBound } from '../sites.js';
import type { Client, Device, Service, Site } from '../uisp/schemas.js';
import type { ActivationPrefill, ClientMatch, DeviceLine } from './types.js';

/** The NMS status of a device that is up. */
const ONLINE = 'active';

export function clientMatch(client: Client): ClientMatch {
  const contact = client.contacts.find((c) => c.email || c.phone);
  const address = [client.street1, client.city].filter(Boolean).join(', ');
  return {
    id: client.id,
    name: clientDisplayName(client),
    archived: client.isArchived === true,
    address: address || null,
    email: contact?.email ?? null,
    phone: contact?.phone ?? null,
    userIdent: client.userIdent,
  };
}

export function deviceLine(device: Device, list: DeviceLine['list']): DeviceLine {
  const ref = toDeviceRef(device, list);
  const overview = device.overview;
  const status = overview?.status ?? null;
  return {
    id: ref.id,
    name: ref.name,
    model: device.identification.modelName ?? device.identification.model,
    ip: ref.ip,
    mac: ref.mac,
    status,
    online: status === ONLINE,
    signal: overview?.signal ?? null,
    uptimeSeconds: overview?.uptime ?? null,
    lastSeen: overview?.lastSeen ?? null,
    authorized: ref.authorized,
    list,
    role: ref.role,
    siteId: ref.siteId,
  };
}

/** How one of the client's own sites is known to be theirs: bound in UISP, or only by SubOps' marker (link still manual). */
export function linkedBy(site: Site, services: readonly Service[]): 'crm' | 'marker' {
  return isBound(site, services) ? 'crm' : 'marker';
}

/**
 * The name an activation of this client must be typed with: a person's first and last name; a company's
 * name split before its last word (activation matches "Bartica Marine" + "Supplies" to the company).
 */
export function activationName(client: Client): Pick<ActivationPrefill, 'firstName' | 'lastName'> {
  if (client.firstName || client.lastName) return { ...(client.firstName && { firstName: client.firstName }), ...(client.lastName && { lastName: client.lastName }) };
  const words = (client.companyName ?? '').trim().split(/\s+/).filter(Boolean);
  if (words.length < 2) return words.length ? { firstName: words[0]! } : {};
  return { firstName: words.slice(0, -1).join(' '), lastName: words.at(-1)! };
}

/** What identifies a device best in the activation form: its IP, else its MAC, else its name. */
export function deviceKey(line: DeviceLine): string {
  return line.ip ?? line.mac ?? line.name;
}
