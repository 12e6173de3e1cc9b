/**
 * Small Block Kit constructors that apply Slack's limits as they build, so every view function in this
 * folder produces valid JSON whatever the data: plain_text is clipped, mrkdwn is clipped without
 * breaking tokens, option lists and block lists are capped. Strings passed as mrkdwn must already be
 * escaped (see ../slack/escape.ts); plain_text is rendered literally by Slack and needs no escaping.
 */
import type { types } from '@slack/bolt';
import { escapeMrkdwn, oneLine } from '../slack/escape.js';
import { clip, clipMrkdwn, LIMITS } from './limits.js';

export type Block = types.KnownBlock;
export type ModalView = types.ModalView;
export type Option = types.PlainTextOption;

/** A message for chat.postMessage / chat.update / respond: `text` is the notification fallback. */
export interface SlackMessage {
  text: string;
  blocks: Block[];
}

/** Shown by Slack as given (no mentions, links or formatting), so not escaped; on one line, so a name draws no line of its own. */
export function plain(text: string, max: number = LIMITS.text): types.PlainTextElement {
  // Slack rejects empty text objects.
  return { type: 'plain_text', text: clip(oneLine(text).trim() || '—', max), emoji: true };
}

/**
 * verbatim: Slack would otherwise turn bare URLs, domains and channel names into links and parse some
 * bare mentions, inside UISP's names too. SubOps' own mentions, links and dates are explicit `<…>`
 * tokens, which Slack still reads.
 */
export function mrkdwn(text: string, max: number = LIMITS.text): types.MrkdwnElement {
  return { type: 'mrkdwn', text: clipMrkdwn(text.trim() || '—', max), verbatim: true };
}

export function section(text: string, accessory?: types.Button): types.SectionBlock {
  return { type: 'section', text: mrkdwn(text), ...(accessory && { accessory }) };
}

/**
 * A heading and lines as as many sections as the text limit needs: every line is shown, none is cut
 * (a single line longer than a section is clipped on its own).
 */
export function sections(heading: string, lines: string[]): types.SectionBlock[] {
  const blocks: types.SectionBlock[] = [];
  let text = heading;
  for (const line of lines) {
    const next = text ? `${text}\n${line}` : line;
    if (next.length > LIMITS.text && text) {
      blocks.push(section(text));
      text = line;
    } else {
      text = next;
    }
  }
  if (text) blocks.push(section(text));
  return blocks;
}

export function fields(items: string[]): types.SectionBlock {
  return { type: 'section', fields: items.slice(0, 10).map((item) => mrkdwn(item, LIMITS.sectionField)) };
}

export function header(text: string): types.HeaderBlock {
  return { type: 'header', text: plain(text, LIMITS.headerText) };
}

export function context(...texts: string[]): types.ContextBlock {
  return { type: 'context', elements: texts.slice(0, LIMITS.contextElements).map((text) => mrkdwn(text)) };
}

export function divider(): types.DividerBlock {
  return { type: 'divider' };
}

export function button(options: { actionId: string; text: string; value?: string; style?: 'primary' | 'danger'; url?: string }): types.Button {
  if (options.value !== undefined && options.value.length > LIMITS.buttonValue) {
    // A clipped value would be corrupt data; callers decide what to show instead.
    throw new RangeError(`Button value is ${options.value.length} characters; Slack allows ${LIMITS.buttonValue}`);
  }
  return {
    type: 'button',
    action_id: options.actionId,
    text: plain(options.text, LIMITS.buttonText),
    ...(options.value !== undefined && { value: options.value }),
    ...(options.style && { style: options.style }),
    ...(options.url && { url: options.url }),
  };
}

/**
 * Action ids are unique within a block, so several buttons of one kind carry a suffix (`lookup_suspend:101`);
 * this matches them all for app.action, with or without the suffix.
 */
export const actionsOf = (actionId: string) => new RegExp(`^${actionId}(:|$)`);

export function actions(blockId: string, elements: types.Button[]): types.ActionsBlock {
  return { type: 'actions', block_id: blockId, elements: elements.slice(0, LIMITS.actionsElements) };
}

export interface TextInputOptions {
  blockId: string;
  actionId: string;
  label: string;
  initial?: string | undefined;
  placeholder?: string;
  hint?: string;
  optional?: boolean;
  multiline?: boolean;
  maxLength?: number;
  /** Send a block action when the agent presses Enter (used to load a client's services). */
  dispatchOnEnter?: boolean;
}

/** The input block around an element: label, hint and optional flag within Slack's limits. */
function inputBlock(o: { blockId: string; label: string; hint?: string | undefined; optional?: boolean | undefined }, element: types.InputBlock['element']): types.InputBlock {
  return {
    type: 'input',
    block_id: o.blockId,
    label: plain(o.label, LIMITS.label),
    optional: o.optional ?? false,
    ...(o.hint && { hint: plain(o.hint, LIMITS.label) }),
    element,
  };
}

export function textInput(o: TextInputOptions): types.InputBlock {
  return {
    ...inputBlock(o, {
      type: 'plain_text_input',
      action_id: o.actionId,
      ...(o.initial && { initial_value: o.initial }),
      ...(o.placeholder && { placeholder: plain(o.placeholder, LIMITS.placeholder) }),
      ...(o.multiline && { multiline: true }),
      ...(o.maxLength && { max_length: o.maxLength }),
      ...(o.dispatchOnEnter && { dispatch_action_config: { trigger_actions_on: ['on_enter_pressed'] } }),
    }),
    ...(o.dispatchOnEnter && { dispatch_action: true }),
  };
}

/** A file field (Slack's file_input): the app needs the files:read scope to download what is picked. */
export function fileInput(o: { blockId: string; actionId: string; label: string; filetypes: string[]; hint?: string; optional?: boolean }): types.InputBlock {
  return inputBlock(o, { type: 'file_input', action_id: o.actionId, filetypes: o.filetypes, max_files: 1 });
}

export interface ExternalSelectOptions {
  blockId: string;
  actionId: string;
  label: string;
  /** What the field starts with: shown and sent as an option whose text is the value itself. */
  initial?: string | undefined;
  placeholder?: string;
  hint?: string;
  optional?: boolean;
  /** Send a block action when an option is picked (used to load a client's services). */
  dispatchOnSelect?: boolean;
}

/**
 * A typeahead field (options load): Slack asks the app for options as the agent types (block_suggestion)
 * and submits the picked option's value, which form readers take like a typed value.
 */
export function externalSelectInput(o: ExternalSelectOptions): types.InputBlock {
  const initial = o.initial && o.initial.length <= LIMITS.optionValue ? option(o.initial, o.initial) : undefined;
  return {
    ...inputBlock(o, {
      type: 'external_select',
      action_id: o.actionId,
      // One typed character is enough: client ids and short names must be findable.
      min_query_length: 1,
      ...(initial && { initial_option: initial }),
      ...(o.placeholder && { placeholder: plain(o.placeholder, LIMITS.placeholder) }),
    }),
    ...(o.dispatchOnSelect && { dispatch_action: true }),
  };
}

export function option(text: string, value: string): Option {
  if (value.length > LIMITS.optionValue) throw new RangeError(`Option value is ${value.length} characters; Slack allows ${LIMITS.optionValue}`);
  return { text: plain(text, LIMITS.optionText), value };
}

export interface SelectOptions {
  blockId: string;
  actionId: string;
  label: string;
  options: Option[];
  initialValue?: string | undefined;
  placeholder?: string;
  hint?: string;
  optional?: boolean;
}

/** A static select in an input block; callers must pass at least one option (Slack requires one). */
export function selectInput(o: SelectOptions): types.InputBlock {
  const options = o.options.slice(0, LIMITS.selectOptions);
  const initial = options.find((opt) => opt.value === o.initialValue);
  return inputBlock(o, {
    type: 'static_select',
    action_id: o.actionId,
    options,
    ...(initial && { initial_option: initial }),
    ...(o.placeholder && { placeholder: plain(o.placeholder, LIMITS.placeholder) }),
  });
}

/** Keeps the first `max - 1` blocks and says how many were left out, instead of failing to post. */
export function capBlocks(blocks: Block[], max: number): Block[] {
  if (blocks.length <= max) return blocks;
  const kept = blocks.slice(0, max - 1);
  return [...kept, context(`…and ${blocks.length - kept.length} more not shown.`)];
}

export function message(text: string, blocks: Block[]): SlackMessage {
  return { text: clipMrkdwn(text.trim() || '—', LIMITS.messageText), blocks: capBlocks(blocks, LIMITS.messageBlocks) };
}

export interface ModalOptions {
  callbackId: string;
  title: string;
  blocks: Block[];
  submit?: string;
  close?: string;
  privateMetadata?: string;
}

export function modal(o: ModalOptions): ModalView {
  if (o.privateMetadata && o.privateMetadata.length > LIMITS.privateMetadata) {
    throw new RangeError(`private_metadata is ${o.privateMetadata.length} characters; Slack allows ${LIMITS.privateMetadata}`);
  }
  return {
    type: 'modal',
    callback_id: o.callbackId,
    title: plain(o.title, LIMITS.viewTitle),
    blocks: capBlocks(o.blocks, LIMITS.modalBlocks),
    close: plain(o.close ?? 'Cancel', LIMITS.viewTitle),
    ...(o.submit && { submit: plain(o.submit, LIMITS.viewTitle) }),
    ...(o.privateMetadata && { private_metadata: o.privateMetadata }),
  };
}

/** A problem shown inside a modal after the ack, when `response_action: errors` is no longer possible. */
export function problem(text: string): types.ContextBlock {
  return context(`:warning: ${text}`);
}

/** An input followed by its problem, when it has one: the problem text is escaped here, as it may quote the agent's input or UISP. */
export function withProblem(input: types.InputBlock, problemText: string | undefined): Block[] {
  return problemText ? [input, problem(escapeMrkdwn(problemText))] : [input];
}
