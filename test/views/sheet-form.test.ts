/** The install sheet's form and the buttons that reach it, as pure views. */
import { describe, expect, it } from 'vitest';
import { EVERY_ACTION, type AccessAction } from '../../src/services/access.js';
import { activationForm } from '../../src/views/activation.js';
import { homeView } from '../../src/views/home.js';
import { sheetForm } from '../../src/views/sheet.js';

const origin = { channelId: 'C0SUPPORT', userId: 'U0AGENT' };
type Block = { type: string; block_id?: string; element?: { type: string }; accessory?: { action_id: string }; elements?: { action_id?: string; text?: unknown }[] };
const blocksOf = (view: { blocks: unknown[] }) => view.blocks as Block[];
const actionIds = (view: { blocks: unknown[] }) => blocksOf(view).flatMap((block) => [block.accessory?.action_id, ...(block.elements ?? []).map((e) => e.action_id)]).filter(Boolean);

describe('sheetForm', () => {
  it('offers the template, then the file field, then the paste field', () => {
    const blocks = blocksOf(sheetForm(origin));
    expect(blocks[0]!.accessory?.action_id).toBe('sheet_template');
    expect(blocks.filter((block) => block.type === 'input').map((block) => [block.block_id, block.element?.type])).toEqual([
      ['sheet_file', 'file_input'],
      ['sheet', 'plain_text_input'],
    ]);
  });

  it('shows a problem under the field it is about', () => {
    const under = (field: 'file' | 'paste') => {
      const blocks = blocksOf(sheetForm(origin, undefined, 'broken.csv is not an install sheet', field));
      return blocks[blocks.findIndex((block) => JSON.stringify(block).includes('not an install sheet')) - 1]!.block_id;
    };
    expect(under('file')).toBe('sheet_file');
    expect(under('paste')).toBe('sheet');
  });
});

describe('the Install sheet buttons', () => {
  it('the activation form offers it', () => {
    expect(actionIds(activationForm({ origin }))).toContain('sheet_open');
  });

  it('the Home tab offers it to a user who may activate, and not to one who may not', () => {
    const home = (allowed: ReadonlySet<AccessAction>) => actionIds(homeView({ userId: 'U0AGENT', allowed }));
    expect(home(EVERY_ACTION)).toContain('home_sheet');
    expect(home(new Set<AccessAction>(['lookup']))).not.toContain('home_sheet');
  });
});
