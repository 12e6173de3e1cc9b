/**
 * Channel history of the fake Slack: chat.postMessage, chat.update, chat.postEphemeral and
 * chat.getPermalink, answering with the shapes of the java-slack-sdk samples.
 */
import {
  apiError,
  conversationProblem,
  missingArguments,
  stringField,
  withBlockIds,
  type ApiArgs,
  type ApiResult,
  type FakeWorkspaceIdentity,
  type MethodHandler,
} from './fake-slack-api.js';

/**
 * A message as the channel shows it now: thread replies carry thread_ts, updates carry edited.
 * A type alias rather than an interface, so it passes as a plain JSON record (e.g. to the sender).
 */
export type FakeMessage = {
  type: 'message';
  channel: string;
  ts: string;
  thread_ts?: string;
  parent_user_id?: string;
  user: string;
  bot_id: string;
  app_id: string;
  team: string;
  text: string;
  blocks?: unknown[];
  attachments?: unknown[];
  metadata?: unknown;
  edited?: { user: string; ts: string };
};

const MAX_TEXT_LENGTH = 40_000;
const MAX_MESSAGE_BLOCKS = 50;

/** Slack message timestamps: seconds.microseconds, unique and increasing within the workspace. */
class MessageClock {
  private micros = 1_700_000_000_000_000;
  next(): string {
    this.micros += 100;
    const seconds = Math.floor(this.micros / 1_000_000);
    return `${seconds}.${String(this.micros % 1_000_000).padStart(6, '0')}`;
  }
}

export class FakeMessages {
  private readonly byChannel = new Map<string, FakeMessage[]>();
  private readonly clock = new MessageClock();

  readonly methods: Record<string, MethodHandler> = {
    'chat.postMessage': (args) => this.post(args),
    'chat.update': (args) => this.update(args),
    'chat.postEphemeral': (args) => this.postEphemeral(args),
    'chat.getPermalink': (args) => this.permalink(args),
  };

  constructor(private readonly identity: FakeWorkspaceIdentity) {}

  /** Copies, so a test holding an old snapshot sees it unchanged after later updates. */
  list(channel: string): FakeMessage[] {
    return structuredClone(this.byChannel.get(channel) ?? []);
  }

  private post(args: ApiArgs): ApiResult {
    const invalid = missingArguments(args, ['channel']) ?? contentProblem(args) ?? conversationProblem(args.channel);
    if (invalid) return invalid;
    const channel = String(args.channel);
    const threadTs = stringField(args, 'thread_ts');
    const parent = threadTs === undefined ? undefined : this.find(channel, threadTs);
    const message: FakeMessage = {
      type: 'message',
      channel,
      ts: this.clock.next(),
      ...(threadTs === undefined ? {} : { thread_ts: threadTs }),
      ...(parent === undefined ? {} : { parent_user_id: parent.user }),
      user: this.identity.botUserId,
      bot_id: this.identity.botId,
      app_id: this.identity.appId,
      team: this.identity.teamId,
      text: stringField(args, 'text') ?? '',
      ...content(args),
    };
    this.history(channel).push(message);
    return { ok: true, channel, ts: message.ts, message: this.asReturned(message) };
  }

  private update(args: ApiArgs): ApiResult {
    const invalid = missingArguments(args, ['channel', 'ts']) ?? contentProblem(args) ?? conversationProblem(args.channel);
    if (invalid) return invalid;
    const channel = String(args.channel);
    const message = this.find(channel, String(args.ts));
    if (!message) return apiError('message_not_found');
    // chat.update keeps whatever the call leaves out; an empty array is how blocks get removed.
    Object.assign(message, content(args), typeof args.text === 'string' ? { text: args.text } : {});
    message.edited = { user: this.identity.botUserId, ts: this.clock.next() };
    // Slack's chat.update echoes the message without its ts fields; the ts is at the top level.
    const { ts: _ts, thread_ts: _threadTs, parent_user_id: _parent, ...updated } = this.asReturned(message);
    return { ok: true, channel, ts: message.ts, text: message.text, message: updated };
  }

  private postEphemeral(args: ApiArgs): ApiResult {
    const invalid = missingArguments(args, ['channel', 'user']) ?? contentProblem(args) ?? conversationProblem(args.channel);
    return invalid ?? { ok: true, message_ts: this.clock.next() };
  }

  private permalink(args: ApiArgs): ApiResult {
    const invalid = missingArguments(args, ['channel', 'message_ts']);
    if (invalid) return invalid;
    const channel = String(args.channel);
    const message = this.find(channel, String(args.message_ts));
    if (!message) return apiError('message_not_found');
    const base = `https://${this.identity.teamDomain}.slack.com/archives/${channel}/p${message.ts.replace('.', '')}`;
    const permalink = message.thread_ts ? `${base}?thread_ts=${message.thread_ts}&cid=${channel}` : base;
    return { ok: true, channel, permalink };
  }

  private find(channel: string, ts: string): FakeMessage | undefined {
    return this.byChannel.get(channel)?.find((message) => message.ts === ts);
  }

  private history(channel: string): FakeMessage[] {
    let messages = this.byChannel.get(channel);
    if (!messages) {
      messages = [];
      this.byChannel.set(channel, messages);
    }
    return messages;
  }

  /** The `message` object of a chat.* answer: no channel field, plus the bot profile. */
  private asReturned({ channel: _channel, ...message }: FakeMessage): Record<string, unknown> {
    const { botId, botName, appId, teamId } = this.identity;
    const bot_profile = { id: botId, deleted: false, name: botName, updated: 1_700_000_000, app_id: appId, team_id: teamId };
    return structuredClone({ ...message, bot_profile });
  }
}

/** Slack refuses empty or oversized messages. */
function contentProblem(args: ApiArgs): ApiResult | undefined {
  const { text, blocks, attachments } = args;
  if (!text && blocks === undefined && attachments === undefined) return apiError('no_text');
  if (typeof text === 'string' && text.length > MAX_TEXT_LENGTH) return apiError('msg_too_long');
  if (blocks !== undefined && !Array.isArray(blocks)) {
    return apiError('invalid_blocks', ['[ERROR] expected an array of blocks [json-pointer:/blocks]']);
  }
  if (Array.isArray(blocks) && blocks.length > MAX_MESSAGE_BLOCKS) {
    return apiError('invalid_blocks', [`[ERROR] no more than ${MAX_MESSAGE_BLOCKS} items allowed [json-pointer:/blocks]`]);
  }
  if (attachments !== undefined && !Array.isArray(attachments)) return apiError('invalid_attachments');
  return undefined;
}

/** The rich parts a call may set; each is copied only when the call names it. */
function content(args: ApiArgs): Partial<Pick<FakeMessage, 'blocks' | 'attachments' | 'metadata'>> {
  return {
    ...(Array.isArray(args.blocks) ? { blocks: withBlockIds(args.blocks) } : {}),
    ...(Array.isArray(args.attachments) ? { attachments: args.attachments } : {}),
    ...(args.metadata === undefined ? {} : { metadata: args.metadata }),
  };
}
