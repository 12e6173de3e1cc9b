/** The options a typeahead field offers, from the index's suggestions: the typed text first, a hint on a slow UISP. */
import { describe, expect, it } from 'vitest';
import { SLOW_HINT, typeaheadOptions } from '../../src/views/typeahead.js';
import { expectValidOptions } from './block-kit.js';

const kevin = { label: '#1008 Kevin Singh', value: '1008', detail: '19 Parika Backdam, Parika' };

describe('typeahead options', () => {
  it('offers the typed text first, then the suggestions with what tells them apart', () => {
    const answer = typeaheadOptions({ query: 'kevin', suggestions: [kevin], complete: true });
    expectValidOptions(answer);
    expect(answer.options).toEqual([
      { text: { type: 'plain_text', text: 'Use “kevin”', emoji: true }, value: 'kevin' },
      { text: { type: 'plain_text', text: '#1008 Kevin Singh', emoji: true }, value: '1008', description: { type: 'plain_text', text: '19 Parika Backdam, Parika', emoji: true } },
    ]);
  });

  it('does not repeat typed text that is a suggestion’s value', () => {
    expect(typeaheadOptions({ query: '1008', suggestions: [kevin], complete: true }).options.map((o) => o.value)).toEqual(['1008']);
  });

  it('on a slow UISP says the list may be incomplete, keeping the typed text pickable', () => {
    const answer = typeaheadOptions({ query: 'kev', suggestions: [], complete: false });
    expectValidOptions(answer);
    expect(answer.options).toEqual([{ text: { type: 'plain_text', text: `“kev” (${SLOW_HINT})`, emoji: true }, value: 'kev' }]);
  });

  it('stays within Slack’s limits whatever is typed or found', () => {
    const many = Array.from({ length: 150 }, (_, i) => ({ label: `client ${i} ${'x'.repeat(100)}`, value: String(i) }));
    const answer = typeaheadOptions({ query: 'y'.repeat(400), suggestions: many, complete: true });
    expectValidOptions(answer);
    expect(answer.options[0]!.value).toHaveLength(150);
  });
});
