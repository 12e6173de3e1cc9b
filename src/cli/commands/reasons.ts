import { parseFlags } from '../args.js';
import { connectCli } from '../connection.js';
import { EXIT, writeLine, writeText, type CliIo } from '../io.js';
import { jsonLine } from '../json.js';

export const reasonsHelp = `Usage: subops reasons [--json]

Lists the CRM's service suspension reasons (ids and names) for \`subops suspend --reason\`.`;

export async function reasons(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, { json: { type: 'boolean' } });
  if (values.help) return writeLine(io.stdout, reasonsHelp), EXIT.ok;
  const connection = await connectCli(io, values.json ? 'json' : 'text');
  try {
    for (const reason of await connection.services.suspensions.listReasons()) {
      if (values.json) writeLine(io.stdout, jsonLine(io, { type: 'reason', id: reason.id, name: reason.name }));
      else writeText(io.stdout, `${String(reason.id).padStart(5)}  ${reason.name}`);
    }
    return EXIT.ok;
  } finally {
    await connection.close();
  }
}
