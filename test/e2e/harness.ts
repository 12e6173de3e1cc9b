/**
 * End-to-end tests on the playground, the machinery `npm run demo` runs: the UISP simulator, the fake
 * Slack, the bot on its real HTTP receiver, and the terminal chat typing scripted lines as the agent.
 * Tests assert what the agent reads (the transcript), what Slack was asked to show (fake calls) and
 * what UISP was asked to do (simulator requests).
 *
 * test/slack/harness.ts wires the same parts for the Slack app's own tests, which send payloads
 * directly; this one goes through the chat, as a person would.
 */
import { PassThrough } from 'node:stream';
import { SLASH_COMMANDS } from '../../src/commands/index.js';
import { scriptConsole } from '../../src/playground/chat-console.js';
import { PLAYGROUND_AGENT, PLAYGROUND_DIRECTORY, startPlayground, SUPPORT_CHANNEL, type Playground } from '../../src/playground/playground.js';
import { TerminalChat, type ChatIdentity, type ChatResult } from '../../src/playground/terminal-chat.js';
import { postgresStore } from '../support/store.js';

export interface ChatRun {
  result: ChatResult;
  /** Everything the chat printed, prompts and echoed lines included. */
  transcript: string;
}

export interface E2e {
  playground: Playground;
  /** Types the lines (commands, then the answers their forms ask for) as `user`, the agent by default. */
  chat(lines: string[], user?: ChatIdentity): Promise<ChatRun>;
  /** UISP requests that change something, as "METHOD /path", in order. */
  writes(): string[];
  close(): Promise<void>;
}

export async function startE2e(): Promise<E2e> {
  // The store on the test run's PostgreSQL (the demo's own, PGlite in memory, takes seconds to create).
  const store = await postgresStore();
  const playground = await startPlayground({ env: { ISP_TIMEZONE: 'America/Guyana' }, store });
  return {
    playground,
    async chat(lines, user = PLAYGROUND_AGENT) {
      const output = new PassThrough();
      let transcript = '';
      output.on('data', (chunk: Buffer) => (transcript += chunk.toString('utf8')));
      const chat = new TerminalChat({
        fake: playground.fake,
        sender: playground.sender,
        user,
        channel: SUPPORT_CHANNEL,
        directory: PLAYGROUND_DIRECTORY,
        commands: SLASH_COMMANDS,
        settled: playground.settled,
      });
      const result = await chat.run(scriptConsole(lines.join('\n'), output, { name: 'script' }));
      return { result, transcript };
    },
    writes: () => playground.simulator.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`),
    close: async () => {
      await playground.close();
      await store.close();
    },
  };
}

/** The transcript's lines that contain `text`. */
export function linesWith(transcript: string, text: string): string[] {
  return transcript.split('\n').filter((line) => line.includes(text));
}
