/**
 * Block Kit to terminal text, the way a person reads it in Slack: mentions and channel links as names,
 * links as `label (url)`, entities decoded, bold/italic/strike markers dropped, emoji codes the app
 * uses as emoji, buttons as `[Retry]`. Pure functions: the playground's chat prints what they return.
 *
 * Entities are decoded only for display: an escaped `&lt;!channel&gt;` shows as the literal text
 * `<!channel>`, exactly what Slack shows, whereas a real `<!channel>` token shows as the ping `@channel`.
 */
import { isRecord } from './fake-slack-api.js';

export interface DisplayNames {
  user(id: string): string | undefined;
  channel(id: string): string | undefined;
  /** How to show a link instead of `label (url)`, e.g. one into a simulator no browser can open; undefined keeps that. */
  link?(url: string, label: string | undefined): string | undefined;
}

type Json = Record<string, unknown>;

const EMOJI: Record<string, string> = {
  arrow_forward: '▶️',
  bust_in_silhouette: '👤',
  double_vertical_bar: '⏸️',
  file_cabinet: '🗄️',
  fast_forward: '⏩',
  hourglass_flowing_sand: '⏳',
  information_source: 'ℹ️',
  large_green_circle: '🟢',
  memo: '📝',
  moneybag: '💰',
  no_entry: '⛔',
  page_facing_up: '📄',
  raised_hand: '✋',
  red_circle: '🔴',
  repeat: '🔁',
  rocket: '🚀',
  warning: '⚠️',
  white_circle: '⚪',
  white_check_mark: '✅',
  x: '❌',
};

// Stand-ins for already-rendered `<…>` tokens while the text around them is formatted; U+E000 is a
// private-use character that no Slack text carries.
const TOKEN_MARK = '\uE000';
const TOKEN_STAND_IN = new RegExp(`${TOKEN_MARK}(\\d+)${TOKEN_MARK}`, 'g');

/** One mrkdwn string as display text. */
export function renderMrkdwn(text: string, names: DisplayNames): string {
  const tokens: string[] = [];
  const withStandIns = text.replace(/<([^<>\n]*)>/g, (_, inner: string) => {
    tokens.push(renderToken(inner, names));
    return `${TOKEN_MARK}${tokens.length - 1}${TOKEN_MARK}`;
  });
  const formatted = renderEmoji(decodeEntities(stripEmphasis(withStandIns)));
  return formatted.replace(TOKEN_STAND_IN, (_, index: string) => tokens[Number(index)] ?? '');
}

/** A text object: mrkdwn is rendered, plain_text is shown as written (Slack only turns its emoji codes into emoji). */
export function renderTextObject(value: unknown, names: DisplayNames): string {
  if (!isRecord(value) || typeof value.text !== 'string') return '';
  return value.type === 'mrkdwn' ? renderMrkdwn(value.text, names) : renderEmoji(value.text);
}

/** A message as the channel shows it: its blocks, or its `text` when it has none. */
export function renderMessage(message: { text?: unknown; blocks?: unknown }, names: DisplayNames): string[] {
  if (Array.isArray(message.blocks) && message.blocks.length > 0) return message.blocks.filter(isRecord).flatMap((block) => renderBlock(block, names));
  return typeof message.text === 'string' ? renderMrkdwn(message.text, names).split('\n') : [];
}

const DIVIDER = '───';

/** One block as display lines. */
export function renderBlock(block: Json, names: DisplayNames): string[] {
  switch (block.type) {
    case 'section':
      return renderSection(block, names);
    case 'header':
      return [renderTextObject(block.text, names)];
    case 'context':
      return [elementsOf(block).map((element) => renderContextElement(element, names)).filter(Boolean).join('  ')];
    case 'divider':
      return [DIVIDER];
    case 'actions':
      return [elementsOf(block).map((element) => renderInteractive(element, names)).join(' ')];
    case 'image':
      return [`[image: ${typeof block.alt_text === 'string' ? block.alt_text : ''}]`];
    default:
      return [`[${String(block.type)} block]`];
  }
}

function renderSection(block: Json, names: DisplayNames): string[] {
  const lines = block.text === undefined ? [] : renderTextObject(block.text, names).split('\n');
  if (Array.isArray(block.fields)) lines.push(...block.fields.map((field) => renderField(field, names)));
  if (isRecord(block.accessory)) {
    const accessory = renderInteractive(block.accessory, names);
    if (lines.length === 0) lines.push(accessory);
    else lines[lines.length - 1] = `${lines.at(-1)}  ${accessory}`;
  }
  return lines;
}

/** Section fields are laid out in two columns in Slack; `*Label*\nvalue` reads best here as `Label: value`. */
function renderField(field: unknown, names: DisplayNames): string {
  const text = renderTextObject(field, names);
  const newline = text.indexOf('\n');
  return newline === -1 ? text : `${text.slice(0, newline)}: ${text.slice(newline + 1).replace(/\n/g, ' ')}`;
}

function renderContextElement(element: Json, names: DisplayNames): string {
  return element.type === 'image' ? `[${typeof element.alt_text === 'string' ? element.alt_text : 'image'}]` : renderTextObject(element, names);
}

/** Buttons as `[Text]`, selects and other controls by their placeholder. */
function renderInteractive(element: Json, names: DisplayNames): string {
  if (element.type === 'button') return `[${renderTextObject(element.text, names)}]`;
  const placeholder = renderTextObject(element.placeholder, names);
  return `[${placeholder || String(element.type)} ▾]`;
}

/** The inside of one `<…>` token: a mention, a channel, a special mention, a date or a link. */
function renderToken(inner: string, names: DisplayNames): string {
  const bar = inner.indexOf('|');
  const target = bar === -1 ? inner : inner.slice(0, bar);
  const label = bar === -1 ? undefined : decodeEntities(inner.slice(bar + 1));
  if (target.startsWith('@')) return `@${names.user(target.slice(1)) ?? label ?? target.slice(1)}`;
  if (target.startsWith('#')) return `#${names.channel(target.slice(1)) ?? label ?? target.slice(1)}`;
  if (target.startsWith('!')) return renderSpecial(target.slice(1), label);
  const url = decodeEntities(target);
  const shown = names.link?.(url, label);
  if (shown !== undefined) return shown;
  return label === undefined || label === url ? url : `${label} (${url})`;
}

/** `<!channel>` pings everyone; `<!subteam^S1|@ops>` a group; `<!date^…|fallback>` shows the fallback. */
function renderSpecial(name: string, label: string | undefined): string {
  if (name === 'channel' || name === 'here' || name === 'everyone') return `@${name}`;
  if (name.startsWith('subteam^')) return label ?? `@${name.slice('subteam^'.length)}`;
  return label ?? `@${name}`;
}

/** Drops mrkdwn's *bold*, _italic_ and ~strike~ markers where Slack would honour them (word edges). */
function stripEmphasis(text: string): string {
  return ['*', '_', '~'].reduce((current, marker) => {
    const m = `\\${marker}`;
    const pattern = new RegExp(`(^|[^\\w${m}])${m}(?=\\S)([^${m}\\n]*?\\S)${m}(?=$|[^\\w${m}])`, 'gm');
    return current.replace(pattern, '$1$2');
  }, text);
}

function decodeEntities(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

function renderEmoji(text: string): string {
  return text.replace(/:([a-z][a-z0-9_+-]*):/g, (code, name: string) => EMOJI[name] ?? code);
}

function elementsOf(block: Json): Json[] {
  return Array.isArray(block.elements) ? block.elements.filter(isRecord) : [];
}
