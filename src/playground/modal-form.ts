/**
 * A modal read as a terminal form: its input blocks become fields (label, hint, optional, initial
 * value, numbered choices) and everything else becomes notes in place. Typed answers are checked the
 * way Slack's client checks them before it lets a modal be submitted, and turned into the
 * `view.state.values` Slack sends with the submission. Pure functions; the chat does the asking.
 */
import { isRecord } from './fake-slack-api.js';
import { guttered } from './layout.js';
import { renderBlock, renderTextObject, type DisplayNames } from './render-text.js';
import type { ViewStateValues } from './slack-payloads.js';

type Json = Record<string, unknown>;

/** `typeahead`: an external_select (options load); the typed text is sent as the option SubOps offers for it. */
export type FieldKind = 'text' | 'number' | 'select' | 'typeahead' | 'unsupported';

export interface FormChoice {
  text: string;
  value: string;
  /** The option_groups label it is listed under. */
  group?: string;
  /** The option object as the view has it; a selection sends it back as is. */
  option: Json;
}

export interface FormField {
  blockId: string;
  actionId: string;
  /** The Block Kit element type, e.g. plain_text_input or static_select. */
  elementType: string;
  kind: FieldKind;
  label: string;
  hint?: string;
  placeholder?: string;
  optional: boolean;
  /** The value the field starts with: its initial_value, or its initial option's value. */
  initial?: string;
  /** Select fields only. */
  choices: FormChoice[];
  maxLength?: number;
  /** Slack sends a block action when Enter is pressed in this field (dispatch_action). */
  dispatchOnEnter: boolean;
  /** The problem the app shows right under the field (a ⚠️ context block), when it has one. */
  problem?: string;
}

export type FormItem = { type: 'field'; field: FormField } | { type: 'note'; lines: string[] };

export interface ModalForm {
  title: string;
  /** The submit button's text; undefined when the modal has nothing to submit. */
  submit?: string;
  close: string;
  /** The modal's blocks in order: fields, and notes (sections, context…) rendered as text. */
  items: FormItem[];
  fields: FormField[];
  /** Slack tells the app when such a modal is closed (view_closed). */
  notifyOnClose: boolean;
}

const PROBLEM_MARK = '⚠️';
const TEXT_ELEMENTS = new Set(['plain_text_input', 'email_text_input', 'url_text_input']);
const SELECT_ELEMENTS = new Set(['static_select', 'radio_buttons']);

export function readModal(view: Json, names: DisplayNames): ModalForm {
  const items: FormItem[] = (Array.isArray(view.blocks) ? view.blocks : []).filter(isRecord).map((block) => {
    if (block.type === 'input' && isRecord(block.element)) return { type: 'field', field: readField(block, block.element, names) };
    return { type: 'note', lines: renderBlock(block, names) };
  });
  // SubOps' views put a field's problem right under it (src/views/kit.ts, withProblem): the field to ask again.
  items.forEach((item, index) => {
    const next = items[index + 1];
    const problem = next?.type === 'note' && next.lines[0]?.startsWith(PROBLEM_MARK) ? next.lines.join(' ').slice(PROBLEM_MARK.length).trim() : undefined;
    if (item.type === 'field' && problem) item.field.problem = problem;
  });
  const submit = renderTextObject(view.submit, names);
  return {
    title: renderTextObject(view.title, names),
    ...(submit && { submit }),
    close: renderTextObject(view.close, names) || 'Cancel',
    items,
    fields: items.flatMap((item) => (item.type === 'field' ? [item.field] : [])),
    notifyOnClose: view.notify_on_close === true,
  };
}

function readField(block: Json, element: Json, names: DisplayNames): FormField {
  const elementType = String(element.type);
  const kind: FieldKind = TEXT_ELEMENTS.has(elementType)
    ? 'text'
    : elementType === 'number_input'
      ? 'number'
      : SELECT_ELEMENTS.has(elementType)
        ? 'select'
        : elementType === 'external_select'
          ? 'typeahead'
          : 'unsupported';
  const choices = kind === 'select' ? readChoices(element, names) : [];
  const initialOption = isRecord(element.initial_option) ? element.initial_option : undefined;
  const initial = typeof element.initial_value === 'string' && element.initial_value !== '' ? element.initial_value : initialOption ? String(initialOption.value) : undefined;
  const hint = renderTextObject(block.hint, names);
  const placeholder = renderTextObject(element.placeholder, names);
  const triggers = isRecord(element.dispatch_action_config) ? element.dispatch_action_config.trigger_actions_on : undefined;
  return {
    blockId: String(block.block_id),
    actionId: String(element.action_id),
    elementType,
    kind,
    label: renderTextObject(block.label, names),
    ...(hint && { hint }),
    ...(placeholder && { placeholder }),
    optional: block.optional === true,
    ...(initial !== undefined && { initial }),
    choices,
    ...(typeof element.max_length === 'number' && { maxLength: element.max_length }),
    // Slack's default trigger for a dispatching text input is Enter.
    dispatchOnEnter: block.dispatch_action === true && (!Array.isArray(triggers) || triggers.includes('on_enter_pressed')),
  };
}

function readChoices(element: Json, names: DisplayNames): FormChoice[] {
  const choice = (option: Json, group?: string): FormChoice => ({ text: renderTextObject(option.text, names), value: String(option.value), ...(group && { group }), option });
  if (Array.isArray(element.option_groups)) {
    return element.option_groups.filter(isRecord).flatMap((group) => {
      const label = renderTextObject(group.label, names);
      return (Array.isArray(group.options) ? group.options : []).filter(isRecord).map((option) => choice(option, label));
    });
  }
  return (Array.isArray(element.options) ? element.options : []).filter(isRecord).map((option) => choice(option));
}

export const REQUIRED = 'This field is required.';

/** What a typed answer means for the field: the state value to send, or why Slack would not take it. */
export type Answer = { value: string | undefined } | { problem: string };

/** An empty answer keeps the field's value, like leaving a pre-filled Slack field alone. */
export function parseAnswer(field: FormField, typed: string, current: string | undefined): Answer {
  if (typed === '') return current !== undefined || field.optional ? { value: current } : { problem: REQUIRED };
  switch (field.kind) {
    case 'text':
      return field.maxLength !== undefined && typed.length > field.maxLength ? { problem: `At most ${field.maxLength} characters.` } : { value: typed };
    case 'typeahead':
      // Slack's option values are at most 150 characters.
      return typed.length > 150 ? { problem: 'At most 150 characters.' } : { value: typed };
    case 'number':
      return Number.isFinite(Number(typed)) ? { value: typed } : { problem: 'Enter a number.' };
    case 'select':
      return pickChoice(field.choices, typed);
    case 'unsupported':
      return { problem: `A ${field.elementType} cannot be filled in here; press Enter to skip it.` };
  }
}

/** A choice by its number, its text or value, or the start of exactly one text. */
function pickChoice(choices: FormChoice[], typed: string): Answer {
  const wanted = typed.trim().toLowerCase();
  const byNumber = /^\d+$/.test(wanted) ? choices[Number(wanted) - 1] : undefined;
  const exact = choices.find((c) => c.text.toLowerCase() === wanted || c.value.toLowerCase() === wanted);
  const starting = choices.filter((c) => c.text.toLowerCase().startsWith(wanted));
  const found = byNumber ?? exact ?? (starting.length === 1 ? starting[0] : undefined);
  if (found) return { value: found.value };
  return { problem: starting.length > 1 ? `"${typed}" could be ${starting.map((c) => c.text).join(' or ')}.` : `Pick a number from 1 to ${choices.length}, or type a choice.` };
}

/** `view.state.values` as Slack sends it: every input block, empty ones as null. */
export function stateValues(form: ModalForm, valueOf: (field: FormField) => string | undefined): ViewStateValues {
  const values: ViewStateValues = {};
  for (const field of form.fields) {
    if (field.kind === 'unsupported') continue;
    const value = valueOf(field);
    const state =
      field.kind === 'select'
        ? { type: field.elementType, selected_option: field.choices.find((c) => c.value === value)?.option ?? null }
        : field.kind === 'typeahead'
          ? { type: field.elementType, selected_option: value === undefined ? null : { text: { type: 'plain_text', text: value, emoji: true }, value } }
          : { type: field.elementType, value: value ?? null };
    values[field.blockId] = { [field.actionId]: state };
  }
  return values;
}

/** A state value as the agent sees it: a select's choice by number and text. */
export function displayValue(field: FormField, value: string): string {
  const index = field.choices.findIndex((c) => c.value === value);
  return index === -1 ? value : `${index + 1}. ${field.choices[index]!.text}`;
}

/** The question for one field, e.g. `Device [10.20.1.88]: ` or `Reason (1-4): `. */
export function fieldPrompt(field: FormField, current: string | undefined): string {
  const count = field.choices.length;
  const range = field.kind === 'select' ? ` (${count === 1 ? '1' : `1-${count}`})` : '';
  const state = current !== undefined ? ` [${displayValue(field, current)}]` : field.optional ? ' (optional)' : '';
  return `${field.label}${range}${state}: `;
}

/** The modal drawn in a frame: title, fields with their values, hints and choices, notes in place, and the buttons. */
export function modalLines(form: ModalForm, valueOf: (field: FormField) => string | undefined, width?: number): string[] {
  const body = form.items.flatMap((item) => (item.type === 'note' ? item.lines.filter(Boolean) : fieldLines(item.field, valueOf(item.field))));
  const buttons = [...(form.submit ? [`[${form.submit}]`] : []), `[${form.close}]`].join('  ');
  return [`┌ ${form.title}`, ...guttered('│ ', body, width), `└ ${buttons}`];
}

function fieldLines(field: FormField, value: string | undefined): string[] {
  const state = value !== undefined ? ` [${displayValue(field, value)}]` : field.optional ? ' (optional)' : '';
  // A select's placeholder only says "pick one"; a text field's is an example worth showing.
  const example = value === undefined && field.placeholder && field.kind !== 'select' ? `  e.g. ${field.placeholder}` : '';
  const lines = [`${field.label}${state}${example}`];
  if (field.hint) lines.push(`  ${field.hint}`);
  let group: string | undefined;
  field.choices.forEach((choice, index) => {
    if (choice.group !== undefined && choice.group !== group) lines.push(`  ${(group = choice.group)}`);
    lines.push(`    ${index + 1}. ${choice.text}`);
  });
  return lines;
}
