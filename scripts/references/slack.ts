/**
 * The java-slack-sdk's Web API response samples are the union of every field Slack's SDK team has
 * observed, with every block and attachment variant inside their arrays (chat.postMessage alone is
 * 2 MB). The fake Slack's shape test compares object keys and never looks inside arrays, so the
 * fixture keeps each sample's object tree with its arrays emptied.
 */
export function emptyArrays(value: unknown): unknown {
  if (Array.isArray(value)) return [];
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, emptyArrays(child)]));
}
