/**
 * Text from UISP (client and site names, notes, device names, UISP's own messages) can hold any
 * character. In a terminal, control characters move the cursor, recolour, clear the screen or forge
 * lines, and bidirectional overrides reorder what is read; so human output shows them escaped
 * (`\n`, `\x1b`, `\u202e`). Machine output (--json, --csv) stays exact.
 */
const UNSAFE = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (char) => {
    const code = char.codePointAt(0)!;
    return NAMED[char] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
  });
}
