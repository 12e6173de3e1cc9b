/** The limit helpers and the one escaping function. */
import { describe, expect, it } from 'vitest';
import { escapeMrkdwn } from '../../src/slack/escape.js';
import { capBlocks, message, modal, section, sections } from '../../src/views/kit.js';
import { clip, clipMrkdwn, LIMITS } from '../../src/views/limits.js';

describe('escapeMrkdwn', () => {
  it('escapes the three characters Slack parses, & first', () => {
    expect(escapeMrkdwn('<!channel> & <@U1> &amp;')).toBe('&lt;!channel&gt; &amp; &lt;@U1&gt; &amp;amp;');
  });
});

describe('clipping', () => {
  it('clip keeps short text and cuts long text to the limit with an ellipsis', () => {
    expect(clip('short', 10)).toBe('short');
    expect(clip('x'.repeat(30), 24)).toHaveLength(24);
    expect(clip('x'.repeat(30), 24).endsWith('…')).toBe(true);
  });

  it('clipMrkdwn never leaves half an entity or half a <…> token', () => {
    const entity = clipMrkdwn(`${'a'.repeat(8)}&amp;bbbb`, 12);
    expect(entity).toBe(`${'a'.repeat(8)}…`);
    const token = clipMrkdwn(`see <https://example.net/very/long|label> now`, 20);
    expect(token).toBe('see …');
    expect(clipMrkdwn('x'.repeat(5000), LIMITS.text)).toHaveLength(LIMITS.text);
  });
});

describe('block lists', () => {
  it('capBlocks keeps max - 1 blocks and says how many were left out', () => {
    const blocks = Array.from({ length: 60 }, (_, i) => section(`row ${i}`));
    const capped = capBlocks(blocks, 50);
    expect(capped).toHaveLength(50);
    expect(JSON.stringify(capped.at(-1))).toContain('…and 11 more not shown.');
    expect(capBlocks(blocks.slice(0, 3), 50)).toHaveLength(3);
  });

  it('message() caps at 50 blocks and modal() at 100 with a 24-character title', () => {
    const many = Array.from({ length: 150 }, (_, i) => section(`row ${i}`));
    expect(message('t', many).blocks).toHaveLength(LIMITS.messageBlocks);
    const view = modal({ callbackId: 'x', title: 'A title far longer than twenty-four characters', blocks: many });
    expect(view.blocks).toHaveLength(LIMITS.modalBlocks);
    expect(view.title.text).toHaveLength(LIMITS.viewTitle);
  });

  it('sections() spreads lines over sections of at most 3000 characters without cutting any line', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i} ${'x'.repeat(90)}`);
    const blocks = sections('*Heading*', lines);
    expect(blocks.length).toBeGreaterThan(3);
    const texts = blocks.map((b) => b.text!.text);
    for (const text of texts) expect(text.length).toBeLessThanOrEqual(LIMITS.text);
    expect(texts.join('\n')).toBe(['*Heading*', ...lines].join('\n'));
  });

  it('modal() refuses private_metadata over 3000 characters rather than corrupting it', () => {
    expect(() => modal({ callbackId: 'x', title: 't', blocks: [section('x')], privateMetadata: 'x'.repeat(3001) })).toThrow(RangeError);
  });
});
