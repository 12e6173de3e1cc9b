import { simulatorStatePath } from '../../connect.js';
import { writeFile } from 'node:fs/promises';
import { generateDataSet, loadDataFile, removeStateFile, saveStateFile, startSimulator } from '../../simulator/index.js';
import { optional, readWholeNumber } from '../../services/input/grammar.js';
import { flagValue, parseFlags } from '../args.js';
import { EXIT, untilSignal, UsageError, writeLine, type CliIo } from '../io.js';

export const simulateHelp = `Usage: subops simulate [--port <n>] [--data <file.json>] [--token <token>] [--latency <ms>]
       subops simulate --reset [--data <file.json>]
       subops simulate --generate <customers> --out <file.json> [--seed <n>]

Runs the UISP simulator (CRM /crm/api/v1.0 and NMS /nms/api/v2.1 on one base URL) until Ctrl-C.
Point SubOps at it with UISP_URL and UISP_TOKEN. --data loads a JSON data set instead of the sample.
This server keeps nothing after it stops.

With --simulator (or SUBOPS_SIMULATOR=1), every other command runs against an embedded simulator whose
state is kept between commands in SUBOPS_SIMULATOR_STATE, else $XDG_STATE_HOME/subops/simulator.json,
else ~/.local/state/subops/simulator.json. --reset forgets that state, so the next command starts from
the sample data again (or, with --data, from that data set), and exits.

--generate writes a realistic data set of that many customers (services, endpoint sites, devices, a
year of payments; the same seed gives the same set) to --out, for --data, and exits.`;

export async function simulate(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, {
    port: { type: 'string' },
    data: { type: 'string' },
    token: { type: 'string' },
    latency: { type: 'string' },
    reset: { type: 'boolean' },
    generate: { type: 'string' },
    out: { type: 'string' },
    seed: { type: 'string' },
  });
  if (values.help) return writeLine(io.stdout, simulateHelp), EXIT.ok;
  if (values.generate !== undefined) return generate(io, values);
  if (values.out !== undefined || values.seed !== undefined) throw new UsageError('--out and --seed go with --generate.');
  if (values.reset) return reset(io, values);
  const port = flagValue('--port', optional(readWholeNumber({ min: 0, max: 65_535 }))(values.port, 'Port')) ?? 0;
  const latencyMs = flagValue('--latency', optional(readWholeNumber({ min: 0, max: 60_000 }))(values.latency, 'Latency in milliseconds')) ?? 0;
  const data = values.data ? await loadDataFile(values.data) : undefined;
  const simulator = await startSimulator({ port, latencyMs, ...(data && { data }), ...(values.token && { token: values.token }) });
  writeLine(io.stdout, `UISP simulator listening at ${simulator.url}`);
  writeLine(io.stdout, `  UISP_URL=${simulator.url} UISP_TOKEN=${values.token ? '<the token you gave>' : simulator.token}`);
  writeLine(io.stdout, 'Press Ctrl-C to stop.');
  await (io.untilStopped ?? untilSignal)();
  await simulator.close();
  return EXIT.ok;
}

/** `--reset`: the embedded simulator's saved state removed, or replaced by a data set. */
async function reset(io: CliIo, values: { port?: string | undefined; token?: string | undefined; latency?: string | undefined; data?: string | undefined }): Promise<number> {
  const serving = (['port', 'token', 'latency'] as const).filter((flag) => values[flag] !== undefined);
  if (serving.length) throw new UsageError(`--reset cannot be combined with ${serving.map((flag) => `--${flag}`).join(', ')}: it resets the embedded simulator's state and exits.`);
  const path = simulatorStatePath(io.env);
  if (values.data) {
    await saveStateFile(path, await loadDataFile(values.data));
    writeLine(io.stdout, `The embedded simulator's state is now the data set ${values.data} (${path}).`);
  } else {
    await removeStateFile(path);
    writeLine(io.stdout, `The embedded simulator's state is reset (${path} removed): the next command with --simulator starts from the sample data.`);
  }
  return EXIT.ok;
}

/** `--generate <customers> --out <file>`: a generated data set written for --data. */
async function generate(io: CliIo, values: Partial<Record<'generate' | 'out' | 'seed' | 'data' | 'port' | 'token' | 'latency', string>> & { reset?: boolean | undefined }): Promise<number> {
  const other = (['reset', 'data', 'port', 'token', 'latency'] as const).filter((flag) => values[flag] !== undefined);
  if (other.length) throw new UsageError(`--generate cannot be combined with ${other.map((flag) => `--${flag}`).join(', ')}: it writes a data set and exits.`);
  if (!values.out) throw new UsageError('--generate needs --out <file.json>: where to write the data set.');
  const customers = flagValue('--generate', readWholeNumber({ min: 1, max: 1_000_000 })(values.generate, 'Customers'));
  const seed = flagValue('--seed', optional(readWholeNumber({ min: 0, max: 2 ** 31 }))(values.seed, 'Seed')) ?? 1;
  await writeFile(values.out, JSON.stringify(generateDataSet({ customers, seed })));
  writeLine(io.stdout, `Wrote a data set of ${customers.toLocaleString('en-US')} customers to ${values.out}: serve it with subops simulate --data ${values.out}.`);
  return EXIT.ok;
}
