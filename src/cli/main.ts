/**
 * The `subops` command line: the same services layer as the Slack app, in a terminal.
 * Exit codes: 0 success (also "already activated"), 1 the operation was refused or failed, 2 bad input
 * or configuration.
 *
 * Each command's module is imported only when that command runs: `subops --help` loads this file and
 * io.ts, `subops payments` never loads Bolt or the simulator (unless --simulator), and only
 * `serve` and `demo` load Bolt.
 */
import { EXIT, guardOutput, writeLine, writeText, type CliIo } from './io.js';
import { closest } from '../process/suggest.js';

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
  payments: { summary: 'list payments with totals, or `payments add`', load: async () => import('./commands/payments.js').then((m) => ({ run: acceptingYes(m.payments), help: m.paymentsHelp })) },
  duplicates: { summary: 'remove a late duplicate that `activate` named (`duplicates remove`)', load: async () => import('./commands/duplicates.js').then((m) => ({ run: m.duplicates, help: m.duplicatesHelp })) },
  digest: { summary: "print a day's digest: activations, suspensions, payments, pending links", load: async () => import('./commands/digest.js').then((m) => ({ run: m.digest, help: m.digestHelp })) },
  outages: { summary: 'list the outages in progress and the customers each affects', load: async () => import('./commands/outages.js').then((m) => ({ run: m.outages, help: m.outagesHelp })) },
  reasons: { summary: 'list suspension reasons', load: async () => import('./commands/reasons.js').then((m) => ({ run: m.reasons, help: m.reasonsHelp })) },
  simulate: { summary: 'run the UISP simulator', load: async () => import('./commands/simulate.js').then((m) => ({ run: m.simulate, help: m.simulateHelp })) },
  config: { summary: 'check the configuration, then reach UISP and Slack once (`config check`)', load: async () => import('./commands/config.js').then((m) => ({ run: m.config, help: m.configHelp })) },
  serve: { summary: 'run the Slack app (npm start)', load: async () => import('../serve.js').then((m) => ({ run: m.serve })) },
  demo: { summary: 'try the Slack bot in the terminal, offline (npm run demo)', load: async () => import('../playground/demo.js').then((m) => ({ run: m.demo })) },
};

export const usage = `Usage: subops <command> [options]     (subops help <command>, or subops <command> --help)

Commands:
${Object.entries(COMMANDS)
  .map(([name, command]) => `  ${name.padEnd(10)} ${command.summary}`)
  .join('\n')}

Before deleting, moving, suspending or lifting a suspension, a command asks on a terminal (y/N);
elsewhere --yes confirms (every command that writes accepts it). A write's audit record goes to
stderr: a short line on a terminal, one JSON line otherwise or with --log-json.
subops --version prints the version.

UISP is reached through UISP_URL and UISP_TOKEN (without UISP_URL a command stops, exit 2).
--simulator (any command; SUBOPS_SIMULATOR=1 for every run) uses the embedded UISP simulator and
its sample data instead, and every answer says so ("simulated": true in --json objects).
Every setting: docs/configuration.md.`;

export async function main(argv: string[], given: CliIo): Promise<number> {
  const { args, logJson, simulator } = globalOptions(argv);
  // One switch for the whole run, read where the configuration is read: --simulator is SUBOPS_SIMULATOR=1.
  const io = simulator ? { ...given, env: { ...given.env, SUBOPS_SIMULATOR: '1' } } : given;
  const [first, ...afterFirst] = args;
  if (first === '--version' || first === '-V') return writeLine(io.stdout, `subops ${(await import('../version.js')).subopsVersion()}`), EXIT.ok;
  // `subops help activate` is `subops activate --help`.
  const [name, ...rest] = first === 'help' && afterFirst[0] !== undefined ? [afterFirst[0], '--help'] : args;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    writeLine(io.stdout, usage);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) return await unknownCommand(name, io, wantsJson(rest));
  const outputFailure = guardOutput(io.stdout);
  guardOutput(io.stderr);
  const { run, help } = await command.load();
  const commandIo = logJson ? { ...io, logJson } : io;
  let code: number;
  try {
    code = await run(rest, commandIo);
  } catch (error) {
    code = (await import('./failure.js')).reportFailure(error, io, help, wantsJson(rest));
  }
  const failure = outputFailure();
  if (failure) {
    writeText(io.stderr, `Could not write the output: ${failure.message}`);
    return EXIT.failed;
  }
  return code;
}

/** What stands for the whole run rather than one command: `--log-json` and `--simulator` (anywhere before `--`). */
function globalOptions(argv: string[]): { args: string[]; logJson: boolean; simulator: boolean } {
  const end = argv.includes('--') ? argv.indexOf('--') : argv.length;
  const options = argv.slice(0, end);
  const args = [...options.filter((arg) => arg !== '--log-json' && arg !== '--simulator'), ...argv.slice(end)];
  return { args, logJson: options.includes('--log-json'), simulator: options.includes('--simulator') };
}

const wantsJson = (args: string[]) => (args.includes('--') ? args.slice(0, args.indexOf('--')) : args).includes('--json');

async function unknownCommand(name: string, io: CliIo, json: boolean): Promise<number> {
  const option = name.startsWith('-');
  const meant = option ? closest(name.replace(/^-+/, ''), ['help', 'version']) : closest(name, Object.keys(COMMANDS));
  // One line: the suggestion, or where the list is; the whole usage would bury it.
  const message = option
    ? `Unknown option '${name}'.${meant ? ` Did you mean --${meant}?` : ' subops --help lists the options.'}`
    : `Unknown command "${name}".${meant ? ` Did you mean "${meant}"? (subops help ${meant})` : ' subops help lists the commands.'}`;
  writeText(io.stderr, message);
  if (json) {
    const { errorJson, jsonLine } = await import('./json.js');
    writeLine(io.stdout, jsonLine(io, errorJson([{ field: option ? name : '<command>', message }])));
  }
  return EXIT.usage;
}

/** `payments add` records and never deletes, moves or suspends, so it never asks: --yes is accepted and changes nothing. */
function acceptingYes(run: Run): Run {
  return (argv, io) => {
    if (argv[0] !== 'add') return run(argv, io);
    const end = argv.includes('--') ? argv.indexOf('--') : argv.length;
    return run([...argv.slice(0, end).filter((arg) => arg !== '--yes' && arg !== '-y'), ...argv.slice(end)], io);
  };
}
