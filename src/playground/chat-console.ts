/**
 * Where the playground chat reads its lines and prints its output: a person at a terminal (readline),
 * or a script file whose lines are echoed after their prompt so the output reads like a session.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { clearLine, createInterface, cursorTo } from 'node:readline';

export type LineKind = 'command' | 'answer';

export interface ChatConsole {
  /** Lines come from a script: a line the chat cannot use fails the run instead of being asked again. */
  readonly scripted: boolean;
  /**
   * The next line, or undefined at the end (Ctrl-D, end of the script). Blank lines are answers
   * (Enter) when a form asks, and skipped when a command is expected.
   */
  read(prompt: string, kind: LineKind): Promise<string | undefined>;
  print(lines: string[]): void;
  /** The terminal's width, when there is a terminal. */
  columns(): number | undefined;
  /** Where the last line read came from, e.g. `walkthrough.txt:12`, for failure messages. */
  position(): string | undefined;
  close(): void;
}

/**
 * A person typing: output that arrives while they are at a prompt is printed above it. Lines piped in
 * (no terminal to echo them) are echoed after their prompt, so the output still reads as a session.
 */
export function terminalConsole(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): ChatConsole {
  const rl = createInterface({ input, output });
  const echo = !('isTTY' in input && input.isTTY === true);
  const typedAhead: string[] = [];
  let waiting: ((line: string | undefined) => void) | undefined;
  let closed = false;
  rl.on('line', (line) => {
    if (waiting) waiting(line);
    else typedAhead.push(line);
  });
  rl.on('close', () => {
    closed = true;
    // Ctrl-D or Ctrl-C at a prompt: what follows starts on a line of its own.
    if (waiting && rl.terminal) output.write('\n');
    waiting?.(undefined);
  });
  // Ctrl-C ends the chat the way Ctrl-D does, so everything it started is shut down.
  rl.on('SIGINT', () => rl.close());

  return {
    scripted: false,
    read(prompt) {
      if (typedAhead.length > 0 || closed) {
        const line = typedAhead.shift();
        if (echo && line !== undefined) output.write(`${prompt}${line}\n`);
        return Promise.resolve(line);
      }
      rl.setPrompt(prompt);
      rl.prompt();
      return new Promise((resolve) => {
        waiting = (line) => {
          waiting = undefined;
          if (echo && line !== undefined) output.write(`${line}\n`);
          resolve(line);
        };
      });
    },
    print(lines) {
      const text = lines.map((line) => `${line}\n`).join('');
      if (!waiting || !rl.terminal) {
        output.write(text);
        return;
      }
      clearLine(output, 0);
      cursorTo(output, 0);
      output.write(text);
      rl.prompt(true);
    },
    columns: () => ('isTTY' in output && output.isTTY && 'columns' in output && typeof output.columns === 'number' ? output.columns : undefined),
    position: () => undefined,
    close: () => rl.close(),
  };
}

export interface ScriptOptions {
  /** Shown in failure messages with the line number. */
  name: string;
  /** Pause before each line, so a recording shows each answer arriving before the next command. */
  delayMs?: number;
}

/** Lines of a script: `#` starts a comment line; each line read is printed after its prompt. */
export function scriptConsole(text: string, output: NodeJS.WritableStream, { name, delayMs = 0 }: ScriptOptions): ChatConsole {
  const lines = text.split(/\r?\n/);
  // The newline that ends the file starts no line.
  if (lines.at(-1) === '') lines.pop();
  let next = 0;
  let last: number | undefined;
  return {
    scripted: true,
    async read(prompt, kind) {
      while (next < lines.length) {
        const line = lines[next]!;
        next += 1;
        if (line.trimStart().startsWith('#') || (kind === 'command' && line.trim() === '')) continue;
        last = next;
        if (delayMs > 0) await sleep(delayMs);
        output.write(`${prompt}${line}\n`);
        return line;
      }
      return undefined;
    },
    print: (printed) => output.write(printed.map((line) => `${line}\n`).join('')),
    columns: () => undefined,
    position: () => (last === undefined ? undefined : `${name}:${last}`),
    close: () => undefined,
  };
}
