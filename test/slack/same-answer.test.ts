/**
 * Same input, same answer: one table of typed values goes through the CLI (flags, in-process against
 * the simulator) and through the Slack forms (signed submissions to the real app). Both refuse the same
 * values with the same sentence, naming the field, and neither sends anything to UISP; both accept the
 * same values and send the same thing.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { inputs, selected, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

async function cli(argv: string[]): Promise<{ code: number; err: string }> {
  const stderr = new PassThrough();
  let err = '';
  stderr.on('data', (chunk) => (err += chunk));
  const code = await main(argv, { env: { UISP_URL: h.uisp.sim.url, UISP_TOKEN: h.uisp.sim.token }, stdout: new PassThrough(), stderr, stdin: new PassThrough() });
  return { code, err };
}

/** The CLI's sentence for one flag: "Error: --amount: <problem>" or "--amount: <problem>" on a line of its own. */
function problemOf(err: string, flag: string): string | undefined {
  return err.split('\n').flatMap((line) => (line.replace(/^Error: /, '').startsWith(`${flag}: `) ? [line.replace(/^Error: /, '').slice(flag.length + 2)] : []))[0];
}

/** Opens a form through its slash command and waits until it has what it loads (a block that appears after the CRM answered). */
async function openForm(command: string, text: string, readyBlock?: string): Promise<string> {
  const before = h.fake.callsTo('views.open').length;
  await h.command(command, text);
  const { id } = await h.openedView((call) => h.fake.callsTo('views.open').indexOf(call) >= before);
  if (readyBlock) await h.fake.waitFor('views.update', (call) => call.args.view_id === id && JSON.stringify(call.args.view).includes(`"block_id":"${readyBlock}"`));
  return id;
}

interface Row {
  form: 'payment' | 'activation' | 'suspension';
  /** The Slack block and the CLI flag that carry the field. */
  field: string;
  flag: string;
  text: string;
}

const payment = (field: 'client' | 'amount', text: string): Row => ({ form: 'payment', field, flag: field === 'client' ? '--client-id' : '--amount', text });
const activation = (field: string, flag: string, text: string): Row => ({ form: 'activation', field, flag, text });

const REFUSED: Row[] = [
  payment('amount', '-5'),
  payment('amount', '0'),
  payment('amount', '0x1F4'),
  payment('amount', '1e3'),
  payment('amount', '1e308'),
  payment('amount', '10.005'),
  payment('amount', '10,5'),
  payment('amount', '2,000,000'),
  payment('amount', 'ten'),
  payment('client', '#0'),
  payment('client', 'Marcus'),
  payment('client', '2147483648'),
  activation('clientId', '--client-id', '-3'),
  activation('clientId', '--client-id', '#'),
  activation('email', '--email', 'ada@'),
  activation('phone', '--phone', 'call me'),
  activation('firstName', '--first-name', 'ada\u001b[31m'),
  activation('lastName', '--last-name', 'x'.repeat(61)),
  { form: 'suspension', field: 'service', flag: '--service-id', text: '1.5' },
  { form: 'suspension', field: 'service', flag: '--service-id', text: '#99999999999' },
];

function cliArgs(row: Row): string[] {
  if (row.form === 'payment') return ['payments', 'add', '--client-id', '1001', '--amount', '10', row.flag, row.text];
  if (row.form === 'suspension') return ['suspend', '--reason', '1', row.flag, row.text];
  return ['activate', '--device', '10.20.1.88', '--first-name', 'ada', '--last-name', 'lovelace', row.flag, row.text];
}

async function slackErrors(row: Row): Promise<Record<string, string>> {
  let reply;
  if (row.form === 'payment') {
    const id = await openForm('/payments', 'add', 'method');
    reply = await h.submit(id, inputs({ client: '1001', amount: '10', [row.field]: row.text }));
  } else if (row.form === 'suspension') {
    const id = await openForm('/suspend', '', 'reason');
    reply = await h.submit(id, { ...inputs({ [row.field]: row.text }), reason: selected('value', '1') });
  } else {
    const id = await openForm('/activate', '');
    reply = await h.submit(id, inputs({ device: '10.20.1.88', firstName: 'ada', lastName: 'lovelace', [row.field]: row.text }));
  }
  expect(reply.body.response_action).toBe('errors');
  return reply.body.errors as Record<string, string>;
}

describe('the same typed value gets the same answer in the CLI and in Slack', () => {
  it.each(REFUSED.map((row) => [`${row.flag} ${JSON.stringify(row.text)}`, row] as const))('%s is refused with the same sentence, and nothing is sent', async (_, row) => {
    const before = h.uisp.sim.requests.length;
    const { code, err } = await cli(cliArgs(row));
    expect(code).toBe(2);
    expect(h.uisp.sim.requests.length).toBe(before);
    const problem = problemOf(err, row.flag);
    expect(problem, err).toBeTruthy();

    const errors = await slackErrors(row);
    // The CLI shows control characters escaped; the sentences themselves are the grammar's, identical.
    expect(errors).toEqual({ [row.field]: problem });
    expect(h.uisp.writes()).toEqual([]);
  });

  it('#1001 and 1,500 record the same payment from both', async () => {
    expect((await cli(['payments', 'add', '--client-id', '#1001', '--amount', '1,500'])).code).toBe(0);
    const id = await openForm('/payments', 'add #1001 1,500', 'method');
    expect((await h.submit(id, inputs({ client: '#1001', amount: '1,500' }))).body.response_action).toBe('update');
    await h.viewBecomes(id, 'subops_info', 'Recorded payment');
    const [fromCli, fromSlack, ...more] = h.uisp.sim.requests.filter((r) => r.method === 'POST');
    expect(more).toEqual([]);
    expect(fromCli).toMatchObject({ path: '/crm/api/v1.0/payments', body: { clientId: 1001, amount: 1500 } });
    // Each front end names its own operation (the view id, or the CLI's key) in the note's marker line.
    const withoutMarker = (body: unknown) => ({ ...(body as Record<string, unknown>), note: undefined });
    expect(withoutMarker(fromSlack!.body)).toEqual(withoutMarker(fromCli!.body));
    for (const body of [fromSlack!.body, fromCli!.body]) expect((body as { note: string }).note).toMatch(/^subops:op=\S+$/);
  });
});
