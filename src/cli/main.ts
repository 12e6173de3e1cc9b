/**
 * The `subops` command line: the same services layer as the Slack app, in a terminal.
 * Exit codes: 0 success (also "already activated"), 1 the operation failed, 2 bad input or configuration.
 */
import { ConfigError } from '../config.js';
import { InputError } from '../services/errors.js';
import { changeNotice, UispError } from '../services/uisp/errors.js';
import { FIELD_FLAGS } from './args.js';
import { activate, activateHelp } from './commands/activate.js';
import { client, clientHelp, device, deviceHelp } from './commands/lookups.js';
import { payments, paymentsHelp } from './commands/payments.js';
import { reasons, reasonsHelp } from './commands/reasons.js';
import { simulate, simulateHelp } from './commands/simulate.js';
import { suspend, suspendHelp, unsuspend, unsuspendHelp } from './commands/suspension.js';
import { EXIT, guardOutput, UsageError, writeLine, writeText, type CliIo } from './io.js';

type Command = { run: (argv: string[], io: CliIo) => Promise<number>; summary: string; help?: string };

// serve and demo load Bolt and the playground only when asked for.
const COMMANDS: Record<string, Command> = {
  activate: { run: activate, summary: 'activate a customer (device, client, service, site)', help: activateHelp },
  suspend: { run: suspend, summary: 'suspend a service', help: suspendHelp },
  unsuspend: { run: unsuspend, summary: 'lift a suspension (cancel-suspend)', help: unsuspendHelp },
  client: { run: client, summary: 'show a client: balance, services, last payment, site and devices', help: clientHelp },
  device: { run: device, summary: 'show a device: status, signal, uptime, site and client', help: deviceHelp },
  payments: { run: payments, summary: 'list payments with totals, or `payments add`', help: paymentsHelp },
  reasons: { run: reasons, summary: 'list suspension reasons', help: reasonsHelp },
  simulate: { run: simulate, summary: 'run the UISP simulator', help: simulateHelp },
  serve: { run: async (argv, io) => (await import('../app.js')).serve(argv, io), summary: 'run the Slack app (npm start)' },
  demo: { run: async (argv, io) => (await import('../playground/demo.js')).demo(argv, io), summary: 'try the Slack bot in the terminal, offline (npm run demo)' },
};

export const usage = `Usage: subops <command> [options]     (subops <command> --help for details)

Commands:
${Object.entries(COMMANDS)
  .map(([name, command]) => `  ${name.padEnd(10)} ${command.summary}`)
  .join('\n')}

UISP is reached through UISP_URL and UISP_TOKEN; without UISP_URL an embedded simulator
with sample data is used. See README.md for every setting.`;

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    writeLine(io.stdout, usage);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const command = COMMANDS[name];
  if (!command) {
    writeLine(io.stderr, `Unknown command "${name}".\n\n${usage}`);
    return EXIT.usage;
  }
  const outputFailure = guardOutput(io.stdout);
  guardOutput(io.stderr);
  let code: number;
  try {
    code = await command.run(rest, io);
  } catch (error) {
    code = report(error, io, command.help);
  }
  const failure = outputFailure();
  if (failure) {
    writeText(io.stderr, `Could not write the output: ${failure.message}`);
    return EXIT.failed;
  }
  return code;
}

/** Expected failures as one or a few lines, never a stack trace; messages may carry UISP text, so escaped. */
function report(error: unknown, io: CliIo, help: string | undefined): number {
  if (error instanceof UsageError) {
    // One line per problem (several flags can be wrong at once).
    writeText(io.stderr, ...`Error: ${error.message}`.split('\n'));
    if (help) writeLine(io.stderr, `\n${help.split('\n\n')[0]}`);
    return EXIT.usage;
  }
  if (error instanceof ConfigError) {
    writeText(io.stderr, ...error.message.split('\n'));
    return EXIT.usage;
  }
  if (error instanceof InputError) {
    writeText(io.stderr, `Error: ${flagFor(error.field)}: ${error.message} Nothing was changed.`);
    return EXIT.usage;
  }
  if (error instanceof UispError) {
    writeText(io.stderr, `Failed: ${error.message}`, changeNotice(error));
    return EXIT.failed;
  }
  writeText(io.stderr, `Unexpected error: ${error instanceof Error ? error.message : String(error)}`);
  return EXIT.failed;
}

const flagFor = (field: string) => FIELD_FLAGS[field] ?? field;
