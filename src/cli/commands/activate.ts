import { validateActivationRequest, type ActivationField } from '../../services/activation/request.js';
import { flagProblems, parseFlags } from '../args.js';
import { connectCli } from '../connection.js';
import { EXIT, UsageError, writeLine, writeText, type CliIo } from '../io.js';
import { canAsk } from '../../process/io.js';
import { YES_FLAG } from '../../process/flags.js';
import { confirm } from '../../process/prompt.js';
import { activationQuestion, dryRunQuestionLine, renderEvent, renderPlan } from '../render.js';
import { terminalSafe } from '../terminal.js';
import { openCliAudit } from '../audit.js';
import { activationEventJson, errorJson, jsonLine } from '../json.js';
import { changeSentence, resultSentence } from '../../render/activation.js';
import { activationAudit } from '../../services/audit-records.js';
import type { ActivationConfirmation, ActivationRequest, ActivationResult, ShownConfirmation } from '../../services/activation/types.js';
import type { ActivationService, ReadDecision } from '../../services/activation/workflow.js';

/** 0 done (also already done or planned), 2 an explicit client id of another name (bad input), 1 any other refusal or failure. */
function exitCode(result: ActivationResult | undefined): number {
  if (!result || result.outcome === 'failed') return result?.error.code === 'client-name-mismatch' ? EXIT.usage : EXIT.failed;
  return EXIT.ok;
}

export const activateHelp = `Usage: subops activate --device <ip|mac|name> --first-name <name> --last-name <name>
                       [--client-id <id>] [--email <email>] [--phone <phone>] [--yes] [--dry-run] [--json]
       subops activate --sheet <installs.csv> [--yes] [--dry-run] [--json]

Runs the customer activation workflow: finds the device in the authorized and discovered
lists, reuses or creates the CRM client (names in Title Case), replaces a Quoted or Obsolete
service with an Active monthly one, reuses or creates the NMS site, authorizes the device, and
reminds you of the manual CRM-NMS link. Re-running after a failure never duplicates anything.

Refused (exit 1, nothing written): a device that is not a subscriber station (AP, router,
switch...), or whose role NMS does not report; a client with a suspended service. Refused as bad
input (exit 2): a --client-id whose CRM name is not the one typed. A name that matches only an
archived client, or several clients, is reported with their ids instead of creating a duplicate.

Deleting the client's Quoted or Obsolete services, and moving the device off another client's site
(or a site of unknown owner), need your confirmation. On a terminal the plan is shown and you are
asked ("Delete Quoted service #102 and activate? [y/N]"); UISP is read again before anything is
written, and only what you were shown is deleted or moved. Elsewhere (a script, a pipe) such an
activation stops before any write (exit 1), naming the services or the site and its client.

  --yes       confirm what the activation deletes or moves: deleting the client's Quoted or
              Obsolete services before the Active one is created, and moving the device off
              another client's site (or a site of unknown owner) onto this client's site, without
              being asked (whatever they are when the run reads them). The other client's
              records are left alone.
  --dry-run   read everything and print the plan, and what the real run will ask; write nothing
  --json      one JSON object per line per event, the last one the result (docs/cli.md: JSON output)

  --sheet     activate every row of a CSV file (columns device, first_name, last_name, and
              optionally client_id, email, phone: examples/install-sheet.csv; at most 200 rows).
              Each row is checked first as --dry-run would (rows in error say why), then, once
              confirmed, run SHEET_CONCURRENCY rows at a time (one at a time once UISP answers 429 or
              503), one line per row (--json: one object per row). Exit 0 only when every row is
              activated or already activated; 2 when the file is not a sheet (line and column).`;

const FLAG_OF: Record<ActivationField, string> = {
  device: '--device',
  firstName: '--first-name',
  lastName: '--last-name',
  clientId: '--client-id',
  email: '--email',
  phone: '--phone',
};

/** The parsed option of each field (the flag without its dashes). */
const FIELD_OPTION = { device: 'device', firstName: 'first-name', lastName: 'last-name', clientId: 'client-id', email: 'email', phone: 'phone' } as const satisfies Record<ActivationField, string>;

interface RunOptions {
  dryRun?: boolean;
  confirm?: ActivationConfirmation;
  decided?: ReadDecision;
}

export async function activate(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, {
    device: { type: 'string' },
    'first-name': { type: 'string' },
    'last-name': { type: 'string' },
    'client-id': { type: 'string' },
    email: { type: 'string' },
    phone: { type: 'string' },
    sheet: { type: 'string' },
    ...YES_FLAG,
    'dry-run': { type: 'boolean' },
    json: { type: 'boolean' },
  });
  if (values.help) return writeLine(io.stdout, activateHelp), EXIT.ok;
  if (values.sheet !== undefined) {
    const typed = Object.entries(FLAG_OF).filter(([field]) => values[FIELD_OPTION[field as ActivationField]] !== undefined);
    if (typed.length) throw new UsageError(`${typed.map(([, flag]) => flag).join(', ')}: the sheet names each install; leave ${typed.length === 1 ? 'it' : 'them'} out with --sheet.`);
    const { activateSheet } = await import('./activate-sheet.js');
    return activateSheet(values.sheet, { dryRun: values['dry-run'] ?? false, yes: values.yes ?? false, json: values.json ?? false }, io);
  }
  const validation = validateActivationRequest({
    device: values.device,
    firstName: values['first-name'],
    lastName: values['last-name'],
    clientId: values['client-id'],
    email: values.email,
    phone: values.phone,
  });
  if (!validation.ok) throw flagProblems(validation.errors, FLAG_OF);
  const { request } = validation;
  const json = values.json ?? false;
  const connection = await connectCli(io, json ? 'json' : 'text');
  try {
    const audit = await openCliAudit(io, connection.config.logLevel);
    const label = (status: number) => connection.services.numbering.label(status);
    let options: RunOptions = {};
    if (values['dry-run']) options = { dryRun: true };
    else if (values.yes) options = { confirm: { moveFrom: 'any', deletes: 'any' } };
    else if (canAsk(io)) {
      const asked = await askToConfirm(connection.services.activation, request, io);
      if (asked === 'declined') {
        writeText(io.stderr, 'Not confirmed: nothing was changed.');
        if (json) writeLine(io.stdout, jsonLine(io, errorJson([{ field: '--yes', message: 'Not confirmed: nothing was changed.' }])));
        return EXIT.failed;
      }
      options = asked;
    }
    let result: ActivationResult | undefined;
    for await (const event of connection.services.activation.run(request, options)) {
      if (json) writeLine(io.stdout, jsonLine(io, activationEventJson(event, label)));
      else writeText(io.stdout, ...renderEvent(event));
      if (event.type === 'result') {
        result = event;
        // A dry run writes nothing, so there is nothing to audit.
        if (event.outcome !== 'planned') await audit.record(activationAudit(request, event, resultSentence(event)));
      }
    }
    // Under --json the result object says it all; only a dry run's question is added, on stderr.
    const note = result && (!json || result.outcome === 'planned') ? notes(result) : undefined;
    if (note) writeText(json ? io.stderr : io.stdout, note);
    return exitCode(result);
  } finally {
    await connection.close();
  }
}

/** What follows the result: what the real run of a dry run will ask, or what --yes would confirm. */
function notes(result: ActivationResult): string | undefined {
  if (result.outcome === 'planned') {
    const line = dryRunQuestionLine(result.plan);
    return line && `  ${line}`;
  }
  const code = result.outcome === 'failed' ? result.error.code : undefined;
  if (code === 'device-in-use') return "  --yes moves the device off that site onto this client's site.";
  if (code === 'delete-unconfirmed') return '  --yes confirms deleting those services.';
  return undefined;
}

/**
 * On a terminal, as the Slack confirmation does: a plan that deletes services or moves the device is
 * shown and asked about; once confirmed, UISP is read again (`recheck`) and compared with what was
 * shown. Anything different is said and asked again; otherwise the run builds on that fresh read,
 * with exactly what was shown confirmed (those service ids, that site), never "any".
 */
async function askToConfirm(activation: ActivationService, request: ActivationRequest, io: CliIo): Promise<RunOptions | 'declined'> {
  let decision: ReadDecision;
  try {
    decision = await activation.decide(request);
  } catch {
    // The run reads again and reports what went wrong, as without a terminal.
    return {};
  }
  let changes: string[] = [];
  for (;;) {
    if (decision.kind === 'refused' || (decision.kind === 'plan' && !changes.length)) return { decided: decision };
    if (changes.length) writeText(io.stderr, `UISP changed since you confirmed, so nothing was written: ${changes.join('; ')}.`);
    writeText(io.stderr, ...renderPlan(decision.plan));
    // The question names the device, a site and its client: UISP text, escaped like every terminal line.
    if (!(await confirm(io, terminalSafe(activationQuestion(decision.plan))))) return 'declined';
    const { plan } = decision;
    const shown: ShownConfirmation = {
      deletes: plan.service.action === 'create' ? plan.service.delete.map((s) => ({ id: s.id, status: s.status })) : [],
      ...(plan.move && { moveFrom: plan.move.site.id }),
      ...(plan.client.action === 'reuse' && { clientId: plan.client.client.id }),
    };
    const confirmed: ActivationConfirmation = { deletes: shown.deletes.map((s) => s.id), ...(shown.moveFrom && { moveFrom: shown.moveFrom }) };
    let checked: Awaited<ReturnType<ActivationService['recheck']>>;
    try {
      checked = await activation.recheck(request, shown);
    } catch {
      // The run reads again itself, and lets through only what was confirmed.
      return { confirm: confirmed };
    }
    if (!checked.changes.length || checked.decision.kind === 'refused') return { confirm: confirmed, decided: checked.decision };
    changes = checked.changes.map(changeSentence);
    decision = checked.decision;
  }
}
