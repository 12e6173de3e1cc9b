/** What `serve` logged, read as its supervisor's journal would: one JSON object per line. */
export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** Every line of `out` as the JSON object pino wrote (a line that is not one fails the test's parse). */
export const logLines = (out: string): LogLine[] =>
  out
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LogLine);

/** pino's `fatal` level: the lines saying why the process stopped. */
export const FATAL = 60;

export const fatalLines = (out: string): LogLine[] => logLines(out).filter((line) => line.level === FATAL);
