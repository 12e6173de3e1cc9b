/**
 * Slack's Block Kit and message limits, in one place. Builders clip and page through these so a long
 * client name or a busy payment history never turns into an `invalid_blocks` error at runtime.
 * Sources: docs.slack.dev/reference/block-kit and the TightknitAI/slack-block-kit-validator JSON Schema
 * (vendored in test/fixtures/slack, which the view tests validate against).
 */
export const LIMITS = {
  messageBlocks: 50,
  modalBlocks: 100,
  /** Modal title, submit and close labels. */
  viewTitle: 24,
  text: 3000,
  sectionField: 2000,
  headerText: 150,
  contextElements: 10,
  actionsElements: 25,
  buttonText: 75,
  buttonValue: 2000,
  optionText: 75,
  optionValue: 150,
  selectOptions: 100,
  label: 2000,
  placeholder: 150,
  privateMetadata: 3000,
  /** Top-level `text` of a message (the notification fallback); Slack truncates beyond 40k, we stay far below. */
  messageText: 3000,
} as const;

const ELLIPSIS = '…';

/** Plain text cut to `max` characters, with an ellipsis when anything was cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  return text.slice(0, Math.max(0, max - ELLIPSIS.length)) + ELLIPSIS;
}

/**
 * mrkdwn cut to `max` characters without splitting an entity (`&amp;`) or a `<…>` token (mention,
 * link): half a token would render as raw markup or, worse, as a different token.
 */
export function clipMrkdwn(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, Math.max(0, max - ELLIPSIS.length));
  const openToken = cut.lastIndexOf('<');
  if (openToken > cut.lastIndexOf('>')) cut = cut.slice(0, openToken);
  cut = cut.replace(/&[a-z]*$/, '');
  return cut + ELLIPSIS;
}
