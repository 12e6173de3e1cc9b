/**
 * The one way SubOps vouches for what it writes to a place others may write too (the store): an HMAC
 * keyed from the bot's own Slack secret (./record-seal.ts `botSecretOf`), under a label per use, so a MAC
 * made for one use never verifies for another, nor doubles as a Slack signature or a token. What it covers
 * is canonical JSON: objects' keys sorted and undefined fields left out, so the order a store hands keys
 * back in (PostgreSQL's jsonb reorders them) changes nothing.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** JSON with every object's keys sorted and undefined fields left out. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export interface KeyedMac {
  /** The MAC of `value`, base64url. */
  make(value: unknown): string;
  /** Whether `mac` is the MAC of `value` (compared in constant time); false for anything not a string. */
  verifies(value: unknown, mac: unknown): boolean;
}

export function keyedMac(secret: string, label: string): KeyedMac {
  const key = createHmac('sha256', secret).update(label).digest();
  const digest = (value: unknown) => createHmac('sha256', key).update(canonicalJson(value)).digest();
  return {
    make: (value) => digest(value).toString('base64url'),
    verifies(value, mac) {
      if (typeof mac !== 'string') return false;
      const expected = digest(value);
      const given = Buffer.from(mac, 'base64url');
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}
