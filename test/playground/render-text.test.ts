/** Block Kit to terminal text, on hand-written mrkdwn and on the app's own message builders. */
import { describe, expect, it } from 'vitest';
import { renderMessage, renderMrkdwn, type DisplayNames } from '../../src/playground/render-text.js';
import type { ActivationRequest, ActivationResult } from '../../src/services/activation/types.js';
import type { Client, Service } from '../../src/services/uisp/schemas.js';
import { activationFailure, activationParent } from '../../src/views/activation-progress.js';
import { helpMessage } from '../../src/views/help.js';
import { paymentsList } from '../../src/views/payments.js';
import { suspensionParent } from '../../src/views/suspension.js';

const names: DisplayNames = {
  user: (id) => ({ U0AGENT: 'agent' })[id],
  channel: (id) => ({ C0SUPPORT: 'support' })[id],
};
const text = (mrkdwn: string) => renderMrkdwn(mrkdwn, names);

describe('renderMrkdwn', () => {
  it('shows links as label and address, mentions and channels by name', () => {
    expect(text('see <https://uisp.example/crm/client/7?a=1&amp;b=2|#7 Jane> now')).toBe('see #7 Jane (https://uisp.example/crm/client/7?a=1&b=2) now');
    expect(text('<https://example.net>')).toBe('https://example.net');
    expect(text('by <@U0AGENT> and <@U0OTHER> in <#C0SUPPORT> and <#C0ELSE|ops>')).toBe('by @agent and @U0OTHER in #support and #ops');
    expect(text('<!subteam^S0OPS|@oncall>, <!date^1700000000^{date}|Nov 14>')).toBe('@oncall, Nov 14');
  });

  it('tells a real ping from an escaped one: `<!channel>` pings, `&lt;!channel&gt;` is literal text', () => {
    expect(text('<!channel> look')).toBe('@channel look');
    expect(text('client &lt;!channel&gt; &amp; co')).toBe('client <!channel> & co');
    // Decoding happens after the tokens are read, so an escaped token never turns into a link.
    expect(text('&lt;https://evil.example|click&gt;')).toBe('<https://evil.example|click>');
  });

  it('drops emphasis markers where Slack honours them, and keeps code and arithmetic as written', () => {
    expect(text('*Done*: _quietly_ ~never~')).toBe('Done: quietly never');
    expect(text('id `cpe_bartica_marine`, 2*3*4, snake_case_name')).toBe('id `cpe_bartica_marine`, 2*3*4, snake_case_name');
  });

  it('turns the emoji codes the app uses into emoji and leaves times and unknown codes alone', () => {
    expect(text(':white_check_mark: at 10:00:00 :shrug:')).toBe('✅ at 10:00:00 :shrug:');
  });
});

const request: ActivationRequest = { device: '10.20.1.88', firstName: 'Ada', lastName: 'Lovelace' };
const hostile: Client = { id: 1004, firstName: '<!channel>', lastName: 'Williams', companyName: null, clientType: 1, userIdent: null, isLead: false, isArchived: false, contacts: [], tags: [] };
const service: Service = { id: 106, clientId: 1004, status: 1, name: 'Standard Monthly', servicePlanPeriodId: 37, price: 10000, currencyCode: 'GYD', activeFrom: '2025-01-01', invoicingStart: '2025-01-01', suspensionReasonId: null };

describe('renderMessage on the app’s messages', () => {
  it('renders a section and its context as lines', () => {
    expect(renderMessage(activationParent({ request, startedBy: 'U0AGENT' }), names)).toEqual([
      'Activation of 10.20.1.88 for Ada Lovelace, started by @agent',
      '⏳ In progress: each step is posted in the thread as it happens.',
    ]);
  });

  it('shows buttons as [Text]', () => {
    const failed: ActivationResult = {
      type: 'result',
      outcome: 'failed',
      failedStep: 'site',
      error: { code: 'uisp-error', problem: 'request', detail: 'The NMS refused the site.', mayHaveApplied: false, beforeWrites: false },
      done: [{ kind: 'client-created', client: { id: 1010, name: 'Ada Lovelace' } }],
      notDone: [{ kind: 'create-site', name: 'Ada Lovelace' }],
    };
    const lines = renderMessage(activationFailure(request, 'U0AGENT', failed), names);
    expect(lines[0]).toBe('❌ Activation failed. Activation failed at the site step: The NMS refused the site.');
    expect(lines).toContain('• Created client #1010 Ada Lovelace');
    expect(lines.at(-1)).toBe('[Retry]');
  });

  it('renders headers, dividers and totals of the payments listing', () => {
    const summary = {
      query: { from: '2025-01-01', to: '2025-01-31' },
      payments: [{ id: 9, clientId: 1004, methodId: 'm-cash', createdDate: '2025-01-15T10:00:00-0400', amount: 2500, currencyCode: 'GYD', note: null }],
      totals: [
        { currency: 'GYD', amount: 2500, count: 1 },
        { currency: 'USD', amount: 12.5, count: 2 },
      ],
      pageTotals: [{ currency: 'GYD', amount: 2500, count: 1 }],
      count: 3,
    };
    const lines = renderMessage(paymentsList({ summary, clientNames: new Map([[1004, 'Shanice Williams']]), methodNames: new Map([['m-cash', 'Cash']]) }), names);
    expect(lines).toEqual([
      'Latest payments',
      'From 2025-01-01 to 2025-01-31  ·  3 payments',
      '`2025-01-15`  #1004 Shanice Williams  GYD 2,500.00  Cash',
      'Showing the newest 1 of 3; the totals cover all 3.',
      '───',
      'This page',
      '• GYD 2,500.00 in 1 payment',
      'Totals',
      '• GYD 2,500.00 in 1 payment',
      '• USD 12.50 in 2 payments',
      '[Next] [Filter…] [Export CSV]',
    ]);
  });

  it('shows a client named `<!channel>` literally, as Slack does with the escaped text, never as a ping', () => {
    const lines = renderMessage(suspensionParent({ action: 'suspend', actorId: 'U0AGENT', target: { service, client: hostile } }), names).join('\n');
    expect(lines).toContain('client #1004 <!channel> Williams');
    expect(lines).not.toContain('@channel');
  });

  it('falls back to the text when a message has no blocks', () => {
    expect(renderMessage({ text: 'plain *bold*' }, names)).toEqual(['plain bold']);
    expect(renderMessage(helpMessage(), names)[0]).toBe('SubOps commands');
  });
});
