/** Transcript layout: labels, gutters and wrapping that keeps both. */
import { describe, expect, it } from 'vitest';
import { guttered, labelled, wrap } from '../../src/playground/layout.js';

describe('layout', () => {
  it('puts the label before the first line and lines the rest up under the text', () => {
    expect(labelled('#support  SubOps: ', ['first', 'second'])).toEqual(['#support  SubOps: first', '                  second']);
    expect(labelled('(only you) SubOps: ', [])).toEqual(['(only you) SubOps:']);
  });

  it('wraps at spaces within the width, keeping each line’s indentation and the label’s', () => {
    expect(wrap('  one two three four five six', 20)).toEqual(['  one two three four', '  five six']);
    expect(labelled('  ↳ SubOps: ', ['alpha beta gamma delta epsilon'], 32)).toEqual(['  ↳ SubOps: alpha beta gamma', '            delta epsilon']);
    expect(guttered('│ ', ['Device [10.20.1.88] and a hint that is long'], 30)).toEqual(['│ Device [10.20.1.88] and a', '│ hint that is long']);
  });

  it('leaves lines alone without a width, in very narrow terminals, and never splits a word', () => {
    expect(wrap('a b c', undefined)).toEqual(['a b c']);
    expect(wrap('a '.repeat(20), 10)).toEqual(['a '.repeat(20)]);
    expect(wrap('see http://127.0.0.1:43167/crm/client/1010 now', 24)).toEqual(['see', 'http://127.0.0.1:43167/crm/client/1010', 'now']);
  });
});
