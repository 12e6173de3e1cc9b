/**
 * The vocabulary shared by the fake Slack Web API's method handlers: what a handler receives,
 * what it answers, and Slack's error envelopes, so every handler fails the way Slack does.
 */
import { randomBytes } from 'node:crypto';

export type ApiArgs = Record<string, unknown>;
export type ApiResult = Record<string, unknown> & { ok: boolean };
export type MethodHandler = (args: ApiArgs) => ApiResult;

/** The workspace identity every handler reports, so auth.test, messages and views agree. */
export interface FakeWorkspaceIdentity {
  teamId: string;
  teamDomain: string;
  botUserId: string;
  botName: string;
  botId: string;
  appId: string;
}

/** The playground workspace; the sender stamps the same team and app on what it sends. */
export const PLAYGROUND_WORKSPACE: FakeWorkspaceIdentity = {
  teamId: 'T0001',
  teamDomain: 'subops-playground',
  botUserId: 'UBOT',
  botName: 'subops',
  botId: 'B0001',
  appId: 'A0001',
};

// Channels, groups, IMs; user ids too, since posting to a user id lands in the app's DM with them.
const CONVERSATION_ID = /^[CGDUW][A-Z0-9]+$/;

export function apiError(error: string, messages?: string[]): ApiResult {
  return messages ? { ok: false, error, response_metadata: { messages } } : { ok: false, error };
}

/**
 * Slack's argument validator answers `invalid_arguments` with one `[ERROR]` line per problem
 * (the WebClient logs those lines), so a handler that forgot an argument is named in the test log.
 */
export function missingArguments(args: ApiArgs, names: readonly string[]): ApiResult | undefined {
  const missing = names.filter((name) => args[name] === undefined || args[name] === '');
  if (missing.length === 0) return undefined;
  return apiError(
    'invalid_arguments',
    missing.map((name) => `[ERROR] missing required field: ${name}`),
  );
}

/** A non-empty string field of a JSON record, else undefined. */
export function stringField(record: Record<string, unknown>, name: string): string | undefined {
  const value = record[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function conversationProblem(channel: unknown): ApiResult | undefined {
  return CONVERSATION_ID.test(String(channel)) ? undefined : apiError('channel_not_found');
}

/**
 * Slack refuses blocks whose ids collide: two blocks of one message or view with the same block_id, or
 * two elements of one block with the same action_id (`invalid_blocks` for a message). One `[ERROR]`
 * line per collision, by JSON pointer under `pointer`.
 */
export function duplicateIdProblems(blocks: unknown[], pointer: string): string[] {
  const problems: string[] = [];
  const blockIds = new Set<string>();
  blocks.forEach((block, index) => {
    if (!isRecord(block)) return;
    const blockId = stringField(block, 'block_id');
    if (blockId !== undefined) {
      if (blockIds.has(blockId)) problems.push(`[ERROR] duplicate block_id "${blockId}" [json-pointer:${pointer}/${index}/block_id]`);
      blockIds.add(blockId);
    }
    const actionIds = new Set<string>();
    for (const element of blockElements(block)) {
      const actionId = stringField(element, 'action_id');
      if (actionId === undefined) continue;
      if (actionIds.has(actionId)) problems.push(`[ERROR] duplicate action_id "${actionId}" in one block [json-pointer:${pointer}/${index}]`);
      actionIds.add(actionId);
    }
  });
  return problems;
}

/** The interactive elements of a block: an actions block's elements, a section's accessory, an input's element. */
function blockElements(block: Record<string, unknown>): Record<string, unknown>[] {
  const elements: unknown[] = Array.isArray(block.elements) ? [...(block.elements as unknown[])] : [];
  return [...elements, block.accessory, block.element].filter(isRecord);
}

/**
 * Slack gives every block the app left without a block_id a random one; interactive payloads and
 * view state are keyed by it, so the fake does the same.
 */
export function withBlockIds(blocks: unknown[]): unknown[] {
  return blocks.map((block) =>
    isRecord(block) && block.block_id === undefined ? { ...block, block_id: randomBlockId() } : block,
  );
}

/** Four characters, like the block ids Slack makes up. */
export function randomBlockId(): string {
  return randomBytes(3).toString('base64url');
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
