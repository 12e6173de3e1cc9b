/**
 * Laying transcript lines out in a terminal: a label before the first line with the rest aligned
 * under the text, a gutter before every line, and long lines wrapped at word boundaries so the
 * alignment survives a narrow window. Without a width nothing is wrapped (scripts, tests, pipes).
 */

/** The first line after `label`, the others and every wrapped part lined up under the text. */
export function labelled(label: string, lines: string[], width?: number): string[] {
  const indent = ' '.repeat(label.length);
  const parts = (lines.length > 0 ? lines : ['']).flatMap((line) => wrap(line, width === undefined ? undefined : width - label.length));
  return parts.map((part, index) => `${index === 0 ? label : indent}${part}`.trimEnd());
}

/** Every line, and every wrapped part, after the same gutter (a modal's `│ `). */
export function guttered(gutter: string, lines: string[], width?: number): string[] {
  return lines.flatMap((line) => wrap(line, width === undefined ? undefined : width - gutter.length)).map((part) => `${gutter}${part}`.trimEnd());
}

// Narrower than this, wrapping would do more harm than the terminal's own.
const MIN_WRAP_WIDTH = 20;

/** A line cut at spaces into parts no longer than `width`; the parts keep the line's own indentation. */
export function wrap(line: string, width: number | undefined): string[] {
  if (width === undefined || width < MIN_WRAP_WIDTH || line.length <= width) return [line];
  const indent = /^\s*/.exec(line)![0];
  const parts: string[] = [];
  let current = '';
  for (const word of line.slice(indent.length).split(' ')) {
    const longer = current === '' ? word : `${current} ${word}`;
    if (indent.length + longer.length > width && current !== '') {
      parts.push(indent + current);
      current = word;
    } else {
      current = longer;
    }
  }
  return [...parts, indent + current];
}
