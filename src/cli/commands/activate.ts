import { validateActivationRequest, type ActivationField } from '../../services/activation/request.js';
import { parseFlags } from '../args.js';
import { connect } from '../../connect.js';
import { EXIT, UsageError, writeLine, type CliIo } from '../io.js';
import { renderEvent } from '../render.js';
import { openCliAudit } from '../audit.js';
import { activationEventJson } from '../json.js';
import { activationAudit } from '../../services/audit-records.js';
import { statusLabel } from '../../services/activation/service-status.js';

export const activateHelp = `Usage: subops activate --device <ip|mac|name> --first-name <name> --last-name <name>
                       [--client-id <id>] [--email <email>] [--phone <phone>] [--dry-run] [--json]

Runs the customer activation workflow: finds the device in the authorized and discovered
lists, reuses or creates the CRM client (names in Title Case), replaces a Quoted or Obsolete
service with an Active monthly one, reuses or creates the NMS site, authorizes the device, and
reminds you of the manual CRM-NMS link. Re-running after a failure never duplicates anything.

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
  if (!validation.ok) {
    const problems = Object.entries(validation.errors).map(([field, message]) => `${FLAG_OF[field as ActivationField]}: ${message}`);
    throw new UsageError(problems.join('\n'));
  }
  const connection = await connect(io.env, (line) => writeLine(io.stderr, line));
  try {
    const audit = await openCliAudit(io, connection.config.logLevel);
    const label = (status: number) => statusLabel(status, connection.config.activation.statuses);
    let outcome = 'failed';
    for await (const event of connection.services.activation.run(validation.request, { dryRun: values['dry-run'] ?? false })) {
      if (values.json) writeLine(io.stdout, JSON.stringify(activationEventJson(event, label)));
      else for (const line of renderEvent(event)) writeLine(io.stdout, line);
      if (event.type === 'result') {
        outcome = event.outcome;
        // A dry run writes nothing, so there is nothing to audit.
        if (event.outcome !== 'planned') await audit.record(activationAudit(validation.request, event));
      }
    }
    return outcome === 'failed' ? EXIT.failed : EXIT.ok;
  } finally {
    await connection.close();
  }
}
