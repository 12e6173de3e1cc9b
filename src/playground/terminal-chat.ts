/**
 * The playground's chat: an agent in a channel types slash commands, SubOps' answers are printed as
 * they arrive (see chat-effects.ts), and each modal it opens is filled in as a form, field by field,
 * then submitted exactly as Slack would submit it. Everything goes through real HTTP: commands and
 * submissions are signed requests to the bot, its answers are calls it makes to the fake Slack.
 *
 * After each line the chat waits for SubOps to settle (the app's own count of work in flight drops to
 * zero) before it prompts again, so answers and prompts do not interleave.
 */
import type { ChatConsole } from './chat-console.js';
import { ChatEffects } from './chat-effects.js';
import { isRecord } from './fake-slack-api.js';
import type { FakeSlack, RecordedCall } from './fake-slack.js';
import { fieldPrompt, modalLines, parseAnswer, readModal, REQUIRED, stateValues, type FormField, type ModalForm } from './modal-form.js';
import { renderTextObject, type DisplayNames } from './render-text.js';
import type { SlackReply, SlackSender, ViewStateValues } from './slack-sender.js';

type Json = Record<string, unknown>;

export interface ChatIdentity {
  id: string;
  name: string;
}

export interface SlashCommandInfo {
  name: string;
  usageHint: string;
  description: string;
}

export interface TerminalChatOptions {
  fake: FakeSlack;
  sender: SlackSender;
  /** Who types. */
  user: ChatIdentity;
  /** Where commands are typed. */
  channel: ChatIdentity;
  /** id -> name of the workspace's users and channels, to show mentions as names. */
  directory: { users: Record<string, string>; channels: Record<string, string> };
  /** The commands the app registered; nothing else is sent. */
  commands: readonly SlashCommandInfo[];
  botName?: string;
  /** Resolves when the bot has finished what it was asked (its WorkTracker's idle()). */
  settled: () => Promise<void>;
  /** How to show a link instead of `label (url)` (DisplayNames.link), e.g. the demo's links into its simulator. */
  link?: DisplayNames['link'];
  /** The chat's own commands besides /help and /press. */
  chatCommands?: readonly ChatCommand[];
}

/** A command of the chat itself, not SubOps' (e.g. the demo's knobs on its simulator): prints what it did, or returns why it cannot. */
export interface ChatCommand extends SlashCommandInfo {
  run(text: string, print: (lines: string[]) => void): Promise<string | undefined>;
}

export type ChatResult = { ok: true } | { ok: false; failure: string };

/** The lines `/help` prints: the app's commands and the chat's own. */
export function chatHelp(commands: readonly SlashCommandInfo[], chatCommands: readonly SlashCommandInfo[] = []): string[] {
  const width = Math.max(...[...commands, ...chatCommands].map((c) => c.name.length + c.usageHint.length + 1));
  const line = (c: SlashCommandInfo) => `  ${`${c.name} ${c.usageHint}`.padEnd(width)}  ${c.description}`;
  return [
    'SubOps commands:',
    ...commands.map(line),
    ...(chatCommands.length ? ['Demo commands (the simulated UISP, not SubOps):', ...chatCommands.map(line)] : []),
    'In a form: Enter keeps the value in [brackets] or skips an optional field; choices by number or text;',
    '  a name or id in a search field lists what matches, as Slack does (pick by number);',
    '  /submit sends the form as it stands, /cancel closes it, and another command closes it and runs.',
    'Also: /press <button> presses a button in a message or a card (e.g. /press Retry, /press Next), /help, exit (or Ctrl-D).',
  ];
}

// Nothing in the playground takes this long; past it the prompt returns and late answers print above it.
const MAX_SETTLE_MS = 30_000;
const CLOSE_WORDS = new Set(['exit', 'quit']);

class ScriptFailure extends Error {}

/** What the agent has on screen: the modal, and which version of it the chat has dealt with. */
interface ShownModal {
  id: string;
  view: Json;
  version: number;
}

const FORM_OPEN = 'A form is open: answer it, /submit it or /cancel it, or type another SubOps command (e.g. /client 1005) to close it and run that.';

/** One option of a typeahead field, as SubOps offered it. */
interface SuggestedOption {
  text: string;
  value: string;
  description?: string;
}

const CANCEL = Symbol('cancel');
const SUBMIT = Symbol('submit');
type FieldAnswer = { value: string | undefined } | typeof CANCEL | typeof SUBMIT;

export class TerminalChat {
  private console: ChatConsole | undefined;
  private readonly names: DisplayNames;
  private readonly effects: ChatEffects;
  private readonly botName: string;
  private modal: ShownModal | undefined;
  /** A command typed while a form was open: the form was closed for it, and it runs next. */
  private leftFor: string | undefined;
  private modalVersions = 0;
  private attendedVersion = 0;

  constructor(private readonly options: TerminalChatOptions) {
    const { users, channels } = options.directory;
    this.names = { user: (id) => users[id], channel: (id) => channels[id], ...(options.link && { link: options.link }) };
    this.botName = options.botName ?? 'SubOps';
    this.effects = new ChatEffects({ names: this.names, userId: options.user.id, botName: this.botName, print: (lines) => this.print(lines), width: () => this.width(), messages: (channel) => options.fake.messages(channel) });
    options.fake.on('call', (call) => this.onCall(call));
    options.fake.on('response', (response) => this.effects.response(response));
  }

  /** Reads and acts on lines until the console ends or the agent types exit. */
  async run(console: ChatConsole): Promise<ChatResult> {
    this.console = console;
    try {
      for (;;) {
        const line = await console.read(`#${this.options.channel.name} @${this.options.user.name}> `, 'command');
        if (line === undefined || CLOSE_WORDS.has(line.trim())) return { ok: true };
        for (let next: string | undefined = line.trim(); next !== undefined; next = this.leftFor, this.leftFor = undefined) {
          await this.handle(next);
          await this.settle();
          await this.attendModal();
        }
      }
    } catch (error) {
      if (!(error instanceof ScriptFailure)) throw error;
      const failure = `${console.position() ?? 'script'}: ${error.message}`;
      console.print([`✗ Script stopped at ${failure}`]);
      return { ok: false, failure };
    } finally {
      this.console = undefined;
    }
  }

  private async handle(line: string): Promise<void> {
    if (line === '') return;
    const word = line.split(/\s+/, 1)[0]!;
    const rest = line.slice(word.length).trim();
    if (word === '/help') return this.print(chatHelp(this.options.commands, this.options.chatCommands));
    if (word === '/press') return this.press(rest);
    const own = this.options.chatCommands?.find((command) => command.name === word);
    if (own) {
      const problem = await own.run(rest, (lines) => this.print(lines));
      return problem === undefined ? undefined : this.refuse(problem);
    }
    if (word === '/submit' || word === '/cancel') return this.refuse('No form is open.');
    if (this.options.commands.some((command) => command.name === word)) return this.slashCommand(word, rest);
    if (word.startsWith('/')) return this.refuse(`SubOps has no ${word} command. Type /help for the list.`);
    this.refuse('SubOps only answers slash commands, e.g. /activate or /payments. Type /help for the list.');
  }

  private async slashCommand(command: string, text: string): Promise<void> {
    const { user, channel } = this.options;
    const reply = await this.send(() => this.options.sender.slashCommand({ command, text, userId: user.id, userName: user.name, channelId: channel.id, channelName: channel.name }));
    if (isRecord(reply.body)) this.effects.commandAck(reply.body);
  }

  /** Presses the newest button with that text: in the agent's private answers (cards, listings) first, then in the channels. */
  private async press(text: string): Promise<void> {
    const wanted = text.toLowerCase();
    const find = (blocks: unknown) => buttonsOf(blocks).find((b) => renderTextObject(b.text, this.names).toLowerCase() === wanted);
    const { user, channel } = this.options;
    for (const answer of [...this.options.fake.responses].reverse()) {
      const button = find(answer.body.blocks);
      if (!button) continue;
      // An ephemeral answer has no ts of its own; Slack sends the press with the message as shown.
      const ts = '0000000000.000000';
      await this.send(() => this.options.sender.blockAction({ userId: user.id, userName: user.name, actionId: String(button.action_id), message: { ...answer.body, ts }, channelId: channel.id, messageTs: ts }));
      return;
    }
    const messages = Object.keys(this.options.directory.channels).flatMap((id) => this.options.fake.messages(id)).sort((a, b) => b.ts.localeCompare(a.ts, 'en', { numeric: true }));
    for (const message of messages) {
      const button = find(message.blocks);
      if (!button) continue;
      await this.send(() => this.options.sender.blockAction({ userId: user.id, userName: user.name, actionId: String(button.action_id), message }));
      return;
    }
    this.refuse(text ? `No button “${text}” in SubOps' messages.` : 'Which button? e.g. /press Retry');
  }

  /** Deals with the modal on screen until none needs the agent: fill in a form, or confirm. */
  private async attendModal(): Promise<void> {
    while (this.modal && this.modal.version !== this.attendedVersion) {
      this.attendedVersion = this.modal.version;
      const form = readModal(this.modal.view, this.names);
      if (form.fields.length > 0) await this.fillForm(this.modal, form);
      else if (form.submit) await this.confirm(this.modal, form);
      await this.settle();
    }
  }

  private async fillForm(shown: ShownModal, shownForm: ModalForm): Promise<void> {
    let modal = shown;
    let form = shownForm;
    // Typed values survive a views.update that keeps the block, as in Slack.
    const answers = new Map<string, string | undefined>();
    const valueOf = (field: FormField) => (answers.has(field.blockId) ? answers.get(field.blockId) : field.initial);
    this.print(modalLines(form, valueOf, this.width()));
    let toAsk = form.fields;
    let submitting = false;
    for (;;) {
      let redrawn = false;
      for (const field of toAsk) {
        // After /submit only what Slack would refuse to send empty is still asked.
        if (submitting && (valueOf(field) !== undefined || field.optional)) continue;
        const answer = await this.askField(modal, form, field, valueOf);
        if (answer === CANCEL) return this.closeModal(modal, form);
        if (answer === SUBMIT) {
          submitting = true;
          continue;
        }
        answers.set(field.blockId, answer.value);
        if (field.dispatchOnEnter && answer.value !== undefined && (await this.pressEnter(modal, form, field, valueOf))) {
          modal = this.modal!;
          this.attendedVersion = modal.version;
          const asked = new Set(form.fields.slice(0, form.fields.indexOf(field) + 1).map((f) => f.blockId));
          form = readModal(modal.view, this.names);
          this.print(modalLines(form, valueOf, this.width()));
          // The field SubOps found wrong is asked again (its problem shows under it), then the rest.
          toAsk = form.fields.filter((f) => !asked.has(f.blockId) || f.problem !== undefined);
          redrawn = true;
          break;
        }
      }
      if (redrawn) continue;
      const errors = await this.submit(modal, stateValues(form, valueOf));
      if (!errors) return;
      this.print(Object.entries(errors).map(([blockId, text]) => `  ⚠️ ${form.fields.find((f) => f.blockId === blockId)?.label ?? blockId}: ${text}`));
      const wrong = form.fields.filter((f) => errors[f.blockId] !== undefined);
      toAsk = wrong.length > 0 ? wrong : form.fields;
      submitting = false;
    }
  }

  private async askField(modal: ShownModal, form: ModalForm, field: FormField, valueOf: (field: FormField) => string | undefined): Promise<FieldAnswer> {
    const current = valueOf(field);
    let prompt = fieldPrompt(field, current);
    let offered: SuggestedOption[] = [];
    for (;;) {
      const line = await this.console!.read(`  ${prompt}`, 'answer');
      if (line === undefined) {
        if (this.console!.scripted) throw new ScriptFailure(`the script ended while the “${form.title}” form asked for ${field.label}.`);
        return CANCEL;
      }
      const typed = line.trim();
      if (typed === '/cancel') return CANCEL;
      if (this.leavesForm(typed)) return CANCEL;
      const required = current === undefined && !field.optional;
      if (typed === '/submit' && !required) return SUBMIT;
      const picked = /^\d+$/.test(typed) ? offered[Number(typed) - 1] : undefined;
      if (picked) return { value: picked.value };
      const answer = typed === '/submit' ? { problem: REQUIRED } : typed.startsWith('/') ? { problem: FORM_OPEN } : parseAnswer(field, typed, current);
      if (!('value' in answer)) {
        this.refuse(`${field.label}: ${answer.problem}`);
        continue;
      }
      if (field.kind !== 'typeahead' || typed === '') return answer;
      // As Slack's typeahead: the options SubOps offers for the typed text; the only one is taken, several are listed.
      const options = await this.suggestions(modal, form, field, typed, valueOf);
      const others = options.filter((o) => o.value.toLowerCase() !== typed.toLowerCase());
      if (others.length === 0) return answer;
      if (others.length === 1) {
        this.print([`    → ${others[0]!.text}`]);
        return { value: others[0]!.value };
      }
      offered = options;
      this.print(options.map((o, index) => `    ${index + 1}. ${o.text}${o.description ? `  ${o.description}` : ''}`));
      prompt = `${field.label} (1-${options.length}, or type again): `;
    }
  }

  /** A SubOps command typed in a form or a confirmation closes it, as Cancel would, and runs next. */
  private leavesForm(typed: string): boolean {
    const word = typed.split(/\s+/, 1)[0]!;
    if (!this.options.commands.some((command) => command.name === word)) return false;
    this.leftFor = typed;
    return true;
  }

  /** The options SubOps offers for text typed in a typeahead field: the block_suggestion Slack sends as the agent types. */
  private async suggestions(modal: ShownModal, form: ModalForm, field: FormField, typed: string, valueOf: (field: FormField) => string | undefined): Promise<SuggestedOption[]> {
    const { id: userId, name: userName } = this.options.user;
    const reply = await this.send(() => this.options.sender.blockSuggestion({ userId, userName, view: modal.view, actionId: field.actionId, value: typed, values: stateValues(form, valueOf) }));
    const body: Json = isRecord(reply.body) ? reply.body : {};
    const list = (value: unknown): Json[] => (Array.isArray(value) ? (value as unknown[]).filter(isRecord) : []);
    return [...list(body.options), ...list(body.option_groups).flatMap((group) => list(group.options))].map((option) => {
      const description = renderTextObject(option.description, this.names);
      return { text: renderTextObject(option.text, this.names), value: String(option.value), ...(description && { description }) };
    });
  }

  /** Enter in a dispatching field sends its block action; true when SubOps redrew the modal. */
  private async pressEnter(modal: ShownModal, form: ModalForm, field: FormField, valueOf: (field: FormField) => string | undefined): Promise<boolean> {
    const value = valueOf(field);
    await this.send(() =>
      this.options.sender.blockAction({
        userId: this.options.user.id,
        userName: this.options.user.name,
        actionId: field.actionId,
        blockId: field.blockId,
        // A typeahead field sends the option SubOps offers for the typed text; a text field its value.
        ...(value !== undefined && (field.kind === 'typeahead' ? { selectedOption: { text: { type: 'plain_text' as const, text: value }, value } } : { value })),
        view: modal.view,
        values: stateValues(form, valueOf),
      }),
    );
    await this.settle();
    return this.modal !== undefined && this.modal.version !== modal.version;
  }

  /** A modal with nothing to fill in but a submit button: the app's confirmation step. */
  private async confirm(modal: ShownModal, form: ModalForm): Promise<void> {
    for (;;) {
      const line = await this.console!.read(`  Confirm “${form.submit}”? [y/N] `, 'answer');
      if (line === undefined && this.console!.scripted) throw new ScriptFailure(`the script ended while “${form.title}” asked for a confirmation.`);
      const typed = (line ?? '').trim().toLowerCase();
      if (typed === 'y' || typed === 'yes') {
        await this.submit(modal, {});
        return;
      }
      if (typed === '' || typed === 'n' || typed === 'no' || this.leavesForm(line?.trim() ?? '')) return this.closeModal(modal, form);
      this.refuse('Answer y or n.');
    }
  }

  /** Sends the view_submission; returns the field errors when the app refused it, else applies its answer. */
  private async submit(modal: ShownModal, values: ViewStateValues): Promise<Record<string, string> | undefined> {
    const reply = await this.send(() => this.options.sender.viewSubmission({ userId: this.options.user.id, userName: this.options.user.name, view: modal.view, values }));
    const body: Json = isRecord(reply.body) ? reply.body : {};
    if (body.response_action === 'errors' && isRecord(body.errors)) {
      return Object.fromEntries(Object.entries(body.errors).map(([blockId, text]) => [blockId, String(text)]));
    }
    if ((body.response_action === 'update' || body.response_action === 'push') && isRecord(body.view)) {
      // Unless the app already changed the modal again after its ack, the ack's view is what shows.
      if (this.modal?.version === modal.version) this.show({ ...identityOf(modal.view), ...body.view });
      return undefined;
    }
    // An empty ack (or response_action clear) closes the modal in Slack.
    if (this.modal?.id === modal.id) this.modal = undefined;
    return undefined;
  }

  private async closeModal(modal: ShownModal, form: ModalForm): Promise<void> {
    this.print([`└ closed “${form.title}”`]);
    if (this.modal?.id === modal.id) this.modal = undefined;
    if (form.notifyOnClose) await this.send(() => this.options.sender.viewClosed({ userId: this.options.user.id, view: modal.view }));
  }

  private onCall(call: RecordedCall): void {
    if (call.response.ok !== true) return;
    if (call.method === 'views.open' || call.method === 'views.push') return this.show(call.response.view);
    if (call.method === 'views.update') {
      // Only the modal on screen can change; an update to one the agent closed shows nothing.
      if (isRecord(call.response.view) && call.response.view.id === this.modal?.id) this.show(call.response.view);
      return;
    }
    this.effects.call(call);
  }

  /** A new or changed modal. Forms are printed when the chat asks for them; anything else at once. */
  private show(view: unknown): void {
    if (!isRecord(view)) return;
    this.modal = { id: String(view.id), view, version: ++this.modalVersions };
    const form = readModal(view, this.names);
    if (form.fields.length === 0) this.print(modalLines(form, () => undefined, this.width()));
  }

  /** Sends one request to the bot; a non-200 answer is a failed step. */
  private async send(request: () => Promise<SlackReply>): Promise<SlackReply> {
    const reply = await request();
    if (reply.status !== 200) this.refuse(`SubOps answered HTTP ${reply.status}.`);
    return reply;
  }

  /** Waits until the bot has finished, or MAX_SETTLE_MS have passed (then its answers print as they come). */
  private async settle(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const tooLong = new Promise<'too-long'>((resolve) => {
      timer = setTimeout(() => resolve('too-long'), MAX_SETTLE_MS);
    });
    try {
      if ((await Promise.race([this.options.settled(), tooLong])) === 'too-long') this.print(['(SubOps is still working: its answers will appear as they arrive.)']);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Something the chat cannot do: told to a person, fatal to a script. */
  private refuse(message: string): void {
    if (this.console?.scripted) throw new ScriptFailure(message);
    this.print([`  ⚠️ ${message}`]);
  }

  private print(lines: string[]): void {
    this.console?.print(lines);
  }

  private width(): number | undefined {
    return this.console?.columns();
  }
}

// What Slack keeps of a view when response_action "update" replaces its definition.
const VIEW_IDENTITY = ['id', 'team_id', 'root_view_id', 'previous_view_id', 'app_id', 'app_installed_team_id', 'bot_id', 'hash'];

function identityOf(view: Json): Json {
  return Object.fromEntries(VIEW_IDENTITY.filter((field) => field in view).map((field) => [field, view[field]]));
}

/** Buttons of a message, in actions blocks or as section accessories. */
function buttonsOf(blocks: unknown): Json[] {
  if (!Array.isArray(blocks)) return [];
  return blocks.filter(isRecord).flatMap((block) => [...(Array.isArray(block.elements) ? (block.elements as unknown[]) : []), block.accessory].filter((element): element is Json => isRecord(element) && element.type === 'button'));
}
