/** The chat's own vocabulary: help, exit, and lines a script cannot get away with. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLASH_COMMANDS } from '../../src/commands/index.js';
import { startE2e, type E2e } from './harness.js';

let e2e: E2e;
beforeAll(async () => {
  e2e = await startE2e();
});
afterAll(async () => {
  await e2e.close();
});

describe('the terminal chat', () => {
  it('/help lists every command the app registered, and the chat’s own', async () => {
    const { result, transcript } = await e2e.chat(['/help']);
    expect(result).toEqual({ ok: true });
    for (const command of SLASH_COMMANDS) expect(transcript).toContain(`  ${command.name} ${command.usageHint}`);
    expect(transcript).toContain('/press <button>');
  });

  it('shows what a slash command acknowledges with, and stops reading at exit', async () => {
    const { transcript } = await e2e.chat(['/suspend everyone', 'exit', '/payments 1001']);
    expect(transcript).toContain('(only you) SubOps: Service id must be a positive whole number such as 1001 or #1001. You typed `everyone`. Usage: `/suspend [service id]`. Nothing was changed.');
    expect(transcript).not.toContain('/payments 1001');
  });

  it.each([
    ['/nope', 'script:1: SubOps has no /nope command. Type /help for the list.'],
    ['hello', 'script:1: SubOps only answers slash commands, e.g. /activate or /payments. Type /help for the list.'],
    ['/press Retry', 'script:1: No button “Retry” in SubOps\' messages.'],
    ['/submit', 'script:1: No form is open.'],
  ])('fails a script at %s', async (line, failure) => {
    const { result, transcript } = await e2e.chat([line, '/payments 1001']);
    expect(result).toEqual({ ok: false, failure });
    expect(transcript).toContain(`✗ Script stopped at ${failure}`);
    expect(transcript).not.toContain('/payments 1001');
  });

  it('another SubOps command typed in a form closes the form, as Cancel would, and runs', async () => {
    const { result, transcript } = await e2e.chat(['/activate', '/payments 1001']);
    expect(result).toEqual({ ok: true });
    expect(transcript).toContain('  Device: /payments 1001\n└ closed “Activate subscriber”\n');
    expect(transcript).toContain('(only you) SubOps: Payments');
  });

  it('fails a script whose answer in a form is a slash word that is no SubOps command, saying how to leave', async () => {
    const { result } = await e2e.chat(['/activate', '/press Retry']);
    expect(result).toEqual({ ok: false, failure: 'script:2: Device: A form is open: answer it, /submit it or /cancel it, or type another SubOps command (e.g. /client 1005) to close it and run that.' });
  });
});

describe('typeahead fields, as Slack’s typeahead', () => {
  it('a name typed in a client field is looked up: the only match is taken', async () => {
    const { result, transcript } = await e2e.chat(['/suspend', '', 'ravi', '/cancel']);
    expect(result).toEqual({ ok: true });
    expect(transcript).toContain('  Client id (optional): ravi\n    → #1005 Ravi Persaud\n');
    expect(transcript).toContain('│ Client id [1005]');
    expect(transcript).not.toContain('positive whole number');
  });

  it('several matches are listed, and one is picked by its number', async () => {
    const { result, transcript } = await e2e.chat(['/suspend', '', 'ra', '4', '/cancel']);
    expect(result).toEqual({ ok: true });
    expect(transcript).toContain('    4. #1005 Ravi Persaud');
    expect(transcript).toContain('  Client id (1-4, or type again): 4\n');
    expect(transcript).toContain('│ Client id [1005]');
  });

  it('a device field too', async () => {
    const { transcript } = await e2e.chat(['/activate', 'persaud', '/cancel']);
    expect(transcript).toContain('  Device: persaud\n    → cpe-persaud');
  });

  it('a field SubOps finds wrong is asked again, before the rest of the form', async () => {
    const { result, transcript } = await e2e.chat(['/suspend', '', 'nobody-here', 'ravi', '/cancel']);
    expect(result).toEqual({ ok: true });
    expect(transcript).toContain('  Client id [nobody-here]: ravi\n    → #1005 Ravi Persaud\n');
  });
});
