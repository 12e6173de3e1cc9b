/**
 * The `subops` command line: the same services layer as the Slack app, in a terminal.
 * Exit codes: 0 success (also "already activated"), 1 the operation failed, 2 bad input or configuration.
 *
 * Each command's module is imported only when that command runs: `subops --help` loads this file and
 * io.ts, `subops payments` never loads Bolt or the simulator (unless UISP_URL is unset), and only
 * `serve` and `demo` load Bolt.
 */
import { EXIT, guardOutput, writeLine, writeText, type CliIo } from './io.js';

type Run = (argv: string[], io: CliIo) => Promise<number>;
interface Command {
  summary: string;
  /** The command's entry point and its help text (shown after a usage error). */
  load: () => Promise<{ run: Run; help?: string }>;
}

const COMMANDS: Record<string, Command> = {
  activate: { summary: 'activate a customer (device, client, service, site)', load: async () => import('./commands/activate.js').then((m) => ({ run: m.activate, help: m.activateHelp })) },
  suspend: { summary: 'suspend a service', load: async () => import('./commands/suspension.js').then((m) => ({ run: m.suspend, help: m.suspendHelp })) },
  unsuspend: { summary: 'lift a suspension (cancel-suspend)', load: async () => import('./commands/suspension.js').then((m) => ({ run: m.unsuspend, help: m.unsuspendHelp })) },
  client: { summary: 'show a client: balance, services, last payment, site and devices', load: async () => import('./commands/lookups.js').then((m) => ({ run: m.client, help: m.clientHelp })) },
  device: { summary: 'show a device: status, signal, uptime, site and client', load: async () => import('./commands/lookups.js').then((m) => ({ run: m.device, help: m.deviceHelp })) },
  payments: { summary: 'list payments with totals, or `payments add`', load: async () => import('./commands/payments.js').then((m) => ({ run: m.payments, help: m.paymentsHelp })) },
  reasons: { summary: 'list suspension reasons', load: async () => import('./commands/reasons.js').then((m) => ({ run: m.reasons, help: m.reasonsHelp })) },
  simulate: { summary: 'run the UISP simulator', load: async () => import('./commands/simulate.js').then((m) => ({ run: m.simulate, help: m.simulateHelp })) },
  serve: { summary: 'run the Slack app (npm start)', load: async () => import('../serve.js').then((m) => ({ run: m.serve })) },
  demo: { summary: 'try the Slack bot in the terminal, offline (npm run demo)', load: async () => import('../playground/demo.js').then((m) => ({ run: m.demo })) },
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
  const { run, help } = await command.load();
  let code: number;
  try {
    code = await run(rest, io);
  } catch (error) {
    code = (await import('./failure.js')).reportFailure(error, io, help);
  }
  const failure = outputFailure();
  if (failure) {
    writeText(io.stderr, `Could not write the output: ${failure.message}`);
    return EXIT.failed;
  }
  return code;
}
