/**
 * The one escaping function for mrkdwn: every string from UISP or from a Slack user goes through
 * `escapeMrkdwn` before a view places it in mrkdwn (text objects and a message's notification text),
 * so it is shown as text and never becomes markup under SubOps' name:
 *
 * - `&`, `<`, `>` become entities, as Slack documents: a CPE named `<!channel> <https://evil|Verify>`
 *   pings nobody and links nowhere;
 * - line breaks (`\r`, `\n`, U+2028, U+2029 and the other vertical separators) become one space: a
 *   name cannot start a line of its own ("• Nothing is suspended. Safe to approve") or a quote;
 * - `*`, `_`, `~` and backticks that could open or close bold, italics, strikethrough or code are
 *   replaced by look-alikes, and so is a `>` that starts the value (a quote at a line start);
 * - `@channel`, `@here` and `@everyone` get a look-alike `@`: Slack parses "certain mentions" on its own
 *   where `verbatim` is not set (a message's notification text has no such flag), so a bare one is not
 *   left to chance.
 *
 * Slack has no backslash escape. A zero-width space is what tools insert to make Slack format in the
 * middle of a word (it reads as a word boundary), so it cannot be trusted to stop formatting; look-alikes
 * can: Slack cannot format a character it does not know as a marker. Slack formats only at word boundaries,
 * so a marker between two ASCII letters or digits (`LBE_5AC_Gen2`, `snake_case`) formats nothing and is
 * kept as it is, copyable; names without markers (O'Brien, "Smith & Sons", accents, hyphens) are
 * unchanged apart from `&amp;`, which Slack shows as `&`.
 */

/** Line breaks Slack or a reader would honour: CR, LF, VT, FF, NEL, U+2028, U+2029, any run of them. */
const LINE_BREAKS = /[\n\v\f\r\u0085\u2028\u2029]+/g;

/** Shown instead of formatting markers: ∗ (asterisk operator), ˍ (modifier low macron), ∼ (tilde operator), ˋ (modifier grave). */
const LOOK_ALIKE: Record<string, string> = { '*': '∗', _: 'ˍ', '~': '∼', '`': 'ˋ' };

const WORD_CHARACTER = /[A-Za-z0-9]/;

/** One line: every run of line breaks becomes a space. Also used for plain_text, which Slack shows as given. */
export function oneLine(text: string): string {
  return text.replace(LINE_BREAKS, ' ');
}

/** `&`, `<`, `>` as entities, alone: for a link's target (src/views/format.ts `link`), where look-alikes would break the URL. Text goes through `escapeMrkdwn`. */
export function escapeEntities(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A marker stays only inside a word (both neighbours ASCII letters or digits); backticks never stay. */
function neutraliseMarkers(text: string): string {
  return text.replace(/[*_~`]/g, (marker, at: number) => {
    const inWord = marker !== '`' && WORD_CHARACTER.test(text.charAt(at - 1)) && WORD_CHARACTER.test(text.charAt(at + 1));
    return inWord ? marker : LOOK_ALIKE[marker]!;
  });
}

export function escapeMrkdwn(text: string): string {
  const line = neutraliseMarkers(oneLine(text))
    .replace(/^(\s*)>/, '$1›')
    .replace(/@(channel|here|everyone)\b/gi, '＠$1');
  return escapeEntities(line);
}
