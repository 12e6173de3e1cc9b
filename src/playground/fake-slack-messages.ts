/**
 * Channel history of the fake Slack: chat.postMessage, chat.update, chat.delete, chat.postEphemeral and
 * chat.getPermalink, answering with the shapes of the java-slack-sdk samples, and reading it back with
 * conversations.history and conversations.replies (metadata only with include_all_metadata, as Slack).
 */
import {
  apiError,
  conversationProblem,
  missingArguments,
  stringField,
  duplicateIdProblems,
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

/**
 * Slack message timestamps: seconds.microseconds, unique and increasing within the workspace, and on
 * the wall clock like Slack's (SubOps compares an audit record's ts with the time of a UISP change).
 */
class MessageClock {
  private micros = 0;
  next(): string {
    this.micros = Math.max(this.micros + 100, Date.now() * 1000);
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
    'chat.delete': (args) => this.remove(args),
    'chat.postEphemeral': (args) => this.postEphemeral(args),
    'chat.getPermalink': (args) => this.permalink(args),
    'conversations.history': (args) => this.readHistory(args),
    'conversations.replies': (args) => this.replies(args),
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

  /** A bot may delete only its own messages; a thread parent's replies stay, as Slack keeps them. */
  private remove(args: ApiArgs): ApiResult {
    const invalid = missingArguments(args, ['channel', 'ts']) ?? conversationProblem(args.channel);
    if (invalid) return invalid;
    const channel = String(args.channel);
    const message = this.find(channel, String(args.ts));
    if (!message) return apiError('message_not_found');
    if (message.bot_id !== this.identity.botId) return apiError('cant_delete_message');
    this.history(channel).splice(this.history(channel).indexOf(message), 1);
    return { ok: true, channel, ts: message.ts };
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

  /** Top-level messages (and thread parents), newest first, between oldest and latest, paged by cursor. */
  private readHistory(args: ApiArgs): ApiResult {
    const invalid = missingArguments(args, ['channel']) ?? conversationProblem(args.channel);
    if (invalid) return invalid;
    const inclusive = args.inclusive === true || args.inclusive === 'true' || args.inclusive === '1';
    const oldest = Number(args.oldest ?? 0);
    const latest = args.latest === undefined ? Number.POSITIVE_INFINITY : Number(args.latest);
    const inRange = (ts: number) => (inclusive ? ts >= oldest && ts <= latest : ts > oldest && ts < latest);
    const messages = (this.byChannel.get(String(args.channel)) ?? []).filter((m) => m.thread_ts === undefined || m.thread_ts === m.ts).filter((m) => inRange(Number(m.ts)));
    return this.page([...messages].reverse(), args);
  }

  /** A thread: its parent first, then the replies, oldest first. */
  private replies(args: ApiArgs): ApiResult {
    const invalid = missingArguments(args, ['channel', 'ts']) ?? conversationProblem(args.channel);
    if (invalid) return invalid;
    const channel = String(args.channel);
    const ts = String(args.ts);
    const parent = this.find(channel, ts);
    if (!parent) return apiError('thread_not_found');
    return this.page([parent, ...(this.byChannel.get(channel) ?? []).filter((m) => m.thread_ts === ts && m.ts !== ts)], args);
  }

  private page(messages: FakeMessage[], args: ApiArgs): ApiResult {
    const limit = Math.min(Math.max(Number(args.limit ?? 100) || 100, 1), 999);
    const start = Number(args.cursor ?? 0) || 0;
    const withMetadata = args.include_all_metadata === true || args.include_all_metadata === 'true' || args.include_all_metadata === '1';
    const shown = messages.slice(start, start + limit).map(({ channel: _channel, metadata, ...message }) => structuredClone({ ...message, ...(withMetadata && metadata !== undefined ? { metadata } : {}) }));
    const hasMore = start + limit < messages.length;
    return { ok: true, messages: shown, has_more: hasMore, ...(hasMore ? { response_metadata: { next_cursor: String(start + limit) } } : {}) };
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
  const duplicates = Array.isArray(blocks) ? duplicateIdProblems(blocks, '/blocks') : [];
  if (duplicates.length) return apiError('invalid_blocks', duplicates);
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
