/**
 * Every way into the Slack app, and the action (src/services/access.ts) each one needs: slash commands,
 * view submissions, buttons, options loads and events. The access middleware looks requests up here,
 * so no listener can forget its check; a test holds this table against every listener the app
 * registers, so a new entry point without a row fails the suite. `none`: only who may use SubOps at all
 * (help, an information modal, the Home tab, whose parts follow the user's grants).
 */
import type { AccessAction } from '../services/access.js';
import { ACTION, CALLBACK, TYPEAHEAD } from '../views/ids.js';
import { HOME_ACTION, HOME_LOOKUP } from '../views/home.js';
import { LOOKUP_ACTION } from '../views/lookups.js';
import { CALLBACK_PAYMENT_FILTER, PAYMENTS_ACTION } from '../views/payments.js';
import { APPROVAL_ACTION } from '../views/approvals.js';
import { OUTAGE_ACTIONS, OUTAGE_UPDATE_VIEW } from '../views/outages.js';
import { SuspensionMetaSchema } from './metadata.js';

/** What a rule may read of the request. */
export interface EntryBody {
  text?: string | undefined;
  view?: { private_metadata?: string | undefined } | undefined;
}

type Needs = AccessAction | 'none';
type Rule = Needs | ((body: EntryBody) => Needs);

/** A suspension form, its confirmation and its client lookup: suspend or unsuspend, as the form was opened for. */
const suspensionFormAction = (body: EntryBody): Needs => {
  try {
    return SuspensionMetaSchema.parse(JSON.parse(body.view?.private_metadata ?? 'null')).action;
  } catch {
    // Unreadable metadata: the stricter of the two (the listener refuses the form anyway).
    return 'suspend';
  }
};

export const COMMAND_ENTRIES: Record<string, Rule> = {
  '/activate': 'activate',
  '/suspend': 'suspend',
  '/unsuspend': 'unsuspend',
  // `/payments add …` opens the record-payment form; anything else lists payments.
  '/payments': (body) => (/^\s*add(\s|$)/i.test(body.text ?? '') ? 'record-payment' : 'lookup'),
  '/subops': 'none',
  '/client': 'lookup',
  '/device': 'lookup',
};

export const VIEW_ENTRIES: Record<string, Rule> = {
  [CALLBACK.activateForm]: 'activate',
  [CALLBACK.activateConfirm]: 'activate',
  [CALLBACK.sheetForm]: 'activate',
  [CALLBACK.sheetCheck]: 'activate',
  [CALLBACK.suspensionForm]: suspensionFormAction,
  [CALLBACK.suspensionConfirm]: suspensionFormAction,
  [CALLBACK.paymentForm]: 'record-payment',
  [CALLBACK_PAYMENT_FILTER]: 'lookup',
  [HOME_LOOKUP.callbackId]: 'lookup',
  [OUTAGE_UPDATE_VIEW]: 'acknowledge-outage',
};

/** Button action ids, without the `:n` suffix that keeps several of one kind in a block apart. */
export const BUTTON_ENTRIES: Record<string, Rule> = {
  [ACTION.activationRetry]: 'activate',
  [ACTION.sheetContinue]: 'activate',
  // The install sheet's buttons: the template, and the sheet form from the activation form.
  [ACTION.sheetTemplate]: 'activate',
  [ACTION.sheetOpen]: 'activate',
  [ACTION.suspensionClientLookup]: suspensionFormAction,
  [ACTION.uispUnsuspend]: 'unsuspend',
  // Removing a late duplicate finishes an activation's clean-up.
  [ACTION.removeDuplicate]: 'activate',
  [LOOKUP_ACTION.openClient]: 'lookup',
  [LOOKUP_ACTION.openDevice]: 'lookup',
  [LOOKUP_ACTION.suspend]: 'suspend',
  [LOOKUP_ACTION.unsuspend]: 'unsuspend',
  [LOOKUP_ACTION.recordPayment]: 'record-payment',
  [LOOKUP_ACTION.activate]: 'activate',
  [HOME_ACTION.activate]: 'activate',
  [HOME_ACTION.sheet]: 'activate',
  [HOME_ACTION.suspend]: 'suspend',
  [HOME_ACTION.unsuspend]: 'unsuspend',
  [HOME_ACTION.payment]: 'record-payment',
  [HOME_ACTION.lookupClient]: 'lookup',
  [PAYMENTS_ACTION.page]: 'lookup',
  [PAYMENTS_ACTION.forClient]: 'lookup',
  [PAYMENTS_ACTION.filter]: 'lookup',
  [PAYMENTS_ACTION.export]: 'lookup',
  [APPROVAL_ACTION.approve]: 'approve',
  [APPROVAL_ACTION.reject]: 'approve',
  [OUTAGE_ACTIONS.acknowledge]: 'acknowledge-outage',
  [OUTAGE_ACTIONS.update]: 'acknowledge-outage',
  [OUTAGE_ACTIONS.showAll]: 'lookup',
};

/** Options loads (typeahead): lookups, wherever the field is. */
export const OPTIONS_ENTRIES: Record<string, Rule> = {
  [TYPEAHEAD.device]: 'lookup',
  [TYPEAHEAD.client]: 'lookup',
  [ACTION.suspensionClientLookup]: 'lookup',
};

export const EVENT_ENTRIES: Record<string, Rule> = {
  app_home_opened: 'none',
};

export type EntryKind = 'command' | 'view' | 'button' | 'options' | 'event';

const TABLES: Record<EntryKind, Record<string, Rule>> = { command: COMMAND_ENTRIES, view: VIEW_ENTRIES, button: BUTTON_ENTRIES, options: OPTIONS_ENTRIES, event: EVENT_ENTRIES };

/** The action a request needs, or undefined when the table has no row for it (the middleware then refuses). */
export function entryNeeds(kind: EntryKind, id: string, body: EntryBody): Needs | undefined {
  const rule = TABLES[kind][kind === 'button' ? id.replace(/:.*$/, '') : id];
  return typeof rule === 'function' ? rule(body) : rule;
}
