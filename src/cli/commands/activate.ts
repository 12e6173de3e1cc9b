import { validateActivationRequest, type ActivationField } from '../../services/activation/request.js';
import { flagProblems, parseFlags } from '../args.js';
import { connect } from '../../connect.js';
import { EXIT, writeLine, writeText, type CliIo } from '../io.js';
import { renderEvent } from '../render.js';

export const activateHelp = `Usage: subops activate --device <ip|mac|name> --first-name <name> --last-name <name>
                       [--client-id <id>] [--email <email>] [--phone <phone>] [--dry-run] [--json]

Runs the customer activation workflow: finds the device in the authorized and discovered
lists, reuses or creates the CRM client (names in Title Case), replaces a Quoted or Obsolete
service with an Active monthly one, reuses or creates the NMS site, authorizes the device, and
reminds you of the manual CRM-NMS link. Re-running after a failure never duplicates anything.

  --dry-run   read everything and print the plan; write nothing
  --json      one JSON object per line per event, the last one the result`;

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
  if (!validation.ok) throw flagProblems(validation.errors, FLAG_OF);
  const connection = await connect(io.env, (line) => writeLine(io.stderr, line));
  try {
    let outcome = 'failed';
    for await (const event of connection.services.activation.run(validation.request, { dryRun: values['dry-run'] ?? false })) {
      if (values.json) writeLine(io.stdout, JSON.stringify(event));
      else writeText(io.stdout, ...renderEvent(event));
      if (event.type === 'result') outcome = event.outcome;
    }
    return outcome === 'failed' ? EXIT.failed : EXIT.ok;
  } finally {
    await connection.close();
  }
}
