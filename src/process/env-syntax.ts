/**
 * The `.env` syntax SubOps reads, parsed here rather than by Node's util.parseEnv: Node's parser skips
 * a line it does not understand without a word, and a quote left open there takes the following lines
 * (a whole `SLACK_BOT_TOKEN=…` line) into the value. Here every line is a setting, a comment or blank,
 * or a problem reported by its number.
 *
 * A line: `NAME=value` or `export NAME=value`; the value bare (a ` #` after it starts a comment; spaces
 * around it are dropped), in single quotes (taken as written) or in double quotes (`\n`, `\"` and `\\`
 * are escapes); after a closing quote only a comment. Lines starting with `#`, and blank ones, are skipped.
 * Problems never quote the line: it may hold a secret.
 */

export interface EnvAssignment {
  name: string;
  value: string;
  /** 1-based line number in the file. */
  line: number;
}

export interface ParsedEnv {
  assignments: EnvAssignment[];
  /** `line N: …`, one for each line that is none of the forms above. */
  problems: string[];
}

const ASSIGNMENT = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/;
const BARE_NAME = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)$/;
const DOUBLE_QUOTE_ESCAPES: Record<string, string> = { n: '\n', '"': '"', '\\': '\\' };

export function parseEnvText(text: string): ParsedEnv {
  const assignments: EnvAssignment[] = [];
  const problems: string[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.replace(/\r$/, '').trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const match = ASSIGNMENT.exec(trimmed);
    if (!match) {
      const bare = BARE_NAME.exec(trimmed)?.[1];
      problems.push(`line ${line}: ${bare ? `${bare} has no "=" (write ${bare}=value)` : 'not NAME=value, a comment (#) or blank'}`);
      return;
    }
    const name = match[1]!;
    const value = parseValue(match[2]!);
    if (typeof value === 'string') assignments.push({ name, value, line });
    else problems.push(`line ${line}: ${name}: ${value.problem}`);
  });
  return { assignments, problems };
}

function parseValue(text: string): string | { problem: string } {
  const quote = text[0];
  if (quote !== '"' && quote !== "'") return text.replace(/(^|\s)#.*$/, '').trim();
  let value = '';
  for (let i = 1; i < text.length; i++) {
    const char = text[i]!;
    if (char === quote) {
      const rest = text.slice(i + 1).trim();
      return rest === '' || rest.startsWith('#') ? value : { problem: 'text after the closing quote (quote the whole value, or put a # before a comment)' };
    }
    const escaped = quote === '"' && char === '\\' ? DOUBLE_QUOTE_ESCAPES[text[i + 1] ?? ''] : undefined;
    if (escaped !== undefined) i++;
    value += escaped ?? char;
  }
  return { problem: `the ${quote} that opens the value is not closed on the same line (a value is one line; write a line break as \\n in double quotes)` };
}
