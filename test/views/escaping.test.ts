/**
 * Issue #29 item 9: no string from UISP or from a Slack user becomes Slack markup. Every surface SubOps
 * renders is built with each hostile value in every UISP field (./hostile.ts); in all mrkdwn it posts
 * (text objects and the message's notification text) there is no mention or link but SubOps' own, no
 * line a value started, and no formatting marker a value brought. plain_text is shown literally by
 * Slack: it stays unescaped, on one line.
 */
import { describe, expect, it } from 'vitest';
import { escapeMrkdwn } from '../../src/slack/escape.js';
import * as access from '../../src/views/access.js';
import * as activation from '../../src/views/activation.js';
import * as activationProgress from '../../src/views/activation-progress.js';
import * as approvals from '../../src/views/approvals.js';
import * as audit from '../../src/views/audit.js';
import * as digest from '../../src/views/digest.js';
import * as duplicates from '../../src/views/duplicates.js';
import * as help from '../../src/views/help.js';
import * as home from '../../src/views/home.js';
import * as linkWatch from '../../src/views/link-watch.js';
import * as lookups from '../../src/views/lookups.js';
import * as outages from '../../src/views/outages.js';
import * as payments from '../../src/views/payments.js';
import * as process from '../../src/views/process.js';
import * as sheet from '../../src/views/sheet.js';
import * as suspension from '../../src/views/suspension.js';
import * as threadNotPosted from '../../src/views/thread-not-posted.js';
import * as typeahead from '../../src/views/typeahead.js';
import * as uispChanges from '../../src/views/uisp-changes.js';
import { CRM, HOSTILE_VALUES, surfaces } from './hostile.js';

/** Exported functions of the views that are no surface of their own, or take no UISP or user text. */
const NOT_SURFACES: Record<string, string> = {
  formValuesOf: 'form values (plain_text inputs), not text',
  fullName: 'a name for the views to escape',
  rowsToRun: 'a count of the check, for the views',
  rowLines: 'the rows of a check as the thread lists them, for sheetRowsReply',
  manualLink: 'part of the link reminders, rendered there',
  operationPhrase: 'part of the approval messages, rendered there',
  reasonLine: 'part of the approval messages, rendered there',
  plainPhrase: 'plain text for audit summaries',
  decisionReply: 'mentions only',
  approvedNote: 'mentions only',
  auditMetadata: 'message metadata, not text',
  removalRequest: 'a button value',
  lateBlockId: 'a block id',
  lateDuplicateMetadata: 'message metadata, not text',
  noticeAfterClick: 'rendered with removalLine',
  helpMessage: 'static text',
  stateFacts: 'message metadata, not text',
  initialState: 'message metadata, not text',
  outageOfState: 'the outage read back from metadata, not text',
  notice: 'takes mrkdwn its callers escaped',
  clientLookupModal: 'static text',
  linkedParent: 'static text added to blocks',
  paymentFilterLooking: 'static text',
  paymentFilterApplied: 'static text',
  paymentRecording: 'static text',
  restartingMessage: 'static text',
  alreadyPressedMessage: 'static text',
  restartingModal: 'static text',
  alreadySubmittedModal: 'static text',
  retryStarted: 'a mention only',
  suspensionChecking: 'static text',
  suspensionSubmitted: 'static text and a channel link',
  unchangedText: 'rendered by suspensionResultReply',
  changeLine: 'rendered by changeNotice',
  changeMetadata: 'message metadata, not text',
  unsuspendPressed: 'a mention added to blocks',
};

const VIEW_MODULES = [access, activation, activationProgress, approvals, audit, digest, duplicates, help, home, linkWatch, lookups, outages, payments, process, sheet, suspension, threadNotPosted, typeahead, uispChanges];

/** SubOps' own tokens: user, channel and user-group mentions, dates, and links to the CRM and to Slack threads. */
const OWN_TOKEN = new RegExp(
  [
    '<@U[A-Z0-9]+>',
    '<#C[A-Z0-9]+>',
    '<!subteam\\^S[A-Z0-9]+>',
    '<!date\\^\\d+\\^[^|<>]+\\|[^<>]+>',
    `<(?:${CRM.replace(/\./g, '\\.')}|https://x\\.slack\\.com)/[^|<>]*\\|[^<>]*>`,
  ].join('|'),
  'g',
);

/** Every text object of one type, however deep in the blocks, options or view. */
function textObjects(value: unknown, type: 'mrkdwn' | 'plain_text'): { text: string; verbatim?: unknown }[] {
  if (Array.isArray(value)) return value.flatMap((v) => textObjects(v, type));
  if (!value || typeof value !== 'object') return [];
  const record = value as Record<string, unknown>;
  const own = record.type === type && typeof record.text === 'string' ? [record as { text: string }] : [];
  return [...own, ...Object.values(record).flatMap((v) => textObjects(v, type))];
}

const texts = (value: unknown, type: 'mrkdwn' | 'plain_text') => textObjects(value, type).map((o) => o.text);

/** The mrkdwn a surface posts: its text objects and a message's notification text (parsed as mrkdwn too). */
function mrkdwnOf(surface: unknown): string[] {
  const { type, text } = (surface ?? {}) as { type?: unknown; text?: unknown };
  // A message (no `type`, unlike a modal or the Home tab) has its notification text.
  const fallback = type === undefined && typeof text === 'string' ? [text] : [];
  return [...texts(surface, 'mrkdwn'), ...fallback];
}

function expectInert(text: string): void {
  const outside = text.replace(OWN_TOKEN, '');
  expect(outside, 'a mention or link that is not SubOps’ own').not.toMatch(/[<>]/);
  expect(text).not.toMatch(/[\r\u2028\u2029]/);
  for (const line of text.split('\n')) expect(line.trimStart(), 'a line a value started').not.toMatch(/^(• spoof|newline-|&gt;|>)/);
  for (const marker of ['*Nothing', 'approve*', '_x_', '~y~', '`z`', ' `z', '_x ', '~y ']) expect(text, `formatting from a value: ${marker}`).not.toContain(marker);
}

const every = HOSTILE_VALUES.flatMap((value) => Object.entries(surfaces(value)).map(([name, surface]) => [`${name} — ${JSON.stringify(value)}`, surface] as const));

describe('every surface with hostile UISP and user text', () => {
  it('lists every view function, or says why it is none', () => {
    const listed = new Set(Object.keys(surfaces('x')).map((name) => name.split(',')[0]!));
    const exported = VIEW_MODULES.flatMap((m) => Object.entries(m).filter(([, value]) => typeof value === 'function').map(([name]) => name));
    expect(exported.filter((name) => !listed.has(name) && !(name in NOT_SURFACES))).toEqual([]);
  });

  it.each(every)('%s: mrkdwn carries no mention, link, line or formatting from a value', (_name, surface) => {
    const found = mrkdwnOf(surface);
    for (const text of found) expectInert(text);
  });

  it('a bare URL or domain in a name is not turned into a link: every mrkdwn text object is verbatim', () => {
    const objects = Object.values(surfaces('https://evil.example/login evil-login.example')).flatMap((surface) => textObjects(surface, 'mrkdwn'));
    expect(objects.length).toBeGreaterThan(100);
    expect(objects.filter((o) => o.verbatim !== true)).toEqual([]);
  });

  it.each(every)('%s: plain_text is shown as typed, on one line', (_name, surface) => {
    for (const text of texts(surface, 'plain_text')) {
      expect(text).not.toMatch(/[\r\n\u2028\u2029]/);
      expect(text).not.toContain('&lt;');
    }
  });
});

describe('escapeMrkdwn', () => {
  it('shows normal names as they are', () => {
    for (const name of ["O'Brien", 'José Núñez-García', 'Ng Wei-Ling (Parika)', 'LBE_5AC_Gen2', 'cpe-01.site-a', 'snake_case_host', 'A+B 50% off', 'Kevin "Kev" Singh']) expect(escapeMrkdwn(name)).toBe(name);
    expect(escapeMrkdwn('Smith & Sons')).toBe('Smith &amp; Sons');
    expect(escapeMrkdwn('5 < 6 > 4')).toBe('5 &lt; 6 &gt; 4');
  });

  it('neutralises what Slack would parse: mentions, links, line breaks, formatting, a quote', () => {
    const shown = escapeMrkdwn('> <!here> *bold* _it_ ~gone~ `code`\r\n• next\u2028line');
    expect(shown).not.toMatch(/[<>*_~`\r\n\u2028]/);
    expect(shown).toContain('&lt;!here&gt;');
    expect(shown).toMatch(/^\S/);
  });
});
