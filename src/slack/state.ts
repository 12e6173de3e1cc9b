/** Reads a submitted view's input values as one string per block (trimmed; absent when empty). */
import { readId } from '../services/input/grammar.js';

export interface ViewStateValue {
  type?: string;
  value?: string | null;
  selected_option?: { value: string } | null;
}

export type InputValues = Record<string, string | undefined>;

export function readInputs(values: Record<string, Record<string, ViewStateValue>> | undefined): InputValues {
  const inputs: InputValues = {};
  for (const [blockId, actions] of Object.entries(values ?? {})) {
    for (const element of Object.values(actions)) {
      const raw = element.selected_option?.value ?? element.value ?? undefined;
      const trimmed = raw?.trim();
      if (trimmed) inputs[blockId] = trimmed;
    }
  }
  return inputs;
}

/** An id by the input grammar (`1001` or `#1001`), or undefined when the text is not one; for values SubOps itself put in a select. */
export function parseId(text: string | undefined): number | undefined {
  const read = readId(text, 'Id');
  return read.ok ? read.value : undefined;
}
