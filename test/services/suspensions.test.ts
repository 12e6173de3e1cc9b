/** SuspensionService against the simulator: reasons by name, and a suspension whose read-back fails. */
import { afterEach, expect, it } from 'vitest';
import { InputError } from '../../src/services/errors.js';
import { SuspensionService } from '../../src/services/suspensions.js';
import { UispUnavailableError } from '../../src/services/uisp/errors.js';
import { suspensionResultReply } from '../../src/views/suspension.js';
import { startUisp, type UispFixture } from '../support/uisp.js';

let uisp: UispFixture;
afterEach(async () => uisp?.close());

it('resolves reasons by id, exact name or unique prefix, and names the field otherwise', async () => {
  uisp = await startUisp();
  const { suspensions } = uisp.services;
  expect((await suspensions.resolveReason('2')).name).toBe('Customer request');
  expect((await suspensions.resolveReason('non-PAYMENT')).id).toBe(1);
  expect((await suspensions.resolveReason('equip')).id).toBe(3);
  await expect(suspensions.resolveReason('holiday')).rejects.toMatchObject({ field: 'reason', message: expect.stringContaining('Known reasons: 1 Non-payment') });
  await expect(suspensions.resolveReason(' ')).rejects.toBeInstanceOf(InputError);
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
  const service = new SuspensionService(crm);
  const outcome = await service.suspend(await service.getService(101), await service.resolveReason('1'));
  expect(outcome.after).toBeNull();
  expect(uisp.sim.data.services.find((s) => s.id === 101)?.status).toBe(3);
  const reply = JSON.stringify(suspensionResultReply('suspend', { ok: true, outcome }, (status) => (status === 1 ? 'Active' : `status ${status}`)));
  expect(reply).toContain('reading the new status back failed');
  expect(reply).not.toContain('*Active*');
});
