/**
 * callback_id, block_id and action_id values shared by the view builders and the listeners that route
 * on them. Input blocks are named after the field they carry, so validation errors keyed by field map
 * straight onto `response_action: "errors"`.
 */
export const CALLBACK = {
  activateForm: 'activate_form',
  activateConfirm: 'activate_confirm',
  /** /activate sheet: the pasted install sheet, then its check with Run. */
  sheetForm: 'sheet_form',
  sheetCheck: 'sheet_check',
  suspensionForm: 'suspension_form',
  suspensionConfirm: 'suspension_confirm',
  paymentForm: 'payment_form',
  /** Views with nothing to submit (checking, started, done). */
  info: 'subops_info',
} as const;

export const ACTION = {
  /** The action_id of every single-value input; block_id names the field. */
  value: 'value',
  activationRetry: 'activation_retry',
  /** Continue on an install sheet whose process stopped mid-sheet (its value: the sheet's id in the store). */
  sheetContinue: 'sheet_continue',
  /** Enter in the suspension modal's client-id box: list that client's services. */
  suspensionClientLookup: 'suspension_client_lookup',
  /** Unsuspend on a notice of a payment made in UISP by a client whose service is suspended (`uisp_unsuspend:<service id>`). */
  uispUnsuspend: 'uisp_unsuspend',
  /** Remove duplicate on a late-duplicate notice in the audit channel (one per late record, in its own block; `:<record id>`). */
  removeDuplicate: 'remove_duplicate',
  /** Template on the install sheet form: the template CSV is sent to the agent's DM with the bot. */
  sheetTemplate: 'sheet_template',
  /** Install sheet on the activation form: the form becomes the install sheet's. */
  sheetOpen: 'sheet_open',
} as const;

/** The action_id of each typeahead field (external_select); the options request names it. */
export const TYPEAHEAD = {
  device: 'typeahead_device',
  client: 'typeahead_client',
} as const;

export const BLOCK = {
  activationRetry: 'activation_retry',
  sheetContinue: 'sheet_continue',
  uispUnsuspend: 'uisp_unsuspend',
  suspension: { serviceId: 'service', clientId: 'client', clientService: 'clientService', reason: 'reason' },
  sheet: 'sheet',
  /** An install sheet's parent message: many links share its thread, so "Linked in CRM" is said in the thread, not on it. */
  sheetParent: 'sheet_parent',
  /** The install sheet's file field (file_input), next to the paste field `sheet`. */
  sheetFile: 'sheet_file',
  payment: { clientId: 'client', amount: 'amount', method: 'method', note: 'note' },
} as const;
