/**
 * What the agent sees of SubOps' answers, as transcript lines: channel messages, thread replies
 * (indented), message updates, ephemerals and response_url answers, each labelled with where it
 * appeared. Fed with the fake Slack's recorded calls and responses as they arrive.
 */
import { isRecord } from './fake-slack-api.js';
import type { FakeMessage, RecordedCall, RecordedResponse } from './fake-slack.js';
import { labelled } from './layout.js';
import { renderMessage, type DisplayNames } from './render-text.js';

export interface ChatEffectsOptions {
  names: DisplayNames;
  /** The agent at the keyboard: ephemerals for them read "(only you)". */
  userId: string;
  botName: string;
  print(lines: string[]): void;
  /** The terminal's width, to wrap long lines under their label; undefined: no wrapping. */
  width(): number | undefined;
  /** A conversation's messages as Slack holds them now, to place updates and name threads. */
  messages(channel: string): FakeMessage[];
}

type Json = Record<string, unknown>;

export class ChatEffects {
  /** The thread (its parent's "channel ts") the transcript last showed, so replies need no repeated heading. */
  private current: string | undefined;

  constructor(private readonly options: ChatEffectsOptions) {}

  call(call: RecordedCall): void {
    if (call.response.ok !== true) return;
    if (call.method === 'chat.postMessage') this.posted(call);
    else if (call.method === 'chat.update') this.updated(call);
    else if (call.method === 'chat.postEphemeral') this.ephemeral(call.args);
  }

  /** A post to a response_url: ephemeral unless it says in_channel. */
  response({ body }: RecordedResponse): void {
    if (body.delete_original === true) return this.options.print([`(only you) ✎ ${this.options.botName} deleted its answer`]);
    this.answer(body, body.replace_original === true);
  }

  /** The JSON a slash command was acknowledged with, when it carried an answer. */
  commandAck(body: Json): void {
    if (body.text !== undefined || body.blocks !== undefined) this.answer(body, false);
  }

  private answer(body: Json, replaces: boolean): void {
    const where = body.response_type === 'in_channel' ? 'in the channel' : 'only you';
    this.options.print(this.labelled(`(${where}) ${replaces ? '✎ updated' : this.options.botName}: `, this.render(body)));
  }

  private posted(call: RecordedCall): void {
    const channel = String(call.response.channel ?? call.args.channel);
    const ts = String(call.response.ts);
    const message = isRecord(call.response.message) ? call.response.message : call.args;
    const threadTs = typeof call.args.thread_ts === 'string' ? call.args.thread_ts : undefined;
    const lines = this.render(message);
    if (threadTs === undefined) {
      this.current = key(channel, ts);
      this.options.print(this.labelled(`${this.where(channel)}  ${this.options.botName}: `, lines));
      return;
    }
    this.enterThread(channel, threadTs);
    this.options.print(this.labelled(`  ↳ ${this.options.botName}: `, lines));
  }

  private updated(call: RecordedCall): void {
    const channel = String(call.response.channel ?? call.args.channel);
    const ts = String(call.args.ts);
    const message = isRecord(call.response.message) ? call.response.message : call.args;
    // Slack's chat.update answer leaves thread_ts out; the channel's history has it.
    const threadTs = this.find(channel, ts)?.thread_ts;
    const lines = this.render(message);
    if (threadTs === undefined) {
      this.current = key(channel, ts);
      this.options.print(this.labelled(`${this.where(channel)}  ✎ updated: `, lines));
      return;
    }
    this.enterThread(channel, threadTs);
    this.options.print(this.labelled('  ↳ ✎ updated: ', lines));
  }

  private ephemeral(args: Json): void {
    const user = String(args.user);
    const who = user === this.options.userId ? 'only you' : `only @${this.options.names.user(user) ?? user}`;
    this.options.print(this.labelled(`(${who}) ${this.options.botName}: `, this.render(args)));
  }

  /** A reply under a thread the transcript did not just show names that thread first. */
  private enterThread(channel: string, threadTs: string): void {
    const thread = key(channel, threadTs);
    if (this.current === thread) return;
    this.current = thread;
    const parent = this.find(channel, threadTs);
    const title = parent ? this.render(parent)[0] : undefined;
    this.options.print([`${this.where(channel)}  in the thread of ${title ? `“${title}”` : threadTs}:`]);
  }

  private find(channel: string, ts: string): FakeMessage | undefined {
    return this.options.messages(channel).find((message) => message.ts === ts);
  }

  private where(channel: string): string {
    // Posting to a user id (or a D… id) lands in the bot's direct messages with that user.
    if (/^[UWD]/.test(channel)) return 'DM';
    return `#${this.options.names.channel(channel) ?? channel}`;
  }

  private labelled(label: string, lines: string[]): string[] {
    return labelled(label, lines, this.options.width());
  }

  private render(message: Json): string[] {
    return renderMessage(message, this.options.names);
  }
}

function key(channel: string, ts: string): string {
  return `${channel} ${ts}`;
}
