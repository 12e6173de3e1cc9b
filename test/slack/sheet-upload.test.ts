/**
 * /activate sheet with the sheet as a file: the form's file field (downloaded from Slack with the bot
 * token after the ack, bounded), the Template button (the template CSV in the agent's DM), and the Install
 * sheet buttons on the activation form and the Home tab.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SHEET_COLUMNS, readSheet, sheetTemplate } from '../../src/services/sheets/sheet.js';
import { AGENT, BOT_TOKEN, CHANNEL, chosenFiles, inputs, shown, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const HEADER = 'device,first_name,last_name,client_id';
/** As a spreadsheet saves it: a byte-order mark, CRLF line ends. */
const CLEAN_FILE = `\uFEFF${[HEADER, '10.20.1.51,Priya,Ramnarine,1002', 'NS-Fraser,Dwayne,Fraser,', 'PowerBeam 5AC,Ada,Lovelace,'].join('\r\n')}\r\n`;

async function openSheetForm() {
  await h.command('/activate', 'sheet');
  const { id, view } = await h.openedView();
  expect(view.callback_id).toBe('sheet_form');
  return id;
}

/** The form shown again after the ack, with a problem under the file field. */
async function formAgainWith(id: string, text: string) {
  const view = await h.viewBecomes(id, 'sheet_form', text);
  const blocks = view.blocks as { type: string; block_id?: string }[];
  const fileField = blocks.findIndex((block) => block.block_id === 'sheet_file');
  expect(JSON.stringify(blocks[fileField + 1]), 'the problem is right under the file field').toContain(text);
  return view;
}

describe('/activate sheet with a file', () => {
  it('the form offers a CSV file field next to the paste field, both optional', async () => {
    const id = await openSheetForm();
    const blocks = h.fake.views.get(id)!.blocks as { block_id?: string; optional?: boolean; element?: Record<string, unknown> }[];
    const file = blocks.find((block) => block.block_id === 'sheet_file')!;
    expect(file.element).toMatchObject({ type: 'file_input', filetypes: ['csv'], max_files: 1 });
    expect(file.optional).toBe(true);
    expect(blocks.find((block) => block.block_id === 'sheet')!.optional).toBe(true);
  });

  it('a sheet uploaded as a file is read after the ack, checked and run like a pasted one; the token is never logged', async () => {
    const file = h.fake.addFile({ filename: 'installs.csv', content: CLEAN_FILE });
    const id = await openSheetForm();
    const submitted = await h.submit(id, chosenFiles('sheet_file', file));
    expect(submitted.body.response_action).toBe('update');
    expect(JSON.stringify(submitted.body.view)).toContain('Reading *installs.csv* from Slack');
    const checked = await h.viewBecomes(id, 'sheet_check');
    expect(shown({ blocks: checked.blocks as unknown[] })).toContain('3 rows: 3 rows to activate (2 deleting or moving), 0 already activated, 0 rows in error.');
    expect(h.uisp.writes()).toEqual([]);

    const ran = await h.submit(id, {});
    expect(JSON.stringify(ran.body.view)).toContain('started');
    await h.settled();
    const [parent] = h.fake.messages(CHANNEL);
    expect(shown(parent!)).toContain('3 activated, 0 already activated, 0 failed, 0 refused');
    expect(h.uisp.writes().filter((w) => w.endsWith('/authorize'))).toHaveLength(3);
    expect(h.rawLog()).not.toContain(BOT_TOKEN);
  });

  it('neither field, or both: the named error under the field that is wrong, and nothing is read or sent', async () => {
    const file = h.fake.addFile({ filename: 'installs.csv', content: CLEAN_FILE });
    const id = await openSheetForm();
    const neither = await h.submit(id, {});
    expect(neither.body).toEqual({ response_action: 'errors', errors: { sheet_file: "Choose the sheet's CSV file, or paste its lines below." } });
    const both = await h.submit(id, { ...chosenFiles('sheet_file', file), ...inputs({ sheet: CLEAN_FILE }) });
    expect(both.body).toEqual({ response_action: 'errors', errors: { sheet: 'A file is chosen too: clear these lines to check the file, or remove the file to check these lines.' } });
    expect(h.uisp.sim.requests).toEqual([]);
  });

  it('a file Slack says is too large is refused under the file field before any download', async () => {
    const file = h.fake.addFile({ filename: 'huge.csv', content: CLEAN_FILE, size: 300 * 1024 });
    const id = await openSheetForm();
    const submitted = await h.submit(id, chosenFiles('sheet_file', file));
    expect(submitted.body).toEqual({ response_action: 'errors', errors: { sheet_file: 'Could not read huge.csv: it is 300 KB; a sheet file may be at most 256 KB.' } });
    expect(h.uisp.sim.requests).toEqual([]);
  });

  it('a file larger than Slack said is cut off at the limit: the form again, naming the file, nothing written', async () => {
    const content = `${HEADER}\n${'10.20.1.51,Priya,Ramnarine,1002\n'.repeat(10_000)}`;
    const file = h.fake.addFile({ filename: 'grown.csv', content, size: 1000 });
    const id = await openSheetForm();
    await h.submit(id, chosenFiles('sheet_file', file));
    await formAgainWith(id, 'Could not read grown.csv: it is over 256 KB, the most a sheet file may be. Nothing was written.');
    expect(h.uisp.sim.requests).toEqual([]);
  });

  it('a file Slack no longer serves: the form again saying what happened and that nothing was written', async () => {
    const file = h.fake.addFile({ filename: 'gone.csv', content: CLEAN_FILE });
    h.fake.files.delete(file.id);
    const id = await openSheetForm();
    await h.submit(id, chosenFiles('sheet_file', file));
    await formAgainWith(id, 'Could not read gone.csv: Slack answered HTTP 404. Nothing was written.');
    expect(h.uisp.sim.requests).toEqual([]);
    expect(h.rawLog()).not.toContain(BOT_TOKEN);
  });

  it('a file that is not a sheet: the form again, naming the file, the line and the column; nothing sent', async () => {
    const file = h.fake.addFile({ filename: 'broken.csv', content: [HEADER, '10.20.1.88,Grace,Hopper,,x'].join('\n') });
    const id = await openSheetForm();
    await h.submit(id, chosenFiles('sheet_file', file));
    await formAgainWith(id, 'broken.csv is not an install sheet: line 2, column 5: this row has 5 fields; the header names 4.');
    expect(h.uisp.sim.requests).toEqual([]);
  });
});

describe('the template and the Install sheet buttons', () => {
  it("Template sends the template CSV, the sheet's own columns, to the agent's DM and says so over the form", async () => {
    const id = await openSheetForm();
    await h.sender.blockAction({ userId: AGENT, actionId: 'sheet_template', view: h.fake.views.get(id)! });
    const pushed = await h.fake.waitFor('views.push');
    const pushedId = String((pushed.response.view as { id: string }).id);
    await h.viewBecomes(pushedId, 'subops_info', 'is in your messages with SubOps');
    const [template] = [...h.fake.files.values()];
    expect(template).toMatchObject({ filename: 'install-sheet.csv', channel: `D${AGENT.slice(1)}` });
    expect(template!.content).toBe(sheetTemplate());
    expect(template!.content.split('\n')[0]).toBe(Object.values(SHEET_COLUMNS).join(','));
    const read = readSheet(template!.content);
    expect(read.ok && read.rows.every((row) => row.ok)).toBe(true);
    // The form under it is untouched.
    expect(h.fake.views.get(id)!.callback_id).toBe('sheet_form');
  });

  it('Template when Slack refuses the upload says why over the form', async () => {
    const id = await openSheetForm();
    h.fake.failNext('files.getUploadURLExternal', { error: 'missing_scope' });
    await h.sender.blockAction({ userId: AGENT, actionId: 'sheet_template', view: h.fake.views.get(id)! });
    const pushed = await h.fake.waitFor('views.push');
    await h.viewBecomes(String((pushed.response.view as { id: string }).id), 'subops_info', 'missing_scope');
  });

  it('Install sheet on the activation form turns it into the sheet form, for the same place', async () => {
    await h.command('/activate');
    const { id, view } = await h.openedView();
    expect(view.callback_id).toBe('activate_form');
    await h.sender.blockAction({ userId: AGENT, actionId: 'sheet_open', view: h.fake.views.get(id)! });
    const sheetView = await h.viewBecomes(id, 'sheet_form');
    expect(JSON.parse(String(sheetView.private_metadata))).toMatchObject({ origin: { channelId: CHANNEL, userId: AGENT } });
  });

  it("Install sheet on the Home tab opens the sheet form; the sheet's thread goes to the agent's DM", async () => {
    await h.sender.event({ type: 'app_home_opened', user: AGENT, tab: 'home', channel: 'D0HOME' });
    await h.settled();
    await h.sender.blockAction({ userId: AGENT, actionId: 'home_sheet', view: h.fake.homes.get(AGENT)! });
    const { id, view } = await h.openedView();
    expect(view.callback_id).toBe('sheet_form');
    await h.submit(id, inputs({ sheet: [HEADER, 'PowerBeam 5AC,Ada,Lovelace,'].join('\n') }));
    await h.viewBecomes(id, 'sheet_check');
    await h.submit(id, {});
    await h.settled();
    const [parent] = h.fake.messages(AGENT);
    expect(shown(parent!)).toContain('1 activated');
  });
});
