/**
 * SuspensionService against the simulator: reasons by name, decisions from the service's current state
 * (nothing written when there is nothing to do or the state forbids it), reconciliation when the write
 * fails, and a suspension whose read-back fails.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { INTERFACE_NUMBERING, SHARED_STATUSES, STOCK_NUMBERING } from '../../src/services/activation/service-status.js';
import { InputError } from '../../src/services/errors.js';
import { applicableAction, decideSuspension, shownService, SuspensionService } from '../../src/services/suspensions.js';
import { UispUnavailableError, UispWriteNotAppliedError } from '../../src/services/uisp/errors.js';
import { suspensionResultReply } from '../../src/views/suspension.js';
import { startUisp, type UispFixture } from '../support/uisp.js';

let uisp: UispFixture;
afterEach(async () => uisp?.close());

const statuses = SHARED_STATUSES;
const reasonOf = (id: number) => uisp.services.suspensions.resolveReason(String(id));

describe('decisions', () => {
  it('suspend: Active writes, Suspended is already done, anything else is refused', () => {
    expect(decideSuspension('suspend', statuses.active, statuses)).toBe('write');
    expect(decideSuspension('suspend', statuses.suspended, statuses)).toBe('already');
    for (const status of [0, 2, 4, 5, 6, 7, 8]) expect(decideSuspension('suspend', status, statuses)).toBe('refused');
  });

  it('unsuspend: only a suspended service is written; any other is "not suspended"', () => {
    expect(decideSuspension('unsuspend', statuses.suspended, statuses)).toBe('write');
    for (const status of [statuses.active, 0, 2, 4, 5, 6, 7, 8]) expect(decideSuspension('unsuspend', status, statuses)).toBe('already');
  });

  it('needs no numbering: Active and Suspended are 1 and 3 in stock UISP and the interface document alike', () => {
    expect([STOCK_NUMBERING, INTERFACE_NUMBERING].map(({ active, suspended }) => ({ active, suspended }))).toEqual([statuses, statuses]);
    expect(applicableAction(3, statuses)).toBe('unsuspend');
    expect(applicableAction(1, statuses)).toBe('suspend');
    expect(applicableAction(7, statuses)).toBeUndefined();
  });
});

describe('against the simulator', () => {
  it('resolves reasons by id, exact name or unique prefix, and names the field otherwise', async () => {
    uisp = await startUisp();
    const { suspensions } = uisp.services;
    expect((await suspensions.resolveReason('2')).name).toBe('Customer request');
    expect((await suspensions.resolveReason('non-PAYMENT')).id).toBe(1);
    expect((await suspensions.resolveReason('equip')).id).toBe(3);
    await expect(suspensions.resolveReason('holiday')).rejects.toMatchObject({ field: 'reason', message: expect.stringContaining('Known reasons: 1 Non-payment') });
    await expect(suspensions.resolveReason(' ')).rejects.toBeInstanceOf(InputError);
  });

  it('a button acts only on what it showed: the same suspension runs; one lifted and imposed again, even for the same reason, asks again', async () => {
    uisp = await startUisp();
    const { suspensions } = uisp.services;
    const shown = shownService(await suspensions.getService(104));
    expect(await suspensions.pressed('unsuspend', 104, shown)).toMatchObject({ kind: 'as-shown', service: { id: 104 } });
    await suspensions.unsuspend(104);
    await suspensions.suspend(104, await reasonOf(1));
    expect(await suspensions.pressed('unsuspend', 104, shown)).toMatchObject({ kind: 'changed', decision: 'write', service: { id: 104, status: 3, suspensionReasonId: 1 } });
    await suspensions.unsuspend(104);
    expect(await suspensions.pressed('unsuspend', 104, shown)).toMatchObject({ kind: 'changed', decision: 'already' });
    // A button that carries nothing of what it showed cannot be trusted to act.
    expect(await suspensions.pressed('unsuspend', 104, undefined)).toMatchObject({ kind: 'changed' });
  });

  it('a lift of what was shown: another suspension found by the read right before the write is refused, nothing written', async () => {
    uisp = await startUisp();
    const { suspensions } = uisp.services;
    const shown = shownService(await suspensions.getService(104));
    await suspensions.unsuspend(104);
    await suspensions.suspend(104, await reasonOf(2));
    const written = uisp.writes();
    expect(await suspensions.unsuspend(104, shown)).toMatchObject({ kind: 'refused', reason: 'changed', service: { status: 3, suspensionReasonId: 2 } });
    expect(uisp.writes()).toEqual(written);
    // The same suspension as shown: lifted.
    expect(await suspensions.unsuspend(104, shownService(await suspensions.getService(104)))).toMatchObject({ kind: 'done' });
  });

  it('suspending an already suspended service writes nothing and says so', async () => {
    uisp = await startUisp();
    const outcome = await uisp.services.suspensions.suspend(104, await reasonOf(2));
    expect(outcome).toMatchObject({ kind: 'already', action: 'suspend', service: { id: 104, status: 3 } });
    expect(uisp.writes()).toEqual([]);
  });

  it('suspending a Quoted or Obsolete service is refused with its status, and writes nothing', async () => {
    uisp = await startUisp();
    const { suspensions } = uisp.services;
    expect(await suspensions.suspend(102, await reasonOf(1))).toMatchObject({ kind: 'refused', reason: 'not-active', status: 6 });
    expect(await suspensions.suspend(103, await reasonOf(1))).toMatchObject({ kind: 'refused', reason: 'not-active', status: 7 });
    expect(uisp.writes()).toEqual([]);
  });

  it('lifting the suspension of a service that is not suspended writes nothing', async () => {
    uisp = await startUisp();
    expect(await uisp.services.suspensions.unsuspend(101)).toMatchObject({ kind: 'already', action: 'unsuspend', service: { id: 101, status: 1 } });
    expect(uisp.writes()).toEqual([]);
  });

  it('reads the service right before writing: a suspension made after an earlier look is not repeated', async () => {
    uisp = await startUisp();
    const { suspensions } = uisp.services;
    const looked = await suspensions.getService(101);
    expect(suspensions.decide('suspend', looked)).toBe('write');
    // Someone else suspends it meanwhile (another agent, the CRM web UI).
    uisp.sim.data.services.find((s) => s.id === 101)!.status = 3;
    expect(await suspensions.suspend(101, await reasonOf(1))).toMatchObject({ kind: 'already' });
    expect(uisp.writes()).toEqual([]);
  });

  it('a write refused because the state changed in between (422) is reported from the state, not as the raw error', async () => {
    uisp = await startUisp();
    const { crm } = uisp.services;
    const suspendService = crm.suspendService.bind(crm);
    // The service is suspended by someone else between our read and our PATCH: UISP answers 422.
    crm.suspendService = async (id, reasonId) => {
      uisp.sim.data.services.find((s) => s.id === id)!.status = 3;
      return suspendService(id, reasonId);
    };
    const outcome = await new SuspensionService(crm, statuses).suspend(101, await reasonOf(1));
    expect(outcome).toMatchObject({ kind: 'already', service: { id: 101, status: 3 } });
    expect(uisp.writes()).toEqual(['PATCH /crm/api/v1.0/clients/services/101/suspend']);
  });

  it('a write UISP did not confirm, which the read-back shows landed, is done', async () => {
    uisp = await startUisp();
    const { crm } = uisp.services;
    const suspendService = crm.suspendService.bind(crm);
    crm.suspendService = async (id, reasonId) => {
      await suspendService(id, reasonId);
      throw new UispUnavailableError({ system: 'crm', method: 'PATCH', path: `/crm/api/v1.0/clients/services/${id}/suspend` }, 'connection reset');
    };
    const outcome = await new SuspensionService(crm, statuses).suspend(101, await reasonOf(1));
    expect(outcome).toMatchObject({ kind: 'done', service: { status: 1 }, after: { status: 3 } });
  });

  it('a write UISP did not confirm and the read-back does not show is still a failure, which may land late', async () => {
    uisp = await startUisp({ simulator: {} });
    uisp.sim.setFaults([{ method: 'PATCH', path: /\/suspend$/, kind: 'status', status: 503 }]);
    const error = await uisp.services.suspensions.suspend(101, await reasonOf(1)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UispWriteNotAppliedError);
    expect((error as Error).message).toContain('UISP does not show it yet, it may still appear');
    expect((error as UispWriteNotAppliedError).mayHaveApplied).toBe(true);
  });

  it('a suspension that landed but could not be read back reports an unknown status, not the old one', async () => {
    uisp = await startUisp();
    const { crm } = uisp.services;
    const read = crm.getService.bind(crm);
    let reads = 0;
    // The first read finds the service; the read-back after the PATCH gets no answer.
    crm.getService = async (id: number) => {
      reads++;
      if (reads === 2) throw new UispUnavailableError({ system: 'crm', method: 'GET', path: `/crm/api/v1.0/clients/services/${id}` }, 'no answer within 15000 ms');
      return read(id);
    };
    const service = new SuspensionService(crm, statuses);
    const outcome = await service.suspend(101, await service.resolveReason('1'));
    expect(outcome).toMatchObject({ kind: 'done', after: null });
    expect(uisp.sim.data.services.find((s) => s.id === 101)?.status).toBe(3);
    const reply = JSON.stringify(suspensionResultReply('suspend', { ok: true, outcome }, (status) => (status === 1 ? 'Active' : `status ${status}`)));
    expect(reply).toContain('reading the new status back failed');
    expect(reply).not.toContain('*Active*');
  });
});
