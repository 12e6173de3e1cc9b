/**
 * `subops duplicates remove`: a late duplicate `subops activate` named can be removed from the CLI, with
 * the checks, refusals and sentences of the Slack notice's Remove duplicate button; asked on a terminal,
 * --yes elsewhere; exit 0 removed (or already removed), 1 refused or not confirmed, 2 bad input.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { invoice, seedClientDuplicate, seedServiceDuplicate, seedSiteDuplicate } from '../support/late-duplicates.js';
import { auditLines, runCli } from './support.js';
import { runAtTerminal } from './terminal-run.js';

let sim: RunningSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const env = (s: RunningSimulator) => ({ UISP_URL: s.url, UISP_TOKEN: s.token });
const subops = (s: RunningSimulator, argv: string[]) => runCli(argv, env(s), [s.token]);
const deletes = (s: RunningSimulator) => s.requests.filter((r) => r.method === 'DELETE').map((r) => r.path);
const servicesOf = (s: RunningSimulator, clientId: number) => s.data.services.filter((x) => x.clientId === clientId).map((x) => x.id);

describe('subops duplicates remove', () => {
  it('removes the late service named by `subops activate` (--yes): the button’s sentence, its audit record; run again, UISP names no late service (exit 1)', async () => {
    const s = (sim = await startSimulator());
    const { kept, late } = await seedServiceDuplicate(s);
    const run = await subops(s, ['duplicates', 'remove', '--client-id', '1004', '--service-id', String(late), '--yes']);
    expect(run.code).toBe(0);
    expect(run.out).toBe(`Removed service #${late} "Standard Monthly" of client #1004; service #${kept} "Standard Monthly", the one the activation reported, stays.\n`);
    expect(deletes(s)).toEqual([`/crm/api/v1.0/clients/services/${late}`]);
    expect(servicesOf(s, 1004)).toEqual([kept]);
    expect(auditLines(run.err)).toEqual([expect.objectContaining({ action: 'remove-duplicate', result: 'removed', ok: true, targets: { clientId: 1004, serviceId: late, keptServiceId: kept } })]);

    const again = await subops(s, ['duplicates', 'remove', '--client-id', '1004', '--service-id', String(late), '--yes', '--json']);
    expect(again.code).toBe(1);
    expect(again.err).toContain(`UISP shows no late duplicate service of client #1004 now, so service ${late} is not removed`);
    expect(deletes(s)).toHaveLength(1);
  });

  it('refuses an invoiced late service exactly as the button does: nothing deleted, exit 1; --json says why', async () => {
    const s = (sim = await startSimulator());
    const { kept, late } = await seedServiceDuplicate(s);
    const invoiceId = invoice(s, 1004, [late]);
    const run = await subops(s, ['duplicates', 'remove', '--client-id', '1004', '--service-id', String(late), '--yes', '--json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.out)).toEqual({
      type: 'removal',
      outcome: 'refused',
      refusal: 'invoiced',
      record: 'service',
      clientId: 1004,
      late: { id: late, name: 'Standard Monthly' },
      kept: { id: kept, name: 'Standard Monthly' },
      message: `Service #${late} "Standard Monthly" has been invoiced (invoice #${invoiceId}): SubOps never removes an invoiced service; settle it in the CRM. Nothing was changed.`,
    });
    expect(deletes(s)).toEqual([]);
    expect(auditLines(run.err)).toEqual([expect.objectContaining({ action: 'remove-duplicate', result: 'refused:invoiced', ok: false })]);
  });

  it('removes a late site (--site-id), DELETE to the NMS', async () => {
    const s = (sim = await startSimulator());
    const { kept, late } = await seedSiteDuplicate(s);
    const run = await subops(s, ['duplicates', 'remove', '--client-id', '1004', '--site-id', late, '--yes', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.out)).toMatchObject({ type: 'removal', outcome: 'removed', refusal: null, record: 'site', clientId: 1004, late: { id: late }, kept: { id: kept } });
    expect(s.requests.filter((r) => r.method === 'DELETE').map((r) => r.path)).toEqual([expect.stringContaining(late)]);
  });

  it('refuses the service activations keep (the older one): not the late one', async () => {
    const s = (sim = await startSimulator());
    const { kept } = await seedServiceDuplicate(s);
    const run = await subops(s, ['duplicates', 'remove', '--client-id', '1004', '--service-id', String(kept), '--yes']);
    expect(run.code).toBe(1);
    expect(run.err).toContain(`is the one activations keep and report: it is not removed. Nothing was changed.`);
    expect(deletes(s)).toEqual([]);
  });

  it('removes an empty SubOps-made namesake of the client (--late-client-id); the client activations use is refused, as on the button', async () => {
    const s = (sim = await startSimulator());
    const { kept, late } = await seedClientDuplicate(s);
    const refused = await subops(s, ['duplicates', 'remove', '--client-id', String(late), '--late-client-id', String(kept), '--yes']);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('Nothing was changed.');
    const run = await subops(s, ['duplicates', 'remove', '--client-id', String(kept), '--late-client-id', String(late), '--yes']);
    expect(run.code).toBe(0);
    expect(run.out).toContain(`Removed client #${late} "Jane Doe", an empty namesake of client #${kept}`);
    expect(deletes(s)).toEqual([`/crm/api/v1.0/clients/${late}`]);
    // Pressed again: already removed, nothing left to do (exit 0), as the button says.
    const again = await subops(s, ['duplicates', 'remove', '--client-id', String(kept), '--late-client-id', String(late), '--yes']);
    expect(again.code).toBe(0);
    expect(again.err).toContain(`Client #${late} is already removed: UISP no longer has it. Nothing was changed.`);
  });

  it('asks on a terminal, showing the kept and late records; "n" writes nothing. Without a terminal and --yes: nothing written, exit 1, says --yes', async () => {
    const s = (sim = await startSimulator());
    const { kept, late } = await seedServiceDuplicate(s);
    const argv = ['duplicates', 'remove', '--client-id', '1004', '--service-id', String(late)];
    const declined = await runAtTerminal(argv, env(s), { answer: () => 'n' });
    expect(declined.questions).toEqual([`Remove the late service ${late} of client #1004, keeping service ${kept}? UISP is read again first. [y/N]`]);
    expect(declined.code).toBe(1);

    const piped = await subops(s, [...argv, '--json']);
    expect(piped.code).toBe(1);
    expect(piped.err).toContain('needs confirmation: run it on a terminal to be asked, or add --yes. Nothing was changed.');
    expect(JSON.parse(piped.out)).toMatchObject({ type: 'error', field: '--yes' });
    expect(deletes(s)).toEqual([]);

    const confirmed = await runAtTerminal(argv, env(s), { answer: () => 'y' });
    expect(confirmed.code).toBe(0);
    expect(deletes(s)).toEqual([`/crm/api/v1.0/clients/services/${late}`]);
  });

  it.each([
    [['duplicates', 'remove', '--service-id', '7'], '--client-id'],
    [['duplicates', 'remove', '--client-id', '1004'], 'exactly one of --service-id, --site-id or --late-client-id'],
    [['duplicates', 'remove', '--client-id', '1004', '--service-id', '7', '--site-id', 'x'], 'exactly one of'],
    [['duplicates', 'remove', '--client-id', 'abc', '--service-id', '7'], '--client-id'],
    [['duplicates', 'list'], 'duplicates remove'],
    [['duplicates'], 'Missing the subcommand'],
  ])('bad input %j: exit 2 naming it, UISP never asked', async (argv, named) => {
    const s = (sim = await startSimulator());
    const run = await subops(s, argv);
    expect(run.code).toBe(2);
    expect(run.err).toContain(named);
    expect(s.requests).toEqual([]);
  });

  it('a client UISP does not know: exit 2 naming --client-id, nothing written', async () => {
    const s = (sim = await startSimulator());
    const run = await subops(s, ['duplicates', 'remove', '--client-id', '99999', '--service-id', '7', '--yes']);
    expect(run.code).toBe(2);
    expect(run.err).toContain('--client-id: No CRM client #99999.');
    expect(deletes(s)).toEqual([]);
  });
});
