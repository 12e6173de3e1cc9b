/**
 * The words SubOps writes into the notes of the records an activation creates (documented in the README):
 * - `subops:activation` on clients and services: such a record may be removed again when it turns out to
 *   be a duplicate;
 * - `subops:run=<id>` on everything a run creates (and in its lease entries), so a record whose creation
 *   answer was lost is known as the run's own, and a new client's site is known as that client's;
 * - `subops:created=<epoch ms>` on clients and sites: when the client's lease began, which site is the oldest;
 * - on sites, whose they are: `subops:crm-client=<id>` for an existing client, `subops:new-client=<key>`
 *   for a client created in the same wave (no id yet): a key of its name, which SubOps creates once.
 */
import { createHash } from 'node:crypto';
export const ACTIVATION_MARKER = 'subops:activation';

export const runMarker = (runId: string) => `subops:run=${runId}`;

export const createdMarker = (ms: number) => `subops:created=${ms}`;

/** Whitespace- and case-insensitive, like `sameName`. */
const normalized = (name: string | null | undefined) => (name ?? '').trim().replace(/\s+/g, ' ').toLocaleLowerCase('en');

/** The site marker of a new client, from its name (a note word cannot hold the name's spaces). */
export function newClientMarker(firstName: string | null | undefined, lastName: string | null | undefined): string {
  return `subops:new-client=${createHash('sha256').update(`${normalized(firstName)}\n${normalized(lastName)}`).digest('hex').slice(0, 12)}`;
}
