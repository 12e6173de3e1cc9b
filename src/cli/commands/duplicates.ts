/**
 * `subops duplicates remove`: the Slack notice's **Remove duplicate**, from a terminal. The late record
 * is named as `subops activate` names it (the client, and the late service, site or namesake client);
 * the services layer reads UISP, finds the record activations keep beside it, and `remove` reads both
 * again and removes the late one only when the button would: the same checks, the same refusals, the
 * same sentences (src/render/duplicates.ts) and the same audit record. A removal needs confirmation:
 * asked on a terminal (y/N), --yes elsewhere.
 */
import { removalSentence } from '../../render/duplicates.js';
import { duplicateRemovalAudit } from '../../services/audit-records.js';
import type { RemovalRequest } from '../../services/duplicates.js';
import { readId, readLine } from '../../services/input/grammar.js';
import { connect } from '../../connect.js';
import { canAsk } from '../../process/io.js';
import { YES_FLAG } from '../../process/flags.js';
import { confirm } from '../../process/prompt.js';
import { unknownSubcommand } from '../../process/suggest.js';
import { flagValue, parseFlags } from '../args.js';
import { openCliAudit } from '../audit.js';
import { debugNotice } from '../connection.js';
import { EXIT, UsageError, writeLine, writeText, type CliIo } from '../io.js';
import { errorJson, jsonLine, removalJson } from '../json.js';

export const duplicatesHelp = `Usage: subops duplicates remove --client-id <id> (--service-id <id> | --site-id <id> | --late-client-id <id>) [--yes] [--json]

Removes a late duplicate that \`subops activate\` (or the Slack notice) named: a second SubOps-made
Active service of the client (--service-id), a second SubOps site (--site-id), or an empty
SubOps-made namesake of the client (--late-client-id). It does what the notice's Remove duplicate
button does: UISP is read first, and the late record is removed only while it is still SubOps-made,
never invoiced, beside a kept one that is still there (a site: no device and no CRM link; a client: no
service, payment or invoice, the same name). Otherwise nothing is written and the reason is said
(exit 1). Already removed: exit 0.

On a terminal the late record and the one kept are shown and you are asked to confirm (y/N);
elsewhere --yes confirms, and without it nothing is written (exit 1).

  --yes    remove without being asked
  --json   one object: the outcome, the record, the late and kept ids and names, the sentence
           (docs/cli.md: JSON output)`;

export async function duplicates(argv: string[], io: CliIo): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb === '--help' || verb === '-h') return writeLine(io.stdout, duplicatesHelp), EXIT.ok;
  if (verb !== 'remove') throw new UsageError(unknownSubcommand('duplicates', verb, ['remove']), '<command>');
  const { values } = parseFlags(rest, {
    'client-id': { type: 'string' },
    'service-id': { type: 'string' },
    'site-id': { type: 'string' },
    'late-client-id': { type: 'string' },
    json: { type: 'boolean' },
    ...YES_FLAG,
  });
  if (values.help) return writeLine(io.stdout, duplicatesHelp), EXIT.ok;
  const clientId = flagValue('--client-id', readId(values['client-id'], 'Client id'));
  const late = lateRecord(values);
  return removeDuplicate(io, { clientId, ...late, json: values.json ?? false, yes: values.yes ?? false });
}

/** Exactly one of the late-record flags. */
function lateRecord(values: { 'service-id'?: string | undefined; 'site-id'?: string | undefined; 'late-client-id'?: string | undefined }): { record: RemovalRequest['record']; lateId: number | string } {
  const named = [
    ...(values['service-id'] !== undefined ? [{ record: 'service' as const, lateId: flagValue('--service-id', readId(values['service-id'], 'Service id')) }] : []),
    ...(values['site-id'] !== undefined ? [{ record: 'site' as const, lateId: flagValue('--site-id', readLine()(values['site-id'], 'Site id')) }] : []),
    ...(values['late-client-id'] !== undefined ? [{ record: 'client' as const, lateId: flagValue('--late-client-id', readId(values['late-client-id'], 'Late client id')) }] : []),
  ];
  if (named.length !== 1) throw new UsageError('Name the late record with exactly one of --service-id, --site-id or --late-client-id.', '--service-id');
  return named[0]!;
}

interface RemovalAsked {
  clientId: number;
  record: RemovalRequest['record'];
  lateId: number | string;
  json: boolean;
  yes: boolean;
}

async function removeDuplicate(io: CliIo, { clientId, record, lateId, json, yes }: RemovalAsked): Promise<number> {
  const connection = await connect(io.env, (line) => writeLine(io.stderr, line), { nmsNotice: debugNotice(io) });
  try {
    const { duplicates } = connection.services;
    const request = await duplicates.requestFor(clientId, record, lateId);
    if (!request) return notNamed(io, { clientId, record, lateId, json });
    if (!yes) {
      const why = canAsk(io) ? ((await confirm(io, question(request))) ? undefined : 'declined') : 'unconfirmed';
      if (why) return notConfirmed(io, why, json);
    }
    const audit = await openCliAudit(io, connection.config.logLevel);
    // A read that fails throws before any DELETE: reported as a UISP failure (exit 1), nothing written.
    const outcome = await duplicates.remove(request);
    const sentence = removalSentence(outcome);
    if (json) writeLine(io.stdout, jsonLine(io, removalJson(outcome, sentence)));
    else writeText(outcome.kind === 'removed' ? io.stdout : io.stderr, sentence);
    const entry = duplicateRemovalAudit(outcome, sentence);
    await audit.record(entry);
    return entry.ok ? EXIT.ok : EXIT.failed;
  } finally {
    await connection.close();
  }
}

/** The late record and the one kept, by id (UISP is read again, after the answer, before anything is removed). */
function question({ record, clientId, keptId, duplicateId }: RemovalRequest): string {
  const kept = record === 'client' ? `client #${keptId}, the one activations use` : `${record} ${keptId}`;
  return `Remove the late ${record} ${duplicateId} of client #${clientId}, keeping ${kept}? UISP is read again first.`;
}

function notNamed(io: CliIo, { clientId, record, lateId, json }: { clientId: number; record: RemovalRequest['record']; lateId: number | string; json: boolean }): number {
  const message = `UISP shows no late duplicate ${record} of client #${clientId} now, so ${record} ${lateId} is not removed (it may have been removed already). Nothing was changed.`;
  writeText(io.stderr, message);
  if (json) writeLine(io.stdout, jsonLine(io, errorJson([{ field: null, message }])));
  return EXIT.failed;
}

function notConfirmed(io: CliIo, why: 'declined' | 'unconfirmed', json: boolean): number {
  const message = why === 'declined' ? 'Not confirmed: nothing was changed.' : 'Removing a late duplicate needs confirmation: run it on a terminal to be asked, or add --yes. Nothing was changed.';
  writeText(io.stderr, message);
  if (json) writeLine(io.stdout, jsonLine(io, errorJson([{ field: '--yes', message }])));
  return EXIT.failed;
}
