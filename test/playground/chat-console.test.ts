/** Script lines for the chat: comments, blank lines as Enter in forms only, echo after the prompt. */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { scriptConsole } from '../../src/playground/chat-console.js';

function capture(): { output: PassThrough; text: () => string } {
  const output = new PassThrough();
  let text = '';
  output.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return { output, text: () => text };
}

describe('scriptConsole', () => {
  it('skips comments always and blank lines only where a command is expected, echoing each line it reads', async () => {
    const { output, text } = capture();
    const script = scriptConsole('# intro\n\n/suspend 101\n\n# the reason\nNon-payment\n', output, { name: 'walk.txt' });
    expect(script.scripted).toBe(true);
    expect(await script.read('> ', 'command')).toBe('/suspend 101');
    expect(script.position()).toBe('walk.txt:3');
    expect(await script.read('  Service id [101]: ', 'answer')).toBe('');
    expect(await script.read('  Reason (1-4): ', 'answer')).toBe('Non-payment');
    expect(script.position()).toBe('walk.txt:6');
    // The newline that ends the file is no Enter.
    expect(await script.read('  Note: ', 'answer')).toBeUndefined();
    expect(text()).toBe('> /suspend 101\n  Service id [101]: \n  Reason (1-4): Non-payment\n');
    expect(script.columns()).toBeUndefined();
  });
});
