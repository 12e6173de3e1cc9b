/**
 * Finding the device an agent typed: by IP (a stored prefix like /24 is ignored), by MAC (any case,
 * any separator: colons, dashes, Cisco dots, none) or by name (name, hostname or display name,
 * case-insensitive), across the authorized and discovered lists.
 */
import { isIP } from 'node:net';
import type { Device } from '../uisp/schemas.js';
import type { DeviceQuery, DeviceRef } from './types.js';

/** 12 hex digits, or null when the text is not a MAC address. */
export function normalizeMac(text: string): string | null {
  const trimmed = text.trim();
  if (!/^[0-9a-f]{2}([:-]?)([0-9a-f]{2}\1){4}[0-9a-f]{2}$/i.test(trimmed) && !/^[0-9a-f]{4}\.[0-9a-f]{4}\.[0-9a-f]{4}$/i.test(trimmed)) return null;
  return trimmed.replace(/[^0-9a-f]/gi, '').toLowerCase();
}

const withoutPrefix = (ip: string | null): string | null => (ip ? ip.split('/')[0]!.trim().toLowerCase() : null);

export function parseDeviceQuery(text: string): DeviceQuery {
  const trimmed = text.trim();
  const ip = withoutPrefix(trimmed)!;
  if (isIP(ip)) return { kind: 'ip', ip };
  const mac = normalizeMac(trimmed);
  if (mac) return { kind: 'mac', mac };
  return { kind: 'name', name: trimmed.toLowerCase() };
}

function matches(device: Device, query: DeviceQuery): boolean {
  const id = device.identification;
  switch (query.kind) {
    case 'ip':
      return withoutPrefix(device.ipAddress) === query.ip || withoutPrefix(id.ip) === query.ip;
    case 'mac':
      return id.mac !== null && id.mac.replace(/[^0-9a-f]/gi, '').toLowerCase() === query.mac;
    case 'name':
      return [id.name, id.hostname, id.displayName].some((name) => name?.trim().toLowerCase() === query.name);
  }
}

export function toDeviceRef(device: Device, list: DeviceRef['list']): DeviceRef {
  const id = device.identification;
  return {
    id: id.id,
    name: id.displayName ?? id.name ?? id.hostname ?? id.id,
    ip: withoutPrefix(device.ipAddress ?? id.ip),
    mac: id.mac,
    list,
    siteId: id.site?.id ?? null,
    authorized: list === 'authorized' && id.authorized !== false,
    role: id.role ?? null,
  };
}

/** Every distinct device matching the query; a device listed twice counts once, as authorized. */
export function findDevices(query: DeviceQuery, authorized: Device[], discovered: Device[]): DeviceRef[] {
  const found = new Map<string, DeviceRef>();
  for (const [list, devices] of [['authorized', authorized], ['discovered', discovered]] as const) {
    for (const device of devices) {
      if (matches(device, query) && !found.has(device.identification.id)) found.set(device.identification.id, toDeviceRef(device, list));
    }
  }
  return [...found.values()];
}
