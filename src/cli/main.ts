/**
 * The `subops` command line: the same services layer as the Slack app, in a terminal.
 * Exit codes: 0 success (also "already activated"), 1 the operation failed, 2 bad input or configuration.
 */
import { ConfigError } from '../config.js';
import { InputError } from '../services/errors.js';
import { changeNotice, UispError } from '../services/uisp/errors.js';
import { activate, activateHelp } from './commands/activate.js';
import { payments, paymentsHelp } from './commands/payments.js';
import { reasons, reasonsHelp } from './commands/reasons.js';
import { simulate, simulateHelp } from './commands/simulate.js';
import { suspend, suspendHelp, unsuspend, unsuspendHelp } from './commands/suspension.js';
import { EXIT, UsageError, writeLine, type CliIo } from './io.js';

type Command = { run: (argv: string[], io: CliIo) => Promise<number>; summary: string; help?: string };

// serve and demo load Bolt and the playground only when asked for.
const COMMANDS: Record<string, Command> = {
  activate: { run: activate, summary: 'activate a customer (device, client, service, site)', help: activateHelp },
  suspend: { run: suspend, summary: 'suspend a service', help: suspendHelp },
  unsuspend: { run: unsuspend, summary: 'lift a suspension (cancel-suspend)', help: unsuspendHelp },
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
  try {
    return await command.run(rest, io);
  } catch (error) {
    return report(error, io, command.help);
  }
}

function report(error: unknown, io: CliIo, help: string | undefined): number {
  if (error instanceof UsageError) {
    writeLine(io.stderr, `Error: ${error.message}`);
    if (help) writeLine(io.stderr, `\n${help.split('\n\n')[0]}`);
    return EXIT.usage;
  }
  if (error instanceof ConfigError) {
    writeLine(io.stderr, error.message);
    return EXIT.usage;
  }
  if (error instanceof InputError) {
    writeLine(io.stderr, `Error: ${flagFor(error.field)}: ${error.message} Nothing was changed.`);
    return EXIT.usage;
  }
  if (error instanceof UispError) {
    writeLine(io.stderr, `Failed: ${error.message}\n${changeNotice(error)}`);
    return EXIT.failed;
  }
  writeLine(io.stderr, `Unexpected error: ${error instanceof Error ? error.message : String(error)}`);
  return EXIT.failed;
}

const FLAGS: Record<string, string> = { service: '--service-id', client: '--client-id', reason: '--reason', method: '--method', amount: '--amount', note: '--note', key: '--key', from: '--from', to: '--to' };
const flagFor = (field: string) => FLAGS[field] ?? field;
