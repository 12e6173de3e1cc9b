/**
 * `npm run demo` / `subops demo`: the Slack bot in a terminal chat, offline. Starts the playground
 * (UISP simulator with sample data, fake Slack, the bot on its HTTP receiver), says what to try, and
 * chats until exit, or runs a script of commands and answers (`--script`) for tests and recordings.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { parseFlags } from '../process/flags.js';
import { EXIT, UsageError, writeLine, type ProcessIo } from '../process/io.js';
import { SLASH_COMMANDS } from '../commands/index.js';
import { scriptConsole, terminalConsole } from './chat-console.js';
import { sampleTries, sampleTryLines } from './intro.js';
import { outageKnobs, outageTries } from './outage-knobs.js';
import { AUDIT_CHANNEL, PLAYGROUND_AGENT, PLAYGROUND_DIRECTORY, startPlayground, SUPPORT_CHANNEL, type Playground } from './playground.js';
import { chatHelp, TerminalChat, type ChatCommand } from './terminal-chat.js';

const DEMO_HELP = `Usage: subops demo [--script <file> [--slow]]

Try the SubOps Slack bot in your terminal, offline: the bundled UISP simulator with sample data, a
local fake of Slack, and the bot itself over real HTTP. Type slash commands (/activate, /suspend 101,
/payments…); modals are asked as forms, answers print as they arrive. /takedown <device> and
/bringback <device> play an outage in the simulated UISP: SubOps' outage watch posts its thread in
#subops-audit. exit or Ctrl-D quits.

  --script <file>  run the commands and form answers in <file>, one per line (# starts a comment;
                   answers follow the command that asks for them, in field order; an empty line is
                   Enter). Exit code 1 when a line cannot be used, e.g. an answer a field refuses.
  --slow           pause before each script line, for recording a walkthrough.`;

// Long enough to read what a line brought before the next one is typed.
const SLOW_LINE_DELAY_MS = 900;
// How often the demo's outage watch polls (serve's default is 60 s): a demo shows what changed within
// seconds. /takedown and /bringback also make it poll at once.
const DEMO_OUTAGE_POLL_MS = 5_000;
const OUTAGES_CHANNEL = `#${AUDIT_CHANNEL.name}`;

export async function demo(argv: string[], io: ProcessIo): Promise<number> {
  const { values } = parseFlags(argv, { script: { type: 'string' }, slow: { type: 'boolean' } });
  if (values.help) return writeLine(io.stdout, DEMO_HELP), EXIT.ok;
  if (values.slow && values.script === undefined) throw new UsageError('--slow only applies to a --script.');
  const script = values.script === undefined ? undefined : await readScript(values.script);

  // The chat owns stdout; warnings and errors of the bot go to stderr, and quiet runs print none.
  const playground = await startPlayground({ env: { LOG_LEVEL: 'warn', ...io.env }, log: io.stderr, events: { outagePollMs: DEMO_OUTAGE_POLL_MS } });
  try {
    const { watch, minMs } = playground.outages!;
    const chatCommands = outageKnobs({ simulator: playground.simulator, watch, minMs, channelName: OUTAGES_CHANNEL });
    io.stdout.write(introLines(playground, chatCommands).map((line) => `${line}\n`).join(''));
    const chat = new TerminalChat({
      fake: playground.fake,
      sender: playground.sender,
      user: PLAYGROUND_AGENT,
      channel: SUPPORT_CHANNEL,
      directory: PLAYGROUND_DIRECTORY,
      commands: SLASH_COMMANDS,
      settled: playground.settled,
      link: simulatorLinks(playground.simulator.url),
      chatCommands,
    });
    const console = script
      ? scriptConsole(script.text, io.stdout, { name: script.name, delayMs: values.slow ? SLOW_LINE_DELAY_MS : 0 })
      : terminalConsole(io.stdin, io.stdout);
    const result = await chat.run(console);
    console.close();
    return result.ok ? EXIT.ok : EXIT.failed;
  } finally {
    await playground.close();
  }
}

async function readScript(path: string): Promise<{ name: string; text: string }> {
  try {
    return { name: basename(path), text: await readFile(path, 'utf8') };
  } catch (error) {
    throw new UsageError(`--script: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)}).`);
  }
}

function introLines(playground: Playground, chatCommands: readonly ChatCommand[]): string[] {
  const organization = playground.simulator.data.organization?.name;
  return [
    'SubOps playground: the Slack bot, offline.',
    `UISP is the bundled simulator with its sample data${organization ? ` (${organization})` : ''}; Slack is a local fake. Nothing real is touched.`,
    `You are @${PLAYGROUND_AGENT.name} in #${SUPPORT_CHANNEL.name}; SubOps keeps its audit trail in #${AUDIT_CHANNEL.name}.`,
    '',
    ...chatHelp(SLASH_COMMANDS, chatCommands),
    '',
    'Try, from the sample data:',
    ...sampleTryLines([...sampleTries(playground.simulator.data, playground.statuses), ...outageTries(playground.simulator.data, OUTAGES_CHANNEL)]),
    '',
  ];
}

/**
 * Links into the simulated UISP (a client's CRM page) lead nowhere a browser could open: the simulator
 * serves the API only, and it stops with the demo. They are named as the demo's, without the address.
 */
function simulatorLinks(simulatorUrl: string): (url: string, label: string | undefined) => string | undefined {
  return (url, label) => (url.startsWith(`${simulatorUrl}/`) ? `${label ?? 'link'} (in the demo's simulated UISP: no page to open)` : undefined);
}
