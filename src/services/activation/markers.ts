/**
 * How SubOps recognises the records an activation created: one human-readable line in the record's
 * note (documented in docs/uisp.md, "What SubOps writes into UISP"), nothing else.
 *
 * - clients and services: `Created by SubOps (activation 3f9a1c2e)`
 * - sites: `Created by SubOps for CRM client 1002 (activation 3f9a1c2e)`: which client the site is for,
 *   so a re-run finds it before anyone links it in the CRM.
 *
 * The activation id tells a run its own records, including one whose creation answer was lost: only a
 * run's own records are ever removed by it (./writes.ts). Notes written by SubOps before this form
 * (`subops:activation`, `subops:run=<id>`, `subops:crm-client=<id>`) are still recognised when read.
 */
import { randomBytes } from 'node:crypto';

/** A new activation's id: 8 hex digits, enough to tell concurrent runs apart. */
export const newActivationId = (): string => randomBytes(4).toString('hex');

/** The note line of a client or service this activation creates. */
export const recordMarker = (activationId: string): string => `Created by SubOps (activation ${activationId})`;

/** The note line of a site this activation creates for that CRM client. */
export const siteMarker = (clientId: number, activationId: string): string => `Created by SubOps for CRM client ${clientId} (activation ${activationId})`;

const LINE = /^Created by SubOps(?: for CRM client (\d+))? \(activation ([0-9a-f]{8})\)$/;
const LEGACY_RUN = /^subops:run=([\w-]+)$/;
const LEGACY_CLIENT = /^subops:crm-client=(\d+)$/;

/** What SubOps' marker in a note says: made by SubOps, by which activation (null: unknown), for which client (sites). */
export interface Marker {
  activationId: string | null;
  clientId: number | null;
}

/** SubOps' marker in a note, or null when SubOps did not create the record. */
export function markerOf(note: string | null | undefined): Marker | null {
  let found: Marker | null = null;
  for (const raw of (note ?? '').split('\n')) {
    const line = raw.trim();
    const match = LINE.exec(line);
    if (match) return { activationId: match[2]!, clientId: match[1] === undefined ? null : Number(match[1]) };
    // The older form: whole words anywhere in the note.
    for (const word of line.split(/\s+/)) {
      const run = LEGACY_RUN.exec(word);
      const client = LEGACY_CLIENT.exec(word);
      if (word === 'subops:activation' || run || client) {
        found ??= { activationId: null, clientId: null };
        if (run) found.activationId = run[1]!;
        if (client) found.clientId = Number(client[1]);
      }
    }
  }
  return found;
}

/** Whether SubOps created the record (any activation). */
export const madeBySubOps = (note: string | null | undefined): boolean => markerOf(note) !== null;

/** Whether this activation created the record (an attempt whose answer was lost included). */
export const madeBy = (note: string | null | undefined, activationId: string): boolean => markerOf(note)?.activationId === activationId;

/** The CRM client a site's SubOps marker names, or null. */
export const markedClientId = (note: string | null | undefined): number | null => markerOf(note)?.clientId ?? null;
