/**
 * Modals of the fake Slack: views.open, views.push and views.update with Slack's rules that bite
 * real apps: trigger ids work once, external ids are unique, a stale hash is a conflict, and a
 * modal over Slack's limits is refused.
 */
import { randomInt } from 'node:crypto';
import {
  apiError,
  duplicateIdProblems,
  isRecord,
  missingArguments,
  stringField,
  withBlockIds,
  type ApiArgs,
  type ApiResult,
  type FakeWorkspaceIdentity,
  type MethodHandler,
} from './fake-slack-api.js';

type View = Record<string, unknown>;

const MAX_MODAL_BLOCKS = 100;
const MAX_PRIVATE_METADATA = 3000;
const MAX_CALLBACK_ID = 255;
// title, submit and close texts
const MAX_MODAL_LABEL = 24;

export class FakeViews {
  /** view id -> the view as Slack would return it now. */
  readonly views = new Map<string, View>();
  private readonly exchangedTriggers = new Set<string>();
  private lastViewNumber = 0;

  readonly methods: Record<string, MethodHandler> = {
    'views.open': (args) => this.open(args),
    // The fake keeps no view stack, so a pushed view is stored like an opened one.
    'views.push': (args) => this.open(args),
    'views.update': (args) => this.update(args),
    'views.publish': (args) => this.publish(args),
  };
  /** user id -> the Home tab last published for them. */
  readonly homes = new Map<string, View>();

  constructor(private readonly identity: FakeWorkspaceIdentity) {}

  private open(args: ApiArgs): ApiResult {
    const invalid = missingArguments(args, ['trigger_id', 'view']) ?? modalProblem(args.view);
    if (invalid) return invalid;
    const triggerId = String(args.trigger_id);
    if (this.exchangedTriggers.has(triggerId)) return apiError('exchanged_trigger_id');
    const definition = args.view as View;
    const externalId = stringField(definition, 'external_id');
    if (externalId !== undefined && this.findByExternalId(externalId)) return apiError('duplicate_external_id');
    this.exchangedTriggers.add(triggerId);

    const id = `V${String(++this.lastViewNumber).padStart(10, '0')}`;
    const { teamId, appId, botId } = this.identity;
    const view: View = {
      id,
      team_id: teamId,
      ...renderDefinition(definition),
      state: { values: {} },
      root_view_id: id,
      previous_view_id: null,
      app_id: appId,
      app_installed_team_id: teamId,
      bot_id: botId,
    };
    this.views.set(id, view);
    return { ok: true, view: structuredClone(view) };
  }

  private update(args: ApiArgs): ApiResult {
    const viewId = stringField(args, 'view_id');
    const externalId = stringField(args, 'external_id');
    const invalid =
      missingArguments(args, ['view']) ??
      (viewId ?? externalId ? undefined : apiError('invalid_arguments', ['[ERROR] view_id or external_id is required'])) ??
      modalProblem(args.view);
    if (invalid) return invalid;
    const view = viewId !== undefined ? this.views.get(viewId) : this.findByExternalId(externalId ?? '');
    if (!view) return apiError('not_found');
    if (args.hash !== undefined && args.hash !== view.hash) return apiError('hash_conflict');
    // An update replaces the whole definition; identity and entered state stay.
    Object.assign(view, renderDefinition(args.view as View));
    return { ok: true, view: structuredClone(view) };
  }

  private publish(args: ApiArgs): ApiResult {
    const invalid = missingArguments(args, ['user_id', 'view']);
    if (invalid) return invalid;
    const definition = args.view as View;
    if (!isRecord(definition) || definition.type !== 'home') return apiError('invalid_arguments', ["[ERROR] must be 'home' [json-pointer:/view/type]"]);
    if (!Array.isArray(definition.blocks)) return apiError('invalid_arguments', ['[ERROR] must be an array [json-pointer:/view/blocks]']);
    if (definition.blocks.length > MAX_MODAL_BLOCKS) return apiError('invalid_arguments', [`[ERROR] no more than ${MAX_MODAL_BLOCKS} items allowed [json-pointer:/view/blocks]`]);
    const duplicates = duplicateIdProblems(definition.blocks, '/view/blocks');
    if (duplicates.length) return apiError('invalid_arguments', duplicates);
    const userId = String(args.user_id);
    const id = stringField(this.homes.get(userId) ?? {}, 'id') ?? `V${String(++this.lastViewNumber).padStart(10, '0')}`;
    const view: View = { id, team_id: this.identity.teamId, type: 'home', blocks: withBlockIds(definition.blocks), callback_id: definition.callback_id ?? '', private_metadata: definition.private_metadata ?? '', state: { values: {} }, app_id: this.identity.appId, bot_id: this.identity.botId };
    this.homes.set(userId, view);
    return { ok: true, view: structuredClone(view) };
  }

  private findByExternalId(externalId: string): View | undefined {
    return [...this.views.values()].find((view) => view.external_id === externalId);
  }
}

/** The definition part of a stored view, with Slack's defaults and a fresh hash. */
function renderDefinition(definition: View): View {
  return {
    type: definition.type,
    title: definition.title,
    submit: definition.submit ?? null,
    close: definition.close ?? null,
    blocks: withBlockIds(definition.blocks as unknown[]),
    private_metadata: definition.private_metadata ?? '',
    callback_id: definition.callback_id ?? '',
    external_id: definition.external_id ?? '',
    hash: `${Math.floor(Date.now() / 1000)}.${randomInt(10_000_000, 100_000_000)}`,
    clear_on_close: definition.clear_on_close ?? false,
    notify_on_close: definition.notify_on_close ?? false,
    submit_disabled: definition.submit_disabled ?? false,
  };
}

/** Slack checks a modal against its schema and names every violation by JSON pointer. */
function modalProblem(view: unknown): ApiResult | undefined {
  if (!isRecord(view)) return apiError('invalid_arguments', ['[ERROR] must be an object [json-pointer:/view]']);
  const problems: string[] = [];
  const complain = (pointer: string, problem: string) => problems.push(`[ERROR] ${problem} [json-pointer:/view${pointer}]`);

  if (view.type !== 'modal') complain('/type', "must be 'modal'");
  for (const field of ['title', 'submit', 'close'] as const) {
    const text = view[field];
    if (text === undefined && field !== 'title') continue;
    if (!isRecord(text) || text.type !== 'plain_text' || typeof text.text !== 'string' || text.text === '') {
      complain(`/${field}`, 'must be a plain_text object with text');
    } else if (text.text.length > MAX_MODAL_LABEL) {
      complain(`/${field}/text`, `must be at most ${MAX_MODAL_LABEL} characters`);
    }
  }
  if (!Array.isArray(view.blocks)) {
    complain('/blocks', 'must be an array');
  } else {
    if (view.blocks.length > MAX_MODAL_BLOCKS) complain('/blocks', `no more than ${MAX_MODAL_BLOCKS} items allowed`);
    problems.push(...duplicateIdProblems(view.blocks, '/view/blocks'));
    const hasInput = view.blocks.some((block) => isRecord(block) && block.type === 'input');
    if (hasInput && view.submit === undefined) complain('/submit', 'is required when the view has input blocks');
  }
  if (typeof view.private_metadata === 'string' && view.private_metadata.length > MAX_PRIVATE_METADATA) {
    complain('/private_metadata', `must be at most ${MAX_PRIVATE_METADATA} characters`);
  }
  if (typeof view.callback_id === 'string' && view.callback_id.length > MAX_CALLBACK_ID) {
    complain('/callback_id', `must be at most ${MAX_CALLBACK_ID} characters`);
  }
  return problems.length > 0 ? apiError('invalid_arguments', problems) : undefined;
}
