/**
 * Inbound request bodies shaped as Slack sends them (see java-slack-sdk json-logs samples under
 * app-backend/): slash command form fields and the block_actions / view_submission / view_closed
 * payloads, filled with playground values.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { isRecord, PLAYGROUND_WORKSPACE, randomBlockId, stringField } from './fake-slack-api.js';

type Json = Record<string, unknown>;

/** block_id -> action_id -> Slack's state value, e.g. { type: 'plain_text_input', value: 'x' }. */
export type ViewStateValues = Record<string, Record<string, unknown>>;

export interface SlackUserRef {
  userId: string;
  /** Defaults to the user id in lower case. */
  userName?: string;
}

export interface SlashCommandInput extends SlackUserRef {
  command: string;
  text?: string;
  channelId: string;
  /** Defaults to 'directmessage' for D… ids, as Slack sends, else 'playground'. */
  channelName?: string;
  triggerId?: string;
  responseUrl?: string;
  teamId?: string;
}

export interface ViewSubmissionInput extends SlackUserRef {
  /** The view as opened (id, callback_id, private_metadata, blocks, hash); fake.views.get(id) fits. */
  view: Json;
  values: ViewStateValues;
  triggerId?: string;
}

export interface ViewClosedInput extends SlackUserRef {
  view: Json;
  values?: ViewStateValues;
  isCleared?: boolean;
}

export interface BlockActionInput extends SlackUserRef {
  actionId: string;
  /** Defaults to the block holding `actionId` in the message or view blocks. */
  blockId?: string;
  value?: string;
  selectedOption?: { text: { type: 'plain_text'; text: string }; value: string };
  /** A message as the channel shows it, e.g. one of fake.messages(channel); supplies channel, ts and blocks. */
  message?: Json;
  channelId?: string;
  messageTs?: string;
  threadTs?: string;
  /** Set for an action inside a modal; the container is then that view. */
  view?: Json;
  /** Input state of the view or message the action came from. */
  values?: ViewStateValues;
  triggerId?: string;
  responseUrl?: string;
}

/** What only the sender knows: fresh trigger ids, response urls and the clock. */
/** Typing in an external_select of a modal: Slack asks the app for options (block_suggestion). */
export interface BlockSuggestionInput extends SlackUserRef {
  /** The modal as the fake Slack holds it; the field is found in its blocks by action_id. */
  view: Json;
  actionId: string;
  /** What the agent typed so far. */
  value: string;
  values?: ViewStateValues;
}

export interface PayloadStamps {
  triggerId(): string;
  responseUrl(): string;
  nowSeconds(): number;
}

const VERIFICATION_TOKEN = 'playground-verification-token';

export function slashCommandFields(input: SlashCommandInput, stamps: PayloadStamps): Record<string, string> {
  return {
    token: VERIFICATION_TOKEN,
    team_id: input.teamId ?? PLAYGROUND_WORKSPACE.teamId,
    team_domain: PLAYGROUND_WORKSPACE.teamDomain,
    channel_id: input.channelId,
    channel_name: input.channelName ?? channelName(input.channelId),
    user_id: input.userId,
    user_name: userName(input),
    command: input.command,
    text: input.text ?? '',
    api_app_id: PLAYGROUND_WORKSPACE.appId,
    is_enterprise_install: 'false',
    response_url: input.responseUrl ?? stamps.responseUrl(),
    trigger_id: input.triggerId ?? stamps.triggerId(),
  };
}

export function viewSubmissionPayload(input: ViewSubmissionInput, stamps: PayloadStamps): Json {
  return {
    type: 'view_submission',
    ...envelope(input),
    trigger_id: input.triggerId ?? stamps.triggerId(),
    view: viewWithState(input.view, input.values),
    response_urls: [],
  };
}

export function blockSuggestionPayload(input: BlockSuggestionInput): Json {
  const found = findActionElement(input.view.blocks, input.actionId);
  return {
    type: 'block_suggestion',
    ...envelope(input),
    container: { type: 'view', view_id: stringField(input.view, 'id') ?? 'V0000000000' },
    action_id: input.actionId,
    block_id: found?.blockId ?? randomBlockId(),
    value: input.value,
    view: viewWithState(input.view, input.values ?? {}),
  };
}

/** The Events API envelope around one event. */
export function eventCallbackPayload(event: Json, stamps: PayloadStamps): Json {
  const now = stamps.nowSeconds();
  return {
    token: VERIFICATION_TOKEN,
    team_id: PLAYGROUND_WORKSPACE.teamId,
    api_app_id: PLAYGROUND_WORKSPACE.appId,
    event: { event_ts: `${now}.${String(randomInt(1_000_000)).padStart(6, '0')}`, ...event },
    type: 'event_callback',
    event_id: `Ev${randomBytes(5).toString('hex').toUpperCase()}`,
    event_time: now,
  };
}

export function viewClosedPayload(input: ViewClosedInput): Json {
  return {
    type: 'view_closed',
    ...envelope(input),
    view: viewWithState(input.view, input.values ?? {}),
    is_cleared: input.isCleared ?? false,
  };
}

export function blockActionPayload(input: BlockActionInput, stamps: PayloadStamps): Json {
  const source = input.view ?? input.message;
  const found = findActionElement(source?.blocks, input.actionId);
  const payload: Json = {
    type: 'block_actions',
    ...envelope(input),
    trigger_id: input.triggerId ?? stamps.triggerId(),
    actions: [actionObject(input, found, stamps)],
  };
  if (input.view) {
    return { ...payload, container: { type: 'view', view_id: input.view.id }, view: viewWithState(input.view, input.values ?? {}) };
  }
  return { ...payload, ...messageOrigin(input, stamps) };
}

/** The fields every interactive payload shares. */
function envelope(input: SlackUserRef): Json {
  const { teamId, teamDomain, appId } = PLAYGROUND_WORKSPACE;
  return {
    team: { id: teamId, domain: teamDomain },
    user: { id: input.userId, username: userName(input), name: userName(input), team_id: teamId },
    api_app_id: appId,
    token: VERIFICATION_TOKEN,
    enterprise: null,
    is_enterprise_install: false,
  };
}

/** A view as Slack echoes it back: everything Slack stores about it plus what the user entered. */
function viewWithState(view: Json, values: ViewStateValues): Json {
  const { teamId, appId, botId } = PLAYGROUND_WORKSPACE;
  const id = stringField(view, 'id') ?? 'V0000000000';
  return {
    id,
    team_id: teamId,
    type: 'modal',
    private_metadata: '',
    callback_id: '',
    external_id: '',
    hash: '',
    clear_on_close: false,
    notify_on_close: false,
    submit_disabled: false,
    root_view_id: id,
    previous_view_id: null,
    app_id: appId,
    app_installed_team_id: teamId,
    bot_id: botId,
    ...view,
    state: { values },
  };
}

function messageOrigin(input: BlockActionInput, stamps: PayloadStamps): Json {
  const { channel, ...shownMessage } = input.message ?? {};
  const channelId = input.channelId ?? (typeof channel === 'string' ? channel : undefined);
  const messageTs = input.messageTs ?? stringField(shownMessage, 'ts');
  if (channelId === undefined || messageTs === undefined) {
    throw new Error('blockAction needs either a view, or a message (message, or channelId and messageTs)');
  }
  const threadTs = input.threadTs ?? stringField(shownMessage, 'thread_ts');
  return {
    container: {
      type: 'message',
      message_ts: messageTs,
      channel_id: channelId,
      is_ephemeral: false,
      ...(threadTs === undefined ? {} : { thread_ts: threadTs }),
    },
    channel: { id: channelId, name: channelName(channelId) },
    message: { type: 'message', text: '', ...shownMessage, ts: messageTs, ...(threadTs === undefined ? {} : { thread_ts: threadTs }) },
    state: { values: input.values ?? {} },
    response_url: input.responseUrl ?? stamps.responseUrl(),
  };
}

interface FoundElement {
  blockId: string | undefined;
  element: Json;
}

/** The interactive element with that action id in actions, section (accessory) or input blocks. */
function findActionElement(blocks: unknown, actionId: string): FoundElement | undefined {
  if (!Array.isArray(blocks)) return undefined;
  for (const block of blocks.filter(isRecord)) {
    const candidates: unknown[] = [...(Array.isArray(block.elements) ? (block.elements as unknown[]) : []), block.accessory, block.element];
    const element = candidates.find((candidate) => isRecord(candidate) && candidate.action_id === actionId);
    if (isRecord(element)) return { blockId: stringField(block, 'block_id'), element };
  }
  return undefined;
}

function actionObject(input: BlockActionInput, found: FoundElement | undefined, stamps: PayloadStamps): Json {
  const type = found?.element.type ?? (input.selectedOption ? 'static_select' : 'button');
  const value = input.value ?? found?.element.value;
  return {
    action_id: input.actionId,
    // Slack names a random block_id when the app gave none; so does the fake Web API.
    block_id: input.blockId ?? found?.blockId ?? randomBlockId(),
    type,
    ...(type === 'button' ? { text: found?.element.text ?? { type: 'plain_text', text: input.actionId, emoji: true } } : {}),
    ...(value === undefined ? {} : { value }),
    ...(input.selectedOption ? { selected_option: input.selectedOption } : {}),
    action_ts: `${stamps.nowSeconds()}.${String(randomInt(1_000_000)).padStart(6, '0')}`,
  };
}

function userName(input: SlackUserRef): string {
  return input.userName ?? input.userId.toLowerCase();
}

/** Slack names every DM 'directmessage'; playground channels share one name. */
function channelName(channelId: string): string {
  return channelId.startsWith('D') ? 'directmessage' : 'playground';
}
