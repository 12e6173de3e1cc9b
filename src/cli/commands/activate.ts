import { validateActivationRequest, type ActivationField } from '../../services/activation/request.js';
import { flagProblems, parseFlags } from '../args.js';
import { connect } from '../../connect.js';
import { EXIT, writeLine, writeText, type CliIo } from '../io.js';
import { renderEvent } from '../render.js';
import { openCliAudit } from '../audit.js';
import { activationEventJson } from '../json.js';
import { resultSentence } from '../../render/activation.js';
import { activationAudit } from '../../services/audit-records.js';
import { statusLabel } from '../../services/activation/service-status.js';
import type { ActivationResult } from '../../services/activation/types.js';

/** 0 done (also already done or planned), 2 an explicit client id of another name (bad input), 1 any other refusal or failure. */
function exitCode(result: ActivationResult | undefined): number {
  if (!result || result.outcome === 'failed') return result?.error.code === 'client-name-mismatch' ? EXIT.usage : EXIT.failed;
  return EXIT.ok;
}

export const activateHelp = `Usage: subops activate --device <ip|mac|name> --first-name <name> --last-name <name>
                       [--client-id <id>] [--email <email>] [--phone <phone>] [--yes] [--dry-run] [--json]

Runs the customer activation workflow: finds the device in the authorized and discovered
lists, reuses or creates the CRM client (names in Title Case), replaces a Quoted or Obsolete
service with an Active monthly one, reuses or creates the NMS site, authorizes the device, and
reminds you of the manual CRM-NMS link. Re-running after a failure never duplicates anything.

Refused (exit 1, nothing written): a device that is not a subscriber station (AP, router,
switch...), or whose role NMS does not report; a client with a suspended service. Refused as bad
input (exit 2): a --client-id whose CRM name is not the one typed. A name that matches only an
archived client, or several clients, is reported with their ids instead of creating a duplicate.

  --yes       confirm what the activation deletes or moves: deleting the client's Quoted or
              Obsolete services before the Active one is created, and moving the device off
              another client's site (or a site of unknown owner) onto this client's site.
              Without it such an activation stops before any write (exit 1) and names the
              services it would delete, or the site and its client. The other client's records
              are left alone.
  --dry-run   read everything and print the plan; write nothing
  --json      one JSON object per line per event, the last one the result (README: JSON output)`;

const FLAG_OF: Record<ActivationField, string> = {
  device: '--device',
  firstName: '--first-name',
  lastName: '--last-name',
  clientId: '--client-id',
  email: '--email',
  phone: '--phone',
};

export async function activate(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, {
    device: { type: 'string' },
    'first-name': { type: 'string' },
    'last-name': { type: 'string' },
    'client-id': { type: 'string' },
    email: { type: 'string' },
    phone: { type: 'string' },
    yes: { type: 'boolean' },
    'dry-run': { type: 'boolean' },
    json: { type: 'boolean' },
  });
  if (values.help) return writeLine(io.stdout, activateHelp), EXIT.ok;
  const validation = validateActivationRequest({
    device: values.device,
    firstName: values['first-name'],
    lastName: values['last-name'],
    clientId: values['client-id'],
    email: values.email,
    phone: values.phone,
  });
  if (!validation.ok) throw flagProblems(validation.errors, FLAG_OF);
  const connection = await connect(io.env, (line) => writeLine(io.stderr, line));
  try {
    const audit = await openCliAudit(io, connection.config.logLevel);
    const label = (status: number) => statusLabel(status, connection.config.activation.statuses);
    let result: ActivationResult | undefined;
    const options = { dryRun: values['dry-run'] ?? false, ...(values.yes && { confirm: { moveFrom: 'any', deletes: 'any' } as const }) };
    for await (const event of connection.services.activation.run(validation.request, options)) {
      if (values.json) writeLine(io.stdout, JSON.stringify(activationEventJson(event, label)));
      else writeText(io.stdout, ...renderEvent(event));
      if (event.type === 'result') {
        result = event;
        // A dry run writes nothing, so there is nothing to audit.
        if (event.outcome !== 'planned') await audit.record(activationAudit(validation.request, event, resultSentence(event)));
      }
    }
    if (!values.json) {
      const code = result?.outcome === 'failed' ? result.error.code : undefined;
      const hint = code === 'device-in-use' ? 'moves the device off that site onto this client\'s site' : code === 'delete-unconfirmed' ? 'confirms deleting those services' : undefined;
      if (hint) writeLine(io.stdout, `  --yes ${hint}.`);
    }
    return exitCode(result);
  } finally {
    await connection.close();
  }
}
