/**
 * The options a typeahead field offers (the answer to a block_suggestion): first the typed text itself,
 * so anything that is not in the index can still be submitted as typed (the form checks it as before),
 * then the suggestions. When UISP was too slow or unreadable, the typed-text option says the list may be
 * incomplete.
 */
import type { Suggestions } from '../services/lookups/index.js';
import { clip, LIMITS } from './limits.js';
import { option, plain, type Option } from './kit.js';

export const SLOW_HINT = 'UISP is slow: the list may be incomplete';

export function typeaheadOptions({ query, suggestions, complete }: Suggestions): { options: Option[] } {
  const typed = query.slice(0, LIMITS.optionValue);
  const listed = suggestions.filter((s) => s.value.length <= LIMITS.optionValue);
  const echoed = typed && !listed.some((s) => s.value.toLowerCase() === typed.toLowerCase());
  const options: Option[] = [];
  if (echoed || (typed && !complete)) {
    const text = complete ? `Use “${clip(typed, 60)}”` : `“${clip(typed, 20)}” (${SLOW_HINT})`;
    options.push(option(text, typed));
  }
  for (const s of listed) {
    if (options.some((o) => o.value === s.value)) continue;
    options.push({ ...option(s.label, s.value), ...(s.detail && { description: plain(s.detail, LIMITS.optionText) }) });
  }
  return { options: options.slice(0, LIMITS.selectOptions) };
}
