/**
 * `subops outages`: the outages in progress and the customers each affects, for scripts and the NOC
 * screen (issue #40). The services layer reads UISP (src/services/outages.ts); this renders it. A UISP
 * whose NMS has no outages (the interface document's) is said to be so, exit 1: never "no outage".
 */
import { affectedLines, outageHeadline } from '../../render/outages.js';
import { parseFlags } from '../args.js';
import { connectCli } from '../connection.js';
import { EXIT, writeLine, writeText, type CliIo } from '../io.js';
import { errorJson, jsonLine, outageJson } from '../json.js';

export const outagesHelp = `Usage: subops outages [--json]

Lists the outages UISP's NMS has in progress, newest first: the device that went down (name, model,
role, IP), its site, since when, and the customers it affects: for a device at an infrastructure site
every customer site below it, for a customer's own radio that customer; each with the service linked to
the site and its status. The first 10 customers of each outage are shown and the rest counted. Devices
of one site down together are one outage. An NMS without outages (GET /outages answers 404) is said so
(exit 1).

  --json   one object per outage, with every affected customer (docs/cli.md: JSON output)`;

export async function outages(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, { json: { type: 'boolean' } });
  if (values.help) return writeLine(io.stdout, outagesHelp), EXIT.ok;
  const json = values.json ?? false;
  const connection = await connectCli(io, json ? 'json' : 'text');
  try {
    const reading = await connection.services.outages.inProgress();
    if (!reading.available) {
      writeText(io.stderr, `Failed: ${reading.why}`);
      if (json) writeLine(io.stdout, jsonLine(io, errorJson([{ field: null, message: reading.why }])));
      return EXIT.failed;
    }
    if (json) {
      for (const outage of reading.outages) writeLine(io.stdout, jsonLine(io, outageJson(outage)));
      return EXIT.ok;
    }
    const now = new Date();
    if (reading.outages.length === 0) writeText(io.stdout, 'No outage in progress.');
    reading.outages.forEach((outage, i) => writeText(io.stdout, ...(i > 0 ? [''] : []), outageHeadline(outage, now), ...affectedLines(outage.affected).map((line, j) => (j === 0 ? `  ${line}` : `    ${line}`))));
    return EXIT.ok;
  } finally {
    await connection.close();
  }
}
