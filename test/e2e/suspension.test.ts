/** /suspend and /unsuspend through the terminal chat: form, client lookup, confirmation, CRM write, thread, audit. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startE2e, type E2e } from './harness.js';

let e2e: E2e;
beforeEach(async () => {
  e2e = await startE2e();
});
afterEach(async () => {
  await e2e.close();
});

const service = (id: number) => e2e.playground.simulator.data.services.find((s) => s.id === id)!;

describe('/suspend in the chat', () => {
  it('finds the service through the client (Enter lists its services), takes a reason, confirms and suspends', async () => {
    // Service id left empty, client id 1001 (Enter lists its services), its first service, a reason by name, confirm.
    const { result, transcript } = await e2e.chat(['/suspend', '', '1001', '1', 'non-payment', 'y']);
    expect(result).toEqual({ ok: true });
    // The form redrawn after the lookup offers Marcus Baptiste's services.
    expect(transcript).toContain('│ Service of Marcus Baptiste (optional)\n│     1. #101 Standard Monthly (Active)');
    expect(transcript).toContain('  Service of Marcus Baptiste (1) (optional): 1');
    expect(transcript).toContain('│ Client: #1001 Marcus Baptiste\n│ Service: #101 Standard Monthly\n│ Current status: Active\n│ Reason: Non-payment');
    expect(transcript).toContain('#support  SubOps: ⏸️ Suspension of service #101 Standard Monthly of client #1001 Marcus Baptiste (reason: Non-payment), requested by @agent');
    expect(transcript).toContain('  ↳ SubOps: ✅ Service #101 suspended. The CRM now reports status Suspended, reason Non-payment.');
    expect(transcript).toMatch(/#support {2}✎ updated: ⏸️ Suspension of service #101 .*\n {21}✅ Done: service suspended\./);
    expect(transcript).toContain('#subops-audit  SubOps: ✅ suspend by @agent: suspended');

    const writes = e2e.playground.simulator.requests.filter((r) => r.method !== 'GET');
    expect(writes.map((r) => [r.method, r.path, r.body])).toEqual([['PATCH', '/crm/api/v1.0/clients/services/101/suspend', { suspensionReasonId: 1 }]]);
    expect(service(101)).toMatchObject({ status: 3, suspensionReasonId: 1 });
  });

  it('backing out of the confirmation suspends nothing', async () => {
    const { transcript } = await e2e.chat(['/suspend 105', '/submit', '2', 'n']);
    expect(transcript).toContain('│ Client: #1006 Bartica Marine Supplies');
    expect(transcript).toContain('└ closed “Confirm suspension”');
    expect(e2e.writes()).toEqual([]);
    expect(service(105).status).toBe(1);
  });
});

describe('/unsuspend in the chat', () => {
  it('lifts the suspension through cancel-suspend, never /unsuspend', async () => {
    const { transcript } = await e2e.chat(['/unsuspend 104', '/submit', 'y']);
    expect(transcript).not.toContain('Reason');
    expect(transcript).toContain('│ Client: #1005 Ravi Persaud\n│ Service: #104');
    expect(transcript).toContain('│ Current status: Suspended');
    expect(transcript).toContain('Confirm “Lift suspension”? [y/N] y');
    expect(transcript).toContain('  ↳ SubOps: ✅ Service #104 unsuspended. The CRM now reports status Active.');
    expect(transcript).toContain('#subops-audit  SubOps: ✅ unsuspend by @agent: unsuspended');

    expect(e2e.writes()).toEqual(['PATCH /crm/api/v1.0/clients/services/104/cancel-suspend']);
    expect(e2e.playground.simulator.requests.some((r) => r.path.endsWith('/unsuspend'))).toBe(false);
    expect(service(104).status).toBe(1);
  });
});

describe('suspensions follow the service’s state, in the chat', () => {
  it('/suspend of a suspended service writes nothing and offers to lift the suspension instead', async () => {
    const { result, transcript } = await e2e.chat(['/suspend 104', '/submit', '1', 'y']);
    expect(result).toEqual({ ok: true });
    expect(transcript).toContain('┌ Confirm unsuspend\n│ ℹ️ Service #104 is already suspended. Nothing was changed. Lift the suspension instead?');
    expect(transcript).toContain('│ Current status: Suspended');
    expect(transcript).toContain('Confirm “Lift suspension”? [y/N] y');
    expect(transcript).toContain('  ↳ SubOps: ✅ Service #104 unsuspended. The CRM now reports status Active.');
    expect(e2e.writes()).toEqual(['PATCH /crm/api/v1.0/clients/services/104/cancel-suspend']);
  });

  it('/suspend of a Quoted service is refused under the field, and nothing is written', async () => {
    const { transcript } = await e2e.chat(['/suspend 102', '/submit', '1', '/cancel']);
    expect(transcript).toContain('│ ⚠️ Service #102 is Quoted: only an Active service can be suspended. Nothing was changed.');
    expect(transcript).not.toMatch(/422|Validation failed/);
    expect(e2e.writes()).toEqual([]);
    expect(service(102).status).toBe(6);
  });
});
