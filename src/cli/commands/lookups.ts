/** `subops client <name | id>` and `subops device <ip | mac | name>`: the lookup cards in the terminal. */
import { flagValue, parseFlags } from '../args.js';
import { connectCli } from '../connection.js';
import { EXIT, writeLine, writeText, type CliIo } from '../io.js';
import { readClientKey, readLine } from '../../services/input/grammar.js';
import { clientLookupJson, deviceLookupJson, jsonLine } from '../json.js';
import { renderClientCard, renderClientMatches, renderDeviceCard, renderDeviceMatches, renderNoClient } from '../render-cards.js';

export const clientHelp = `Usage: subops client <name | id | #id> [--json]

Shows a client's card: name, id and CRM link, balance and what is owed, each service with its state
(Suspended with the reason), plan and price, the last payment, and the client's NMS sites with their
devices (model, online or offline, signal, uptime, last seen), then the commands that apply next.
A name matches active and archived clients; several matches are listed with what tells them apart.
Exit 0 with a card or a list, 1 when nothing matches, 2 for bad input. --json prints one object
(docs/cli.md: JSON output).`;

export const deviceHelp = `Usage: subops device <ip | mac | name> [--json]

Shows a device from the NMS (authorized and discovered lists): model, status, signal, uptime, IP and
MAC, whether it is authorized, its site and the CRM client that site belongs to. A name that matches no
device exactly lists the devices whose name contains it. A discovered device comes with the
\`subops activate\` command that activates it. Exit 0 with a card or a list, 1 when nothing matches,
2 for bad input. --json prints one object (docs/cli.md: JSON output).`;

/** Everything after the command is the query: `subops client Kevin Singh`. */
const MAX_WORDS = 20;

/** A missing query is bad input, reported by the grammar ("Enter the client.") with exit 2. */
function queryOf(argv: string[]): { text: string; json: boolean; help: boolean } {
  const { values, positionals } = parseFlags(argv, { json: { type: 'boolean' } }, MAX_WORDS);
  return { text: positionals.join(' '), json: values.json ?? false, help: values.help ?? false };
}

export async function client(argv: string[], io: CliIo): Promise<number> {
  const { text, json, help } = queryOf(argv);
  if (help) return writeLine(io.stdout, clientHelp), EXIT.ok;
  flagValue('<name | id>', readClientKey(text, 'Client'));
  const connection = await connectCli(io, json ? 'json' : 'text');
  try {
    const { lookups, payments } = connection.services;
    const found = await lookups.client(text);
    const methods = found.kind === 'card' && found.card.lastPayment?.methodId ? await payments.listMethods().catch(() => []) : [];
    if (json) writeLine(io.stdout, jsonLine(io, clientLookupJson(found, methods)));
    else if (found.kind === 'card') writeText(io.stdout, ...renderClientCard(found.card, (id) => methods.find((m) => m.id === id)?.name));
    else if (found.kind === 'matches') writeText(io.stdout, ...renderClientMatches(found.query, found.matches));
    else writeText(io.stdout, ...renderNoClient(found.query, found.activate));
    return found.kind === 'none' ? EXIT.failed : EXIT.ok;
  } finally {
    await connection.close();
  }
}

export async function device(argv: string[], io: CliIo): Promise<number> {
  const { text, json, help } = queryOf(argv);
  if (help) return writeLine(io.stdout, deviceHelp), EXIT.ok;
  flagValue('<ip | mac | name>', readLine()(text, 'Device'));
  const connection = await connectCli(io, json ? 'json' : 'text');
  try {
    const found = await connection.services.lookups.device(text);
    if (json) writeLine(io.stdout, jsonLine(io, deviceLookupJson(found)));
    else if (found.kind === 'card') writeText(io.stdout, ...renderDeviceCard(found.card));
    else if (found.kind === 'matches') writeText(io.stdout, ...renderDeviceMatches(found.query, found.matches));
    else writeText(io.stdout, `No NMS device matches "${found.query}" (IP, MAC or name, authorized or discovered).`);
    return found.kind === 'none' ? EXIT.failed : EXIT.ok;
  } finally {
    await connection.close();
  }
}
