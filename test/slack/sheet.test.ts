/** /activate sheet end to end: paste → check (reads only) → Run → one thread: counts on the parent, one reply listing every row; audit per row. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AUDIT_CHANNEL, CHANNEL, inputs, shown, startHarness, type Harness } from './harness.js';

let h: Harness;
/** The modals already driven: a second /activate sheet opens a new one. */
const driven = new Set<string>();
beforeEach(async () => {
  driven.clear();
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const HEADER = 'device,first_name,last_name,client_id';
const CLEAN = [HEADER, '10.20.1.51,Priya,Ramnarine,1002', 'NS-Fraser,Dwayne,Fraser,', 'PowerBeam 5AC,Ada,Lovelace,'].join('\n');


/** /activate sheet, the paste submitted, and the check once shown. */
async function check(sheet: string) {
  await h.command('/activate', 'sheet');
  const { id, view } = await h.openedView((call) => !driven.has((call.response.view as { id: string }).id));
  driven.add(id);
  expect(view.callback_id).toBe('sheet_form');
  const submitted = await h.submit(id, inputs({ sheet }));
  expect(submitted.body.response_action).toBe('update');
  const checked = await h.viewBecomes(id, 'sheet_check');
  return { id, checked };
}

/** Run pressed on the check; the thread once the parent says done. */
async function run(id: string) {
  const ran = await h.submit(id, {});
  expect(JSON.stringify(ran.body.view)).toContain('started');
  await h.settled();
  const [parent, ...replies] = h.fake.messages(CHANNEL);
  return { parent: parent!, replies };
}

describe('/activate sheet', () => {
  it('a clean sheet: the check names the delete to confirm, Run activates every row in one thread with one reply, audited per row', async () => {
    const { id, checked } = await check(CLEAN);
    const view = shown({ blocks: checked.blocks as unknown[] });
    expect(view).toContain('3 rows: 3 rows to activate (2 deleting or moving), 0 already activated, 0 rows in error.');
    expect(view).toMatch(/row 1 \(line 2\) \*10\.20\.1\.51\*: .*to confirm:\* delete Quoted service #102/);
    expect(JSON.stringify(checked.submit)).toContain('Run 3 rows');
    // The check reads only.
    expect(h.uisp.writes()).toEqual([]);

    const { parent, replies } = await run(id);
    expect(parent.edited).toBeDefined();
    expect(shown(parent)).toContain('3 activated, 0 already activated, 0 failed, 0 refused');
    // One reply listing the rows, posted with every row waiting and updated in place as rows ended; then the manual links, in one.
    expect(replies.map((reply) => reply.text)).toEqual(['Rows: 3 of 3 ended.', '3 manual CRM–NMS links left.']);
    const firstPost = h.fake.calls.find((call) => call.method === 'chat.postMessage' && call.args.thread_ts === parent.ts)!;
    expect(JSON.stringify(firstPost.args.blocks).match(/:hourglass_flowing_sand:/g)).toHaveLength(3);
    expect(replies[0]!.edited).toBeDefined();
    const rows = shown(replies[0]!);
    expect(rows.match(/:white_check_mark:/g)).toHaveLength(3);
    expect(rows).not.toContain(':hourglass_flowing_sand:');
    expect(rows).toContain('row 3 (line 4) *PowerBeam 5AC*: Activated Ada Lovelace');
    // What was shown was confirmed: the Quoted service was deleted, and every device authorized.
    expect(h.uisp.writes()).toEqual(expect.arrayContaining(['DELETE /crm/api/v1.0/clients/services/102', 'DELETE /crm/api/v1.0/clients/services/103']));
    expect(h.uisp.writes().filter((w) => w.endsWith('/authorize'))).toHaveLength(3);
    expect(h.fake.messages(AUDIT_CHANNEL)).toHaveLength(3);
    expect(h.logs.filter((l) => l.audit === true).map((l) => [l.action, l.result])).toEqual([
      ['activate', 'activated'],
      ['activate', 'activated'],
      ['activate', 'activated'],
    ]);
  });

  it('a row in error next to good ones is listed with why and not run', async () => {
    const { id, checked } = await check([HEADER, 'PowerBeam 5AC,Ada,Lovelace,', 'NS-Fraser,Dwayne,Fr4ser,'].join('\n'));
    expect(shown({ blocks: checked.blocks as unknown[] })).toContain('1 row in error');
    expect(JSON.stringify(checked.submit)).toContain('Run 1 row');
    const { parent, replies } = await run(id);
    expect(shown(parent)).toContain('1 activated, 0 already activated, 0 failed, 1 refused');
    const rows = shown(replies[0]!);
    expect(rows).toContain(':x: row 2 (line 3): last_name: Last name may contain only letters');
    expect(h.uisp.writes().filter((w) => w.endsWith('/authorize'))).toHaveLength(1);
  });

  it('a paste that is not a sheet is refused under the field, naming the line and column; nothing is sent', async () => {
    await h.command('/activate', 'sheet');
    const { id } = await h.openedView();
    const submitted = await h.submit(id, inputs({ sheet: [HEADER, '10.20.1.88,"Grace,Hopper,'].join('\n') }));
    expect(submitted.body).toEqual({ response_action: 'errors', errors: { sheet: 'Not an install sheet: line 2: A quoted field starts here and is never closed.' } });
    const extra = await h.submit(id, inputs({ sheet: [HEADER, '10.20.1.88,Grace,Hopper,,x'].join('\n') }));
    expect(extra.body).toEqual({ response_action: 'errors', errors: { sheet: 'Not an install sheet: line 2, column 5: this row has 5 fields; the header names 4.' } });
    expect(h.uisp.sim.requests).toEqual([]);
  });

  it('the same sheet again: every row says already activated and nothing is written', async () => {
    await run((await check(CLEAN)).id);
    const written = h.uisp.writes();
    const { id, checked } = await check(CLEAN);
    expect(shown({ blocks: checked.blocks as unknown[] })).toContain('0 rows to activate, 3 already activated');
    await h.submit(id, {});
    await h.settled();
    const parents = h.fake.messages(CHANNEL).filter((m) => m.thread_ts === undefined);
    expect(shown(parents.at(-1)!)).toContain('0 activated, 3 already activated, 0 failed, 0 refused');
    expect(h.uisp.writes()).toEqual(written);
  });
});
