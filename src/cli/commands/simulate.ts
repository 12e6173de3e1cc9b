import { loadDataFile, startSimulator } from '../../simulator/index.js';
import { optional, readWholeNumber } from '../../services/input/grammar.js';
import { flagValue, parseFlags } from '../args.js';
import { EXIT, untilSignal, writeLine, type CliIo } from '../io.js';

export const simulateHelp = `Usage: subops simulate [--port <n>] [--data <file.json>] [--token <token>] [--latency <ms>]

Runs the UISP simulator (CRM /crm/api/v1.0 and NMS /nms/api/v2.1 on one base URL) until Ctrl-C.
Point SubOps at it with UISP_URL and UISP_TOKEN. --data loads a JSON data set instead of the sample.`;

export async function simulate(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, { port: { type: 'string' }, data: { type: 'string' }, token: { type: 'string' }, latency: { type: 'string' } });
  if (values.help) return writeLine(io.stdout, simulateHelp), EXIT.ok;
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
