/** Markdown as the rendered regions write it; Prettier pads the tables afterwards. */

export const code = (text: string): string => `\`${text}\``;

/** A table: its header, then one row per entry (a `|` in a cell is escaped). */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]) {
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
