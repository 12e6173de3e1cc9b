/** Reads a submitted view's input values as one string per block (trimmed; absent when empty). */
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

/** A positive whole number typed by an agent, or undefined when it is not one. */
export function parseId(text: string | undefined): number | undefined {
  if (!text || !/^\d{1,12}$/.test(text)) return undefined;
  const id = Number(text);
  return id > 0 ? id : undefined;
}
