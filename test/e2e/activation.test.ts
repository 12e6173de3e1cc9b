/**
 * /activate through the terminal chat, one case per state of the client's service, plus a device that
 * does not exist and a failed run retried with a button.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linesWith, startE2e, type E2e } from './harness.js';

let e2e: E2e;
beforeEach(async () => {
  e2e = await startE2e();
});
afterEach(async () => {
  await e2e.close();
});

const CRM = '/crm/api/v1.0';
const NMS = '/nms/api/v2.1';
/** The old service was deleted before the new one was created (the site is created meanwhile). */
function expectReplaced(serviceId: number, clientId: number): void {
  const writes = e2e.writes();
  const deleted = writes.indexOf(`DELETE ${CRM}/clients/services/${serviceId}`);
  expect(deleted).toBeGreaterThanOrEqual(0);
  expect(writes.indexOf(`POST ${CRM}/clients/${clientId}/services`)).toBeGreaterThan(deleted);
  expect(writes.filter((w) => w.startsWith('DELETE'))).toHaveLength(1);
  const services = e2e.playground.simulator.data.services.filter((s) => s.clientId === clientId);
  expect(services.map((s) => s.status)).toEqual([1]);
}

const authorizeWrites = () => e2e.writes().filter((w) => w.startsWith(`POST ${NMS}/devices/`) && w.endsWith('/authorize'));

describe('/activate in the chat', () => {
  it('client without a service: reuses the client, creates the service and site, authorizes, without asking to confirm', async () => {
    const { result, transcript } = await e2e.chat(['/activate 10.20.3.12 Shanice Williams', '/submit']);
    expect(result).toEqual({ ok: true });
    // The form, pre-filled from the command, as the agent saw it.
    expect(transcript).toContain('│ Device [10.20.3.12]\n│   IP, MAC address or NMS name');
    expect(transcript).toContain('│ First name [Shanice]');
    expect(transcript).not.toContain('Confirm');
    expect(transcript).toContain('🚀 Activation of 10.20.3.12 for Shanice Williams started.');
    expect(transcript).toContain('#support  SubOps: Activation of 10.20.3.12 for Shanice Williams, started by @agent');
    expect(transcript).toContain('  ↳ SubOps: ⏩ Client (skipped): Reusing client #1004 Shanice Williams');
    expect(transcript).toMatch(/ {2}↳ SubOps: ✅ Service \(done\): Created Active service #\d+/);
    expect(transcript).toMatch(/#support {2}✎ updated: Activation of 10\.20\.3\.12 .*\n {21}✅ Activated: client #1004 Shanice Williams/);
    expect(transcript).toMatch(/↳ SubOps: ✋ One manual step left: in the CRM web interface, link client #1004 Shanice Williams \(http:\/\/127\.0\.0\.1:\d+\/crm\/client\/1004\)/);
    expect(linesWith(transcript, '#subops-audit')).toEqual(['#subops-audit  SubOps: ✅ activate by @agent: activated']);

    // The site and the service, then the device; nothing else.
    expect(e2e.writes().slice(0, 2).sort()).toEqual([`POST ${CRM}/clients/1004/services`, `POST ${NMS}/sites`]);
    expect(e2e.writes().slice(2)).toEqual([`POST ${NMS}/devices/authorize`]);
  });

  it('client already Active: says so and writes nothing', async () => {
    const { transcript } = await e2e.chat(['/activate 10.20.1.21 marcus baptiste', '/submit']);
    expect(transcript).toContain('⏩ Service (skipped): Already activated: service #101');
    expect(transcript).toContain('✅ Already activated: client #1001 Marcus Baptiste, service #101');
    expect(transcript).toContain('Nothing was changed.');
    expect(e2e.writes()).toEqual([]);
    expect(e2e.playground.simulator.data.services.filter((s) => s.clientId === 1001).map((s) => [s.id, s.status])).toEqual([[101, 1]]);
  });

  it('Quoted service: shows what it deletes, and on "y" deletes #102 before creating the Active service', async () => {
    const { transcript } = await e2e.chat(['/activate 10.20.1.51 priya ramnarine', '/submit', 'y']);
    const confirmation = transcript.slice(transcript.indexOf('┌ Confirm activation'), transcript.indexOf('Confirm “Delete and activate”? [y/N] y'));
    expect(confirmation).toContain('│ • Quoted service #102 Standard Monthly');
    expect(confirmation).toContain('│ • Reuse client #1002 Priya Ramnarine');
    expect(confirmation).toContain('└ [Delete and activate]  [Back out]');
    expect(transcript).toMatch(/✅ Service \(done\): Created Active service #\d+ .* after deleting #102/);

    expectReplaced(102, 1002);
  });

  it('Obsolete service: backing out writes nothing; confirming deletes #103 before creating the Active service', async () => {
    const backedOut = await e2e.chat(['/activate NS-Fraser dwayne fraser', '/submit', 'n']);
    expect(backedOut.transcript).toContain('│ • Obsolete service #103 Basic Monthly');
    expect(backedOut.transcript).toContain('└ closed “Confirm activation”');
    expect(e2e.writes()).toEqual([]);

    const { transcript } = await e2e.chat(['/activate NS-Fraser dwayne fraser', '/submit', 'y']);
    expect(transcript).toContain('after deleting #103');
    expectReplaced(103, 1003);
  });

  it('a station on another client’s site: backing out writes nothing; confirming moves it, retried after a failure with the move still confirmed', async () => {
    const backedOut = await e2e.chat(['/activate 10.20.1.77 ada lovelace', '/submit', 'n']);
    expect(backedOut.transcript).toContain("cpe-hope is in use on another client's site. It is authorized on site Leon Hope of client #1007 Leon Hope.");
    expect(backedOut.transcript).toContain('└ [Move and activate]  [Back out]');
    expect(e2e.writes()).toEqual([]);

    // A refusal (4xx), not a transient 503: those are retried within the run and would not fail it.
    e2e.playground.simulator.setFaults([{ method: 'POST', path: /\/authorize$/, kind: 'status', status: 400, times: 1 }]);
    const { transcript } = await e2e.chat(['/activate 10.20.1.77 ada lovelace', '/submit', 'y', '/press Retry']);
    expect(transcript).toContain('❌ Authorization (failed)');
    expect(transcript).toContain('↳ SubOps: 🔁 Retry started by @agent.');
    expect(transcript).toContain('device moved from "Leon Hope" (client #1007 Leon Hope)');
    expect(linesWith(transcript, '#subops-audit')).toEqual([
      '#subops-audit  SubOps: ❌ activate by @agent: failed',
      '#subops-audit  SubOps: ✅ activate by @agent: activated',
    ]);
    expect(authorizeWrites()).toHaveLength(2);
    expect(e2e.writes().filter((w) => w.includes('1007') || w.includes('4d5e6f7a-8b9c-4dae-9f10-3b4c5d6e7f89'))).toEqual([]);
  });

  it('a tower AP: the form comes back with the refusal under the device, nothing written', async () => {
    const { transcript } = await e2e.chat(['/activate 10.20.1.2 ada lovelace', '/submit', '/cancel']);
    expect(transcript).toContain('│ ⚠️ diamond-ap1 is network infrastructure (role ap) on site "Diamond Tower", not a subscriber station');
    expect(e2e.writes()).toEqual([]);
  });

  it('a device that is not found: the form comes back with the problem under the device, nothing is written or posted', async () => {
    const { result, transcript } = await e2e.chat(['/activate no-such-cpe jane doe', '/submit', '/cancel']);
    expect(result).toEqual({ ok: true });
    expect(transcript).toMatch(/│ Device \[no-such-cpe\]\n│ {3}IP, MAC.*\n│ ⚠️ Device not found: no device with name "no-such-cpe" in the authorized or discovered lists\. Nothing was changed\./);
    expect(transcript).toContain('└ closed “Activate subscriber”');
    expect(e2e.writes()).toEqual([]);
    expect(e2e.playground.fake.callsTo('chat.postMessage')).toEqual([]);
  });

  it('a failed run offers Retry; /press Retry finishes it in the same thread without creating anything twice', async () => {
    e2e.playground.simulator.setFaults([{ method: 'POST', path: `${NMS}/sites`, kind: 'status', status: 400, times: 1 }]);
    const { transcript } = await e2e.chat(['/activate 10.20.1.88 ada lovelace', '/submit', '/press Retry']);
    expect(transcript).toContain('❌ Site (failed): NMS POST /nms/api/v2.1/sites: Bad Request (HTTP 400)');
    expect(transcript).toMatch(/ {12}\[Retry\]\n/);
    // The report loses its button, in place, and the retry continues the thread.
    expect(transcript).toMatch(/ {2}↳ ✎ updated: ❌ Activation failed\.[\s\S]*🔁 Retried by @agent/);
    expect(transcript).toContain('↳ SubOps: 🔁 Retry started by @agent.');
    expect(transcript).toContain('⏩ Client (skipped): Reusing client #1010 Ada Lovelace');
    expect(transcript).toContain('✅ Activated: client #1010 Ada Lovelace');

    const writes = e2e.writes();
    expect(writes.filter((w) => w === `POST ${CRM}/clients`)).toHaveLength(1);
    expect(writes.filter((w) => w === `POST ${CRM}/clients/1010/services`)).toHaveLength(1);
    expect(writes.filter((w) => w === `POST ${NMS}/sites`)).toHaveLength(2);
  });
});
