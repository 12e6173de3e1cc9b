/** /activate end to end: slash command → modal → plan → threaded progress → reminder → audit. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AGENT, AUDIT_CHANNEL, CHANNEL, inputs, preselected, shown, startHarness, type Harness } from './harness.js';

/** Each reply's step and status ("Site done"), the manual-link reminder as "reminder". */
const stepLabels = (replies: { text: string }[]) => replies.map((m) => /\*(\w[\w –-]*)\* \((\w+)\)/.exec(m.text)?.slice(1).join(' ') ?? 'reminder');
/** The thread of an activation that creates everything. */
const ACTIVATED_STEPS = ['Device done', 'Client done', 'Service done', 'Site done', 'Authorization done', 'reminder'];

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const reminderPosted = (call: { args: Record<string, unknown> }) => call.args.thread_ts !== undefined && String(call.args.text).includes('One manual step left');

describe('/activate', () => {
  it('runs from slash command to the manual-link reminder, posting each step in a thread', async () => {
    const reply = await h.command('/activate', '10.20.1.88 jane doe');
    expect(reply.status).toBe(200);
    expect(reply.body).toBe('');

    const { id, view } = await h.openedView();
    // The trigger id lives 3 s: the modal opens before anything is asked of UISP.
    expect(h.uisp.sim.requests).toEqual([]);
    expect(view.callback_id).toBe('activate_form');
    const form = JSON.stringify(view);
    expect(form).toContain(preselected('10.20.1.88'));
    expect(form).toContain('"initial_value":"jane"');
    expect(form).toContain('"initial_value":"doe"');

    const submitted = await h.submit(id, inputs({ device: '10.20.1.88', firstName: 'jane', lastName: 'doe', email: 'jane@example.gy' }));
    expect(submitted.status).toBe(200);
    expect(submitted.body.response_action).toBe('update');
    expect(JSON.stringify(submitted.body.view)).toContain('Checking UISP');

    await h.fake.waitFor('chat.postMessage', reminderPosted);
    const [parent, ...replies] = h.fake.messages(CHANNEL);
    expect(parent!.thread_ts).toBeUndefined();
    expect(parent!.text).toContain(`Activation of *10.20.1.88* for Jane Doe, started by <@${AGENT}>`);
    // Updated in place to the final status.
    expect(parent!.edited).toBeDefined();
    expect(shown(parent!)).toContain('*Activated*');
    expect(replies.every((m) => m.thread_ts === parent!.ts)).toBe(true);
    expect(stepLabels(replies)).toEqual(ACTIVATED_STEPS);
    const reminder = replies.at(-1)!;
    expect(reminder.text).toMatch(new RegExp(`<${h.uisp.sim.url.replace(/[.]/g, '\\.')}/crm/client/\\d+\\|#\\d+ Jane Doe>`));

    expect(h.uisp.writes()).toEqual(expect.arrayContaining(['POST /crm/api/v1.0/clients', 'POST /nms/api/v2.1/sites']));
    expect(h.uisp.writes().some((w) => /^POST \/crm\/api\/v1\.0\/clients\/\d+\/services$/.test(w))).toBe(true);
    expect(h.uisp.writes()).toContain('POST /nms/api/v2.1/devices/authorize');

    // The modal says where to look.
    expect(JSON.stringify(h.fake.views.get(id))).toContain('started');

    await h.fake.waitFor('chat.postMessage', (call) => call.args.channel === AUDIT_CHANNEL);
    const [audit] = h.fake.messages(AUDIT_CHANNEL);
    expect(shown(audit!)).toContain('*activate* by <@U0AGENT>: *activated*');
    expect(shown(audit!)).toContain(`archives/${CHANNEL}/p${parent!.ts.replace('.', '')}`);
    expect(h.logs.filter((l) => l.audit === true)).toEqual([expect.objectContaining({ actor: AGENT, action: 'activate', result: 'activated', ok: true })]);
  });

  it('keeps Slack off the critical path: the UISP work ends while every post and view update is held, then the thread arrives in order', async () => {
    await h.command('/activate', '10.20.1.88 jane doe');
    const { id } = await h.openedView();
    const activation = h.uisp.services.activation;
    const run = activation.run.bind(activation);
    let uispWorkEnded!: () => void;
    const ended = new Promise<void>((resolve) => (uispWorkEnded = resolve));
    vi.spyOn(activation, 'run').mockImplementation(async function* (...args) {
      yield* run(...args);
      uispWorkEnded();
    });
    // Slack answers no post and no view update: a Slack as slow as can be. Not even the parent is awaited.
    const slack = h.fake.hold('chat.postMessage');
    const views = h.fake.hold('views.update');
    await h.submit(id, inputs({ device: '10.20.1.88', firstName: 'jane', lastName: 'doe' }));
    await ended;
    expect(h.uisp.writes()).toContain('POST /nms/api/v2.1/devices/authorize');
    expect(h.fake.messages(CHANNEL)).toEqual([]);
    expect(h.work.inFlight).toBeGreaterThan(0);

    views.release();
    slack.release();
    await h.settled();
    const [parent, ...replies] = h.fake.messages(CHANNEL);
    expect(shown(parent!)).toContain('*Activated*');
    expect(stepLabels(replies)).toEqual(ACTIVATED_STEPS);
    expect(h.fake.messages(AUDIT_CHANNEL)).toHaveLength(1);
  });

  it('asks for confirmation before deleting a Quoted service, and runs when confirmed', async () => {
    await h.command('/activate', '10.20.1.51 priya ramnarine');
    const { id } = await h.openedView();
    await h.submit(id, inputs({ device: '10.20.1.51', firstName: 'priya', lastName: 'ramnarine' }));

    const confirm = await h.viewBecomes(id, 'activate_confirm');
    const text = JSON.stringify(confirm);
    expect(text).toContain('Quoted service #102');
    expect(text).toContain('Reuse client #1002 Priya Ramnarine');
    expect(text).toContain('Create an Active service: plan period 37');
    expect(text).toContain('Create NMS site');
    expect((confirm.submit as { text: string }).text).toBe('Delete and activate');
    // Reads only so far.
    expect(h.uisp.writes()).toEqual([]);

    const confirmed = await h.submit(id, {});
    expect(confirmed.body.response_action).toBe('update');
    await h.fake.waitFor('chat.postMessage', reminderPosted);
    expect(h.uisp.writes()).toContain('DELETE /crm/api/v1.0/clients/services/102');
    expect(h.uisp.writes()).toContain('POST /crm/api/v1.0/clients/1002/services');
    const serviceStep = h.fake.messages(CHANNEL).find((m) => m.text.includes('*Service*'));
    expect(serviceStep!.text).toContain('after deleting #102');
  });

  describe('UISP changed between the confirmation and its submission: shown again, nothing written', () => {
    const quoted102 = () => structuredClone(h.uisp.sim.data.services.find((s) => s.id === 102)!);

    async function confirmPriya() {
      await h.command('/activate', '10.20.1.51 priya ramnarine');
      const { id } = await h.openedView();
      await h.submit(id, inputs({ device: '10.20.1.51', firstName: 'priya', lastName: 'ramnarine' }));
      await h.viewBecomes(id, 'activate_confirm');
      return id;
    }

    it('the Quoted service someone turned Active meanwhile is not deleted: the agent sees why and confirms the new plan', async () => {
      const id = await confirmPriya();
      h.uisp.sim.data.services.find((s) => s.id === 102)!.status = 1;
      await h.submit(id, {});
      const again = await h.viewBecomes(id, 'activate_confirm', 'UISP changed since you confirmed');
      expect(JSON.stringify(again)).toContain('Service #102 is Active now, no longer what you confirmed deleting: it will not be deleted');
      expect(h.uisp.writes()).toEqual([]);
      expect(h.fake.callsTo('chat.postMessage')).toEqual([]);

      // Confirming what it shows now reuses the Active service: nothing is deleted, ever.
      await h.submit(id, {});
      await h.fake.waitFor('chat.postMessage', reminderPosted);
      expect(h.uisp.writes().filter((w) => w.includes('/services'))).toEqual([]);
      expect(h.uisp.sim.data.services.filter((s) => s.clientId === 1002).map((s) => [s.id, s.status])).toEqual([[102, 1]]);
    });

    it('another Quoted service that appeared meanwhile is shown for confirmation, and nothing is deleted before', async () => {
      const id = await confirmPriya();
      h.uisp.sim.data.services.push({ ...quoted102(), id: 151 });
      await h.submit(id, {});
      const again = await h.viewBecomes(id, 'activate_confirm', 'UISP changed since you confirmed');
      expect(JSON.stringify(again)).toContain('Quoted service #151 would now be deleted too');
      expect(JSON.stringify(again)).toContain('Quoted service #151');
      expect(h.uisp.writes()).toEqual([]);
      await h.submit(id, {});
      await h.fake.waitFor('chat.postMessage', reminderPosted);
      expect(h.uisp.writes().filter((w) => w.startsWith('DELETE')).sort()).toEqual(['DELETE /crm/api/v1.0/clients/services/102', 'DELETE /crm/api/v1.0/clients/services/151']);
    });
  });

  it('returns invalid fields under the field and sends nothing to UISP', async () => {
    await h.command('/activate');
    const { id } = await h.openedView();
    const reply = await h.submit(id, inputs({ device: '10.20.1.88', firstName: 'J4ne', lastName: 'doe', email: 'not-an-email', clientId: 'abc' }));
    expect(reply.body).toEqual({
      response_action: 'errors',
      errors: {
        firstName: 'First name may contain only letters, spaces, hyphens, apostrophes and periods.',
        email: 'Email address must be a valid address such as name@example.org.',
        clientId: 'CRM client id must be a positive whole number such as 1001 or #1001.',
      },
    });
    expect(h.uisp.sim.requests).toEqual([]);
  });

  it('shows a device that is not found under the device field, with the values kept', async () => {
    await h.command('/activate');
    const { id } = await h.openedView();
    await h.submit(id, inputs({ device: 'no-such-cpe', firstName: 'Jane', lastName: 'Doe' }));
    const form = await h.viewBecomes(id, 'activate_form', 'Device not found');
    expect(JSON.stringify(form)).toContain(preselected('no-such-cpe'));
    expect(h.uisp.writes()).toEqual([]);
    expect(h.fake.callsTo('chat.postMessage')).toEqual([]);
  });

  it('reports a failure with what was and was not done, and Retry converges in the same thread', async () => {
    h.uisp.sim.setFaults([{ method: 'POST', path: '/nms/api/v2.1/sites', kind: 'status', status: 400 }]);
    await h.command('/activate', '10.20.1.88 jane doe');
    const { id } = await h.openedView();
    await h.submit(id, inputs({ device: '10.20.1.88', firstName: 'jane', lastName: 'doe' }));

    const failureCall = await h.fake.waitFor('chat.postMessage', (call) => String(call.args.text).startsWith('Activation failed'));
    const failureReport = h.fake.messages(CHANNEL).find((m) => m.ts === failureCall.response.ts)!;
    const report = shown(failureReport);
    expect(report).toContain('*Done:*');
    expect(report).toContain('Created client #1010 Jane Doe');
    expect(report).toContain('*Not done:*');
    expect(report).toContain('create NMS site');
    expect(report).toContain('"action_id":"activation_retry"');
    const parent = h.fake.messages(CHANNEL)[0]!;
    expect(shown(parent)).toContain('*Failed*');
    await h.fake.waitFor('chat.postMessage', (call) => call.args.channel === AUDIT_CHANNEL);

    h.uisp.sim.setFaults([]);
    const clicked = await h.sender.blockAction({ userId: 'U0SECOND', actionId: 'activation_retry', message: failureReport });
    expect(clicked.status).toBe(200);
    await h.fake.waitFor('chat.postMessage', reminderPosted);

    const thread = h.fake.messages(CHANNEL);
    expect(thread.every((m) => m.ts === parent.ts || m.thread_ts === parent.ts)).toBe(true);
    expect(thread.some((m) => m.text.includes('Retry started by <@U0SECOND>'))).toBe(true);
    // The used Retry button is gone, replaced by who pressed it.
    const marked = thread.find((m) => m.ts === failureReport.ts)!;
    expect(shown(marked)).not.toContain('activation_retry');
    expect(shown(marked)).toContain('Retried by <@U0SECOND>');
    // The parent still names who started it, now with the final status.
    expect(shown(thread[0]!)).toContain('started by <@U0AGENT>');
    expect(shown(thread[0]!)).toContain('*Activated*');
    // Converged: one client, one service, the site created on the second run.
    const writes = h.uisp.writes();
    expect(writes.filter((w) => w === 'POST /crm/api/v1.0/clients')).toHaveLength(1);
    expect(writes.filter((w) => /clients\/\d+\/services$/.test(w))).toHaveLength(1);
    await h.fake.waitFor('chat.postMessage', (call) => call.args.channel === AUDIT_CHANNEL && String(call.args.text).includes('activated'));
    expect(h.logs.filter((l) => l.audit).map((l) => [l.actor, l.result])).toEqual([
      ['U0AGENT', 'failed'],
      ['U0SECOND', 'activated'],
    ]);
  });

  it('runs all the same when it cannot post in the channel, and tells the agent privately what it did', async () => {
    await h.command('/activate');
    const { id } = await h.openedView();
    h.fake.failNext('chat.postMessage', { error: 'not_in_channel' });
    await h.submit(id, inputs({ device: '10.20.1.88', firstName: 'Jane', lastName: 'Doe' }));
    const told = await h.fake.waitFor('chat.postEphemeral');
    expect(told.args).toMatchObject({ channel: CHANNEL, user: AGENT });
    const text = String(told.args.text);
    expect(text).toContain(`I could not post in <#${CHANNEL}> (not_in_channel)`);
    expect(text).toContain('Outcome: *activated*');
    expect(text).toContain('Done: Created client #1010 Jane Doe');
    expect(text).toContain('One manual step left');
    // UISP was written as the agent asked: the client, its service and site, the device authorized.
    const writes = h.uisp.writes();
    expect(writes.filter((w) => w === 'POST /crm/api/v1.0/clients')).toHaveLength(1);
    expect(writes.filter((w) => /clients\/\d+\/services$/.test(w))).toHaveLength(1);
    expect(writes.filter((w) => w.endsWith('/authorize'))).toHaveLength(1);
    // Nothing of the thread was posted without its parent; the audit entry is recorded, unlinked.
    await h.fake.waitFor('chat.postMessage', (call) => call.args.channel === AUDIT_CHANNEL);
    expect(h.fake.messages(CHANNEL)).toEqual([]);
    expect(h.fake.callsTo('chat.update')).toEqual([]);
    expect(h.logs.filter((l) => l.audit).map((l) => [l.actor, l.result])).toEqual([['U0AGENT', 'activated']]);
  });

  it('keeps running when Slack refuses part of the progress, then tells the agent the outcome privately', async () => {
    await h.command('/activate');
    const { id } = await h.openedView();
    // The parent's final update is refused (e.g. the message was deleted meanwhile).
    h.fake.failNext('chat.update', { error: 'message_not_found' });
    await h.submit(id, inputs({ device: '10.20.1.88', firstName: 'Jane', lastName: 'Doe' }));
    const told = await h.fake.waitFor('chat.postEphemeral');
    const text = String(told.args.text);
    expect(text).toContain('Slack did not show every step');
    expect(text).toContain('message_not_found');
    expect(text).toContain('Outcome: *activated*');
    expect(text).toContain('Created client #1010 Jane Doe');
    // The workflow itself ran to the end.
    expect(h.uisp.writes().some((w) => w.endsWith('/authorize'))).toBe(true);
    expect(h.fake.messages(CHANNEL).some((m) => m.text.includes('One manual step left'))).toBe(true);
  });
});

describe('/activate: devices in use and client identity', () => {
  const HOPE_SITE = '4d5e6f7a-8b9c-4dae-9f10-3b4c5d6e7f89';
  const MARCUS_SITE = '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c56';
  const hopeDevice = () => h.uisp.sim.data.devices.find((d) => d.identification.name === 'cpe-hope')!;
  const problemUnder = (form: Record<string, unknown>, blockId: string) => {
    const blocks = form.blocks as { block_id?: string }[];
    return JSON.stringify(blocks[blocks.findIndex((b) => b.block_id === blockId) + 1]);
  };

  async function submitForm(values: Record<string, string>) {
    await h.command('/activate');
    const { id } = await h.openedView();
    await h.submit(id, inputs(values));
    return id;
  }

  it('a tower AP is refused under the device field, naming device, role and site; nothing written or posted', async () => {
    const id = await submitForm({ device: '10.20.1.2', firstName: 'Jane', lastName: 'Doe' });
    const form = await h.viewBecomes(id, 'activate_form', 'network infrastructure');
    expect(problemUnder(form, 'device')).toContain('diamond-ap1 is network infrastructure (role ap) on site \\"Diamond Tower\\", not a subscriber station');
    expect(JSON.stringify(form)).toContain(preselected('10.20.1.2'));
    expect(h.uisp.writes()).toEqual([]);
    expect(h.fake.callsTo('chat.postMessage')).toEqual([]);
  });

  it('a client id of another name is refused under the client-id field with the id and the CRM name', async () => {
    const id = await submitForm({ device: '10.20.3.12', firstName: 'Jane', lastName: 'Doe', clientId: '1004' });
    const form = await h.viewBecomes(id, 'activate_form', 'not Jane Doe');
    expect(problemUnder(form, 'clientId')).toContain('CRM client #1004 is Shanice Williams, not Jane Doe.');
    expect(h.uisp.writes()).toEqual([]);
  });

  it('a name matching only an archived client is reported with its id under the client-id field', async () => {
    const id = await submitForm({ device: '10.20.1.88', firstName: 'leon', lastName: 'hope' });
    const form = await h.viewBecomes(id, 'activate_form', 'archived');
    expect(problemUnder(form, 'clientId')).toContain('The CRM has this client archived: #1007 Leon Hope (leon.hope@example.com');
    expect(h.uisp.writes()).toEqual([]);
  });

  it('a station on another client’s site: the confirmation names the site and its client; confirmed, the device moves and the result and audit say from where', async () => {
    const id = await submitForm({ device: '10.20.1.77', firstName: 'Jane', lastName: 'Doe' });
    const confirm = await h.viewBecomes(id, 'activate_confirm');
    const text = JSON.stringify(confirm);
    expect(text).toContain("*cpe-hope is in use on another client's site.* It is authorized on site *Leon Hope* of client #1007 Leon Hope.");
    expect(text).toContain('Move cpe-hope from site \\"Leon Hope\\" onto that site');
    expect(text).not.toContain('Will delete');
    expect((confirm.submit as { text: string }).text).toBe('Move and activate');
    expect(JSON.parse(String(confirm.private_metadata))).toMatchObject({ confirmedMove: { deviceId: hopeDevice().identification.id, siteId: HOPE_SITE }, confirmedDeletes: [] });
    expect(h.uisp.writes()).toEqual([]);

    await h.submit(id, {});
    await h.fake.waitFor('chat.postMessage', reminderPosted);
    const authorizes = h.uisp.sim.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/authorize'));
    expect(authorizes).toHaveLength(1);
    expect(hopeDevice().identification.site).toMatchObject({ name: 'Jane Doe' });
    expect(h.uisp.writes().filter((w) => w.includes('1007') || w.includes(HOPE_SITE))).toEqual([]);
    expect(shown(h.fake.messages(CHANNEL)[0]!)).toContain('device moved from \\"Leon Hope\\" (client #1007 Leon Hope)');
    await h.fake.waitFor('chat.postMessage', (call) => call.args.channel === AUDIT_CHANNEL);
    expect(shown(h.fake.messages(AUDIT_CHANNEL)[0]!)).toContain('device cpe-hope (moved from \\"Leon Hope\\" (client #1007 Leon Hope))');
  });

  it('re-checks the move on submission: a device now on a different client’s site is not moved, and the confirmation says why', async () => {
    const id = await submitForm({ device: '10.20.1.77', firstName: 'Jane', lastName: 'Doe' });
    await h.viewBecomes(id, 'activate_confirm');
    // Meanwhile someone put the radio on Marcus Baptiste's site.
    hopeDevice().identification.site = { ...h.uisp.sim.data.devices.find((d) => d.identification.name === 'cpe-baptiste')!.identification.site! };
    await h.submit(id, {});
    const again = await h.viewBecomes(id, 'activate_confirm', 'UISP changed since you confirmed');
    expect(JSON.stringify(again)).toContain('The device is now on site \\"Marcus Baptiste\\" (client #1001 Marcus Baptiste): moving it needs your confirmation');
    expect(hopeDevice().identification.site).toMatchObject({ id: MARCUS_SITE });
    expect(h.uisp.writes()).toEqual([]);
    expect(h.fake.callsTo('chat.postMessage')).toEqual([]);
  });
});
