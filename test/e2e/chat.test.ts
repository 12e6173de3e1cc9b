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

  it('fails a script whose answer is another command while a form is open', async () => {
    const { result } = await e2e.chat(['/activate', '/payments']);
    expect(result).toEqual({ ok: false, failure: 'script:2: Device: A form is open: answer it, /submit it or /cancel it first.' });
  });
});
