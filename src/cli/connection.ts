/**
 * The CLI's way to UISP: src/connect.ts, its notices on stderr. On the embedded simulator the answer says
 * so itself as well, so that whoever reads only stdout (a log file, cron's mail) cannot take it for UISP's:
 * a text answer ends with a line saying so; a --json answer has `"simulated": true` in every object
 * (json.ts); --csv stays plain CSV, the notice on stderr says it.
 */
import { connect, type Connection } from '../connect.js';
import { writeLine, type CliIo } from './io.js';

/** What the command prints on stdout. */
export type AnswerFormat = 'text' | 'json' | 'csv';

export const SIMULATED_ANSWER = 'Simulated: the embedded UISP simulator answered, not UISP (--simulator or SUBOPS_SIMULATOR=1); nothing real was read or changed.';

/**
 * Where the CLI says that UISP's NMS does not honour a filter (src/services/uisp/nms-filters.ts): on
 * stderr at LOG_LEVEL=debug only. Each command is a process of its own, so it would say it on every
 * command; the answer is the same either way (the whole list is read), and `subops serve` logs it once.
 */
export const debugNotice =
  (io: CliIo) =>
  (line: string): void => {
    if (io.env.LOG_LEVEL?.trim() === 'debug' || io.env.LOG_LEVEL?.trim() === 'trace') writeLine(io.stderr, line);
  };

export async function connectCli(io: CliIo, format: AnswerFormat): Promise<Connection> {
  const connection = await connect(io.env, (line) => writeLine(io.stderr, line), { nmsNotice: debugNotice(io) });
  if (!connection.simulator || format !== 'text') return connection;
  return {
    ...connection,
    close: async () => {
      await connection.close();
      writeLine(io.stdout, SIMULATED_ANSWER);
    },
  };
}
