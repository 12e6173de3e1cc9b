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

export async function connectCli(io: CliIo, format: AnswerFormat): Promise<Connection> {
  const connection = await connect(io.env, (line) => writeLine(io.stderr, line));
  if (!connection.simulator || format !== 'text') return connection;
  return {
    ...connection,
    close: async () => {
      await connection.close();
      writeLine(io.stdout, SIMULATED_ANSWER);
    },
  };
}
