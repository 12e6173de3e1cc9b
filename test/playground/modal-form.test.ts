/** Modals as terminal forms, read from the app's own view builders; answers as the state the app reads back. */
import { describe, expect, it } from 'vitest';
import { displayValue, fieldPrompt, modalLines, parseAnswer, readModal, stateValues, type FormField } from '../../src/playground/modal-form.js';
import type { DisplayNames } from '../../src/playground/render-text.js';
import type { Client, Service } from '../../src/services/uisp/schemas.js';
import { readInputs } from '../../src/slack/state.js';
import { activationForm } from '../../src/views/activation.js';
import { paymentForm } from '../../src/views/payments.js';
import { suspensionConfirm, suspensionForm } from '../../src/views/suspension.js';

const names: DisplayNames = { user: () => undefined, channel: (id) => (id === 'C0SUPPORT' ? 'support' : undefined) };
const origin = { channelId: 'C0SUPPORT', userId: 'U0AGENT' };
const read = (view: object) => readModal(view as Record<string, unknown>, names);
const statusLabel = (status: number) => (status === 1 ? 'Active' : `status ${status}`);

const client: Client = { id: 1006, firstName: null, lastName: null, companyName: 'Bartica Marine Supplies', clientType: 2, userIdent: null, isLead: false, isArchived: false, contacts: [], tags: [] };
const service: Service = { id: 105, clientId: 1006, status: 1, name: 'Business 25', servicePlanPeriodId: 45, price: 25000, currencyCode: 'GYD', activeFrom: '2024-01-01', invoicingStart: '2024-01-01', suspensionReasonId: null };
const reasons = [
  { id: 1, name: 'Non-payment' },
  { id: 2, name: 'Customer request' },
  { id: 4, name: 'Relocation' },
];
const suspendForm = () => read(suspensionForm({ action: 'suspend', origin, reasons, client: { client, services: [{ service, applies: 'suspend' }] }, statusLabel }));

describe('readModal', () => {
  it('reads the activation form: labels, hints, placeholders, optional fields, pre-filled values, notes', () => {
    const form = read(activationForm({ origin, values: { device: '10.20.1.88', firstName: 'ada' } }));
    expect(form).toMatchObject({ title: 'Activate subscriber', submit: 'Activate', close: 'Cancel' });
    expect(form.fields.map((f) => [f.blockId, f.label, f.kind, f.optional, f.initial])).toEqual([
      ['device', 'Device', 'typeahead', false, '10.20.1.88'],
      ['firstName', 'First name', 'text', false, 'ada'],
      ['lastName', 'Last name', 'text', false, undefined],
      ['email', 'Email', 'text', true, undefined],
      ['phone', 'Phone', 'text', true, undefined],
      ['clientId', 'Existing CRM client id', 'typeahead', true, undefined],
    ]);
    expect(form.fields[0]).toMatchObject({ actionId: 'typeahead_device', hint: expect.stringContaining('IP, MAC address or NMS name'), placeholder: expect.stringContaining('10.0.0.5') });
    expect(form.items.at(-1)).toEqual({ type: 'note', lines: ['Nothing is written until you submit; a plan that deletes a service asks for confirmation first.'] });
  });

  it('reads selects as numbered choices and marks the field that looks a client up on Enter', () => {
    const form = suspendForm();
    expect(form.fields.map((f) => [f.blockId, f.kind, f.dispatchOnEnter])).toEqual([
      ['service', 'text', false],
      ['client', 'typeahead', true],
      ['clientService', 'select', false],
      ['reason', 'select', false],
    ]);
    expect(form.fields[1]!.actionId).toBe('suspension_client_lookup');
    expect(form.fields[3]!.choices.map((c) => [c.text, c.value])).toEqual([
      ['Non-payment', '1'],
      ['Customer request', '2'],
      ['Relocation', '4'],
    ]);
  });

  it('leaves hidden payment methods out, as the app does', () => {
    const methods = [
      { id: 'm-cash', name: 'Cash', visible: true },
      { id: 'm-old', name: 'Old', visible: false },
    ];
    const form = read(paymentForm({ origin, methods, values: { client: '1001' } }));
    expect(form.fields.map((f) => f.blockId)).toEqual(['client', 'amount', 'method', 'note']);
    expect(form.fields[2]!.choices.map((c) => c.text)).toEqual(['Cash']);
    expect(form.fields[0]!.initial).toBe('1001');
  });

  it('reads option groups, keeping each choice’s group', () => {
    const option = (text: string, value: string) => ({ text: { type: 'plain_text', text }, value });
    const view = {
      title: { type: 'plain_text', text: 'Pick' },
      submit: { type: 'plain_text', text: 'Go' },
      blocks: [{ type: 'input', block_id: 'b', label: { type: 'plain_text', text: 'Plan' }, element: { type: 'static_select', action_id: 'a', option_groups: [{ label: { type: 'plain_text', text: 'Home' }, options: [option('Basic', '7')] }, { label: { type: 'plain_text', text: 'Business' }, options: [option('Business 25', '15')] }] } }],
    };
    const [field] = read(view).fields;
    expect(field!.choices.map((c) => [c.group, c.text])).toEqual([
      ['Home', 'Basic'],
      ['Business', 'Business 25'],
    ]);
    expect(modalLines(read(view), () => undefined)).toEqual(['┌ Pick', '│ Plan', '│   Home', '│     1. Basic', '│   Business', '│     2. Business 25', '└ [Go]  [Cancel]']);
  });

  it('reads a confirmation as a modal with a submit button and no fields', () => {
    const form = read(suspensionConfirm('suspend', origin, { service, client, reason: reasons[1] }, statusLabel));
    expect(form.fields).toEqual([]);
    expect(form.submit).toBe('Suspend');
    expect(modalLines(form, () => undefined)).toEqual([
      '┌ Confirm suspension',
      '│ ⏸️ Suspend this service?',
      '│ Client: #1006 Bartica Marine Supplies',
      '│ Service: #105 Business 25',
      '│ Current status: Active',
      '│ Reason: Customer request',
      '└ [Suspend]  [Back out]',
    ]);
  });
});

describe('answers', () => {
  const [device, firstName, , email] = read(activationForm({ origin, values: { device: '10.20.1.88' } })).fields as [FormField, FormField, FormField, FormField];
  const reason = suspendForm().fields[3]!;

  it('Enter keeps a pre-filled value, leaves an optional field empty, and is refused for an empty required one', () => {
    expect(parseAnswer(device, '', device.initial)).toEqual({ value: '10.20.1.88' });
    expect(parseAnswer(email, '', undefined)).toEqual({ value: undefined });
    expect(parseAnswer(firstName, '', undefined)).toEqual({ problem: 'This field is required.' });
    expect(parseAnswer(firstName, 'x'.repeat(61), undefined)).toEqual({ problem: 'At most 60 characters.' });
  });

  it('takes a choice by number, by text, by value or by the start of one text', () => {
    expect(parseAnswer(reason, '2', undefined)).toEqual({ value: '2' });
    expect(parseAnswer(reason, 'relocation', undefined)).toEqual({ value: '4' });
    expect(parseAnswer(reason, 'Non', undefined)).toEqual({ value: '1' });
    expect(parseAnswer(reason, '9', undefined)).toEqual({ problem: 'Pick a number from 1 to 3, or type a choice.' });
    expect(displayValue(reason, '4')).toBe('3. Relocation');
  });

  it('asks with the current value, the range of choices, or (optional)', () => {
    expect(fieldPrompt(device, '10.20.1.88')).toBe('Device [10.20.1.88]: ');
    expect(fieldPrompt(email, undefined)).toBe('Email (optional): ');
    expect(fieldPrompt(reason, '2')).toBe('Reason (1-3) [2. Customer request]: ');
  });

  it('sends every input as Slack does, and the app reads back exactly what was answered', () => {
    const form = suspendForm();
    const answers: Record<string, string> = { client: '1006', clientService: '105', reason: '2' };
    const values = stateValues(form, (field) => answers[field.blockId]);
    expect(values.service).toEqual({ value: { type: 'plain_text_input', value: null } });
    expect(values.reason).toEqual({ value: { type: 'static_select', selected_option: { text: { type: 'plain_text', text: 'Customer request', emoji: true }, value: '2' } } });
    expect(readInputs(values as Parameters<typeof readInputs>[0])).toEqual(answers);
  });
});
