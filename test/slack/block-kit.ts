/**
 * Block Kit validation for tests: the third-party JSON Schema of TightknitAI/slack-block-kit-validator
 * (draft 2020-12, vendored in test/fixtures/slack; see test/fixtures/SOURCES.md) plus the limits it
 * leaves out (50 blocks per message).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';
import { LIMITS } from '../../src/views/limits.js';

const schemaPath = fileURLToPath(new URL('../fixtures/slack/slack-block-kit-validator/src/slack-block-kit.schema.json', import.meta.url));
const schema = JSON.parse(readFileSync(schemaPath, 'utf8')) as { $id: string };

const ajv = new Ajv2020({ strict: false, allErrors: true });
// ajv-formats is CommonJS: under NodeNext the default import is its module object, whose `default` is the plugin.
addFormats.default(ajv);
ajv.addSchema(schema);

const validateBlocks = ajv.getSchema(schema.$id)!;
const validateModal = ajv.getSchema(`${schema.$id}#/$defs/modal_view`)!;

function problems(validate: typeof validateBlocks): string {
  return ajv.errorsText(validate.errors, { separator: '\n' });
}

/**
 * Slack refuses a message whose block_ids repeat, or whose block has two elements with one action_id
 * (`invalid_blocks`: the message is lost). SubOps keeps the action_ids of buttons and other elements
 * unique in the whole message or view, so a button is found by its action_id alone; inputs are named by
 * their block_id (their action_id is `value` everywhere).
 */
function expectUniqueIds(blocks: unknown[]): void {
  const blockIds: string[] = [];
  const actionIds: string[] = [];
  for (const block of blocks as { type: string; block_id?: string; elements?: { action_id?: string }[]; accessory?: { action_id?: string } }[]) {
    if (block.block_id !== undefined) blockIds.push(block.block_id);
    if (block.type === 'input') continue;
    for (const element of [...(block.elements ?? []), block.accessory]) if (element?.action_id !== undefined) actionIds.push(element.action_id);
  }
  const repeated = (ids: string[]) => ids.filter((id, i) => ids.indexOf(id) !== i);
  expect(repeated(blockIds), 'block_ids used twice').toEqual([]);
  expect(repeated(actionIds), 'action_ids used twice').toEqual([]);
}

export function expectValidModal(view: unknown): void {
  const ok = validateModal(view);
  expect(ok, problems(validateModal)).toBe(true);
  expectUniqueIds((view as { blocks: unknown[] }).blocks);
}

export function expectValidMessage(message: { text: string; blocks: unknown[] }): void {
  expect(message.text.length).toBeGreaterThan(0);
  expect(message.blocks.length).toBeLessThanOrEqual(LIMITS.messageBlocks);
  const ok = validateBlocks(message.blocks);
  expect(ok, problems(validateBlocks)).toBe(true);
  expectUniqueIds(message.blocks);
}

const validateHome = ajv.getSchema(`${schema.$id}#/$defs/home_view`)!;

export function expectValidHome(view: unknown): void {
  const ok = validateHome(view);
  expect(ok, problems(validateHome)).toBe(true);
  expectUniqueIds((view as { blocks: unknown[] }).blocks);
}

const validateOption = ajv.getSchema(`${schema.$id}#/$defs/option_object_plain_text`)!;

/** The options of a block_suggestion answer (at most 100, each a valid plain_text option). */
export function expectValidOptions(answer: { options: unknown[] }): void {
  expect(answer.options.length).toBeLessThanOrEqual(LIMITS.selectOptions);
  for (const option of answer.options) expect(validateOption(option), problems(validateOption)).toBe(true);
}
