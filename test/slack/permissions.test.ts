/**
 * Permissions per action (issue #21 §1), over every entry point: each action is granted to one user of
 * its own, and every entry point is tried by every one of them. The expected action of each entry point
 * is written here, not read from the app's table; a second test holds this list against the listeners the
 * app registers, so a new entry point without a row here fails.
 */
import type { App } from '@slack/bolt';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as activation from '../../src/commands/activation/index.js';
import * as approvals from '../../src/commands/approvals/index.js';
import * as duplicates from '../../src/commands/duplicates/index.js';
import * as help from '../../src/commands/help/index.js';
import * as home from '../../src/commands/home/index.js';
import * as linkWatch from '../../src/commands/link-watch/index.js';
import * as lookups from '../../src/commands/lookups/index.js';
import * as payments from '../../src/commands/payments/index.js';
import * as suspension from '../../src/commands/suspension/index.js';
import * as typeahead from '../../src/commands/typeahead/index.js';
import * as uispChanges from '../../src/commands/uisp-changes/index.js';
import { ACCESS_ACTIONS, type AccessAction } from '../../src/services/access.js';
import type { ListenerDeps } from '../../src/slack/deps.js';
import { ACTION_LABEL } from '../../src/views/access.js';
import { AUDIT_CHANNEL, buttons, CHANNEL, startHarness, type Harness } from './harness.js';

type Kind = 'command' | 'view' | 'button' | 'options' | 'event';
type Needs = AccessAction | 'none';

interface Row {
  kind: Kind;
  /** Command name, callback_id, action_id or event type. */
  id: string;
  needs: Needs;
  /** A command's text; a view's private_metadata. */
  text?: string;
  metadata?: string;
}

const suspendForm = JSON.stringify({ action: 'suspend', origin: { channelId: CHANNEL, userId: 'U0X' } });
const unsuspendForm = JSON.stringify({ action: 'unsuspend', origin: { channelId: CHANNEL, userId: 'U0X' } });

/** Every entry point, and the action a person needs to use it (issue #21 §1). */
const ROWS: Row[] = [
  { kind: 'command', id: '/activate', needs: 'activate' },
  { kind: 'command', id: '/suspend', needs: 'suspend' },
  { kind: 'command', id: '/unsuspend', needs: 'unsuspend' },
  { kind: 'command', id: '/payments', needs: 'lookup', text: '#1001' },
  { kind: 'command', id: '/payments', needs: 'record-payment', text: 'add 1001 500' },
  { kind: 'command', id: '/subops', needs: 'none', text: 'help' },
  { kind: 'command', id: '/client', needs: 'lookup', text: '#1001' },
  { kind: 'command', id: '/device', needs: 'lookup', text: '10.20.1.21' },
  { kind: 'view', id: 'activate_form', needs: 'activate' },
  { kind: 'view', id: 'activate_confirm', needs: 'activate' },
  { kind: 'view', id: 'sheet_form', needs: 'activate' },
  { kind: 'view', id: 'sheet_check', needs: 'activate' },
  { kind: 'view', id: 'suspension_form', needs: 'suspend', metadata: suspendForm },
  { kind: 'view', id: 'suspension_form', needs: 'unsuspend', metadata: unsuspendForm },
  { kind: 'view', id: 'suspension_confirm', needs: 'suspend', metadata: suspendForm },
  { kind: 'view', id: 'suspension_confirm', needs: 'unsuspend', metadata: unsuspendForm },
  { kind: 'view', id: 'payment_form', needs: 'record-payment' },
  { kind: 'view', id: 'payment_filter', needs: 'lookup' },
  { kind: 'view', id: 'home_client_lookup', needs: 'lookup' },
  { kind: 'view', id: 'outage_update', needs: 'acknowledge-outage' },
  { kind: 'button', id: 'activation_retry', needs: 'activate' },
  { kind: 'button', id: 'sheet_continue', needs: 'activate' },
  { kind: 'button', id: 'sheet_template', needs: 'activate' },
  { kind: 'button', id: 'sheet_open', needs: 'activate' },
  { kind: 'button', id: 'suspension_client_lookup', needs: 'suspend', metadata: suspendForm },
  { kind: 'button', id: 'suspension_client_lookup', needs: 'unsuspend', metadata: unsuspendForm },
  { kind: 'button', id: 'uisp_unsuspend', needs: 'unsuspend' },
  { kind: 'button', id: 'remove_duplicate', needs: 'activate' },
  { kind: 'button', id: 'lookup_open_client', needs: 'lookup' },
  { kind: 'button', id: 'lookup_open_device', needs: 'lookup' },
  { kind: 'button', id: 'lookup_suspend', needs: 'suspend' },
  { kind: 'button', id: 'lookup_unsuspend', needs: 'unsuspend' },
  { kind: 'button', id: 'lookup_record_payment', needs: 'record-payment' },
  { kind: 'button', id: 'lookup_activate', needs: 'activate' },
  { kind: 'button', id: 'home_activate', needs: 'activate' },
  { kind: 'button', id: 'home_sheet', needs: 'activate' },
  { kind: 'button', id: 'home_suspend', needs: 'suspend' },
  { kind: 'button', id: 'home_unsuspend', needs: 'unsuspend' },
  { kind: 'button', id: 'home_payment', needs: 'record-payment' },
  { kind: 'button', id: 'home_lookup_client', needs: 'lookup' },
  { kind: 'button', id: 'payments_page', needs: 'lookup' },
  { kind: 'button', id: 'payments_for_client', needs: 'lookup' },
  { kind: 'button', id: 'payments_filter', needs: 'lookup' },
  { kind: 'button', id: 'payments_export', needs: 'lookup' },
  { kind: 'button', id: 'approval_approve', needs: 'approve' },
  { kind: 'button', id: 'approval_reject', needs: 'approve' },
  { kind: 'button', id: 'outage_acknowledge', needs: 'acknowledge-outage' },
  { kind: 'button', id: 'outage_update', needs: 'acknowledge-outage' },
  { kind: 'button', id: 'outage_show_all', needs: 'lookup' },
  { kind: 'options', id: 'typeahead_device', needs: 'lookup' },
  { kind: 'options', id: 'typeahead_client', needs: 'lookup' },
  { kind: 'options', id: 'suspension_client_lookup', needs: 'lookup' },
  { kind: 'event', id: 'app_home_opened', needs: 'none' },
];

/** One user per action, holding only that action's grant (through a user group for all but approve). */
const HOLDER: Record<AccessAction, string> = {
  lookup: 'U0LOOKUP',
  activate: 'U0ACTIVATE',
  suspend: 'U0SUSPEND',
  unsuspend: 'U0UNSUSPEND',
  'record-payment': 'U0PAYMENT',
  approve: 'U0APPROVE',
  'acknowledge-outage': 'U0OUTAGE',
};
const GROUP: Record<AccessAction, string> = { lookup: 'S0LOOKUP', activate: 'S0ACTIVATE', suspend: 'S0SUSPEND', unsuspend: 'S0UNSUSPEND', 'record-payment': 'S0PAYMENT', approve: 'S0APPROVE', 'acknowledge-outage': 'S0OUTAGE' };

describe('every entry point is in the permission table', () => {
  it('each listener the app registers has a row above', () => {
    const registered: { kind: Kind; id: string }[] = [];
    const idOf = (constraint: unknown) => (constraint instanceof RegExp ? /^\^(\w+)/.exec(constraint.source)![1]! : String(constraint));
    const recorder = {
      command: (name: string) => registered.push({ kind: 'command', id: name }),
      view: (constraint: unknown) => registered.push({ kind: 'view', id: idOf(constraint) }),
      action: (constraint: unknown) => registered.push({ kind: 'button', id: idOf(constraint) }),
      options: (constraint: unknown) => registered.push({ kind: 'options', id: idOf(constraint) }),
      event: (name: string) => registered.push({ kind: 'event', id: name }),
      shortcut: (constraint: unknown) => registered.push({ kind: 'button', id: `shortcut ${idOf(constraint)}` }),
      message: () => registered.push({ kind: 'event', id: 'message' }),
      client: {},
    } as unknown as App;
    // Events on, so the listeners that exist only with UISP webhooks register too.
    const events = { settings: { linkReminderMs: 1 }, links: { subscribe() {} }, webhooks: { recognize() {}, subscribe() {}, onServiceWrite() {} } };
    const deps = { logger: pino({ level: 'silent' }), events, auditChannelId: AUDIT_CHANNEL, services: { lookups: { typeahead: {} } } } as unknown as ListenerDeps;
    for (const feature of [activation, suspension, payments, lookups, help, uispChanges, linkWatch, home, typeahead, duplicates, approvals]) feature.register(recorder, deps);

    const missing = registered.filter((entry) => !ROWS.some((row) => row.kind === entry.kind && row.id === entry.id));
    expect(missing).toEqual([]);
    expect(registered.length).toBeGreaterThan(30);
  });
});

describe('permissions per action, every entry point against every action', () => {
  let h: Harness;
  beforeAll(async () => {
    const env = Object.fromEntries(ACCESS_ACTIONS.map((action) => [`ACCESS_${action.toUpperCase().replace('-', '_')}`, action === 'approve' ? HOLDER.approve : GROUP[action]]));
    const usergroups = Object.fromEntries(ACCESS_ACTIONS.map((action) => [GROUP[action], [HOLDER[action]]]));
    h = await startHarness({ env, fakeSlack: { usergroups } });
  });
  afterAll(async () => {
    await h.close();
  });

  /** Sends the entry point's request as `userId` and returns everything Slack was asked to show for it. */
  async function use(row: Row, userId: string): Promise<string> {
    const calls = h.fake.calls.length;
    const responses = h.fake.responses.length;
    const view = { id: 'V0PERMS', callback_id: row.kind === 'view' ? row.id : 'activate_form', private_metadata: row.metadata ?? '', blocks: [] };
    const message = { ts: '1700000000.000100', blocks: [], text: 'a message' };
    let reply;
    switch (row.kind) {
      case 'command':
        reply = await h.command(row.id, row.text ?? '', userId);
        break;
      case 'view':
        reply = await h.sender.viewSubmission({ userId, view, values: {} });
        break;
      case 'button':
        reply = row.metadata
          ? await h.sender.blockAction({ userId, actionId: row.id, blockId: 'b', value: '1001', view })
          : await h.sender.blockAction({ userId, actionId: row.id, blockId: 'b', value: '{}', message, channelId: CHANNEL, messageTs: message.ts });
        break;
      case 'options':
        reply = await h.sender.blockSuggestion({ userId, view, actionId: row.id, value: 'ke' });
        break;
      case 'event':
        reply = await h.sender.event({ type: 'app_home_opened', user: userId, tab: 'home', channel: 'D0HOME' });
        break;
    }
    await h.settled();
    return [JSON.stringify(reply.body), ...h.fake.calls.slice(calls).map((c) => JSON.stringify(c.args)), ...h.fake.responses.slice(responses).map((r) => JSON.stringify(r.body))].join('\n');
  }

  for (const row of ROWS) {
    const name = `${row.kind} ${row.id}${row.text ? ` ${row.text}` : ''}${row.metadata ? ` (${row.needs} form)` : ''}`;
    it(`${name}: only the holder of ${row.needs === 'none' ? 'any grant' : row.needs} gets through; others are told which group, and UISP is not asked`, async () => {
      for (const action of ACCESS_ACTIONS) {
        const requests = h.uisp.sim.requests.length;
        const shownToUser = await use(row, HOLDER[action]);
        const refusedHere = row.needs !== 'none' && row.needs !== action;
        if (refusedHere && row.kind === 'options') {
          // An options load is answered with options only: a refused user is offered none.
          expect(shownToUser, `${HOLDER[action]} (${action})`).toBe('{"options":[]}');
          expect(h.uisp.sim.requests.length, `UISP was asked for ${HOLDER[action]}`).toBe(requests);
        } else if (refusedHere) {
          expect(shownToUser, `${HOLDER[action]} (${action})`).toContain(`*${ACTION_LABEL[row.needs as AccessAction]}* is for`);
          expect(shownToUser).toContain(row.needs === 'approve' ? `<@${HOLDER.approve}>` : `<!subteam^${GROUP[row.needs as AccessAction]}>`);
          expect(h.uisp.sim.requests.length, `UISP was asked for ${HOLDER[action]}`).toBe(requests);
        } else {
          expect(shownToUser, `${HOLDER[action]} (${action})`).not.toContain(' is for ');
          if (row.kind === 'options') expect(JSON.parse(shownToUser.split('\n')[0]!).options.length, 'options for the lookup holder').toBeGreaterThan(0);
        }
      }
    });
  }

  it('a user outside every grant, with no ALLOWED_* set, may still use what is left to everyone', async () => {
    expect(await use({ kind: 'command', id: '/subops', needs: 'none', text: 'help' }, 'U0NOBODY')).toContain('SubOps commands');
  });
});

describe('buttons a user may not use are not offered', () => {
  // An example team: support looks up and activates; billing also suspends, lifts and records payments.
  const team = { ACCESS_SUSPEND: 'S0BILLING', ACCESS_UNSUSPEND: 'S0BILLING', ACCESS_RECORD_PAYMENT: 'S0BILLING', ACCESS_APPROVE: 'S0LEADS' };
  const SUPPORT = 'U0ANNA';
  const BILLING = 'U0BEN';
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: team, fakeSlack: { usergroups: { S0BILLING: [BILLING], S0LEADS: ['U0LEAD'] } } });
  });
  afterAll(async () => {
    await h.close();
  });

  const cardFor = async (userId: string) => {
    const before = h.fake.responses.length;
    await h.command('/client', '#1005', userId);
    await h.settled();
    return h.fake.responses[before]!.body as { blocks?: unknown[] };
  };

  it('the client card offers Unsuspend and Record payment to billing only', async () => {
    expect([...buttons(await cardFor(BILLING)).keys()]).toEqual(['Unsuspend #104', 'Record payment']);
    expect([...buttons(await cardFor(SUPPORT)).keys()]).toEqual([]);
  });

  it("the Home tab offers each user the buttons of their grants", async () => {
    const homeButtons = async (userId: string) => {
      await h.sender.event({ type: 'app_home_opened', user: userId, tab: 'home', channel: 'D0HOME' });
      await h.settled();
      return [...buttons(h.fake.homes.get(userId) as { blocks?: unknown[] }).keys()];
    };
    expect(await homeButtons(SUPPORT)).toEqual(['Activate a customer', 'Install sheet', 'Look up a client']);
    expect(await homeButtons(BILLING)).toEqual(['Activate a customer', 'Install sheet', 'Suspend a service', 'Unsuspend a service', 'Record a payment', 'Look up a client']);
  });
});

describe('start-up names the permissions the bot runs with', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });
  const settingsLines = () => h!.logs.filter((line) => String(line.msg).startsWith('Access: '));

  it('one info line lists who may use SubOps, each action’s grant, and the changes that wait for approval', async () => {
    h = await startHarness({
      env: {
        ALLOWED_USERGROUP_ID: 'S0STAFF',
        ACCESS_SUSPEND: 'S0BILLING,U0BEN',
        ACCESS_RECORD_PAYMENT: 'S0BILLING,U0BEN',
        ACCESS_APPROVE: 'S0LEADS',
        APPROVAL_REQUIRED_FOR: 'delete-service,large-payment',
        APPROVAL_PAYMENT_ABOVE: '50000',
        APPROVALS_CHANNEL_ID: 'C0APPROVALS',
      },
    });
    expect(settingsLines()).toEqual([
      expect.objectContaining({
        level: 30,
        msg: 'Access: SubOps to S0STAFF; lookup, activate, unsuspend, acknowledge-outage: everyone allowed; suspend, record-payment: U0BEN, S0BILLING; approve: S0LEADS. Approvals: delete-service, large-payment above 50000; posted in C0APPROVALS; expire after 4 h.',
        access: {
          everyone: ['S0STAFF'],
          actions: { lookup: null, activate: null, suspend: ['U0BEN', 'S0BILLING'], unsuspend: null, 'record-payment': ['U0BEN', 'S0BILLING'], approve: ['S0LEADS'], 'acknowledge-outage': null },
        },
        approvals: { required: ['delete-service', 'large-payment'], paymentAbove: 50000, channelId: 'C0APPROVALS', expiresAfterMs: 4 * 3_600_000 },
      }),
    ]);
    expect(h.logs.filter((line) => String(line.msg).includes('ACCESS_APPROVE is not'))).toEqual([]);
  });

  it('with nothing restricted it says so, and approvals without ACCESS_APPROVE are a warning', async () => {
    h = await startHarness({ env: { APPROVAL_REQUIRED_FOR: 'suspension' } });
    expect(settingsLines().map((line) => line.msg)).toEqual([
      `Access: SubOps to the whole workspace; lookup, activate, suspend, unsuspend, record-payment, approve, acknowledge-outage: everyone allowed. Approvals: suspension; posted in ${AUDIT_CHANNEL}; expire after 4 h.`,
    ]);
    expect(h.logs.filter((line) => String(line.msg).includes('ACCESS_APPROVE is not'))).toEqual([
      expect.objectContaining({ level: 40, msg: "APPROVAL_REQUIRED_FOR is set but ACCESS_APPROVE is not: anyone who may use SubOps may approve another person's request; set ACCESS_APPROVE to the approvers (a user group S…, or user ids)." }),
    ]);
  });
});
