/**
 * Rows as an aligned table: a header line, each column as wide as its widest cell (counted in characters as a
 * terminal shows them, so "→" and "…" take one), two spaces between columns, no trailing spaces.
 */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...all.map((row) => width(row[column] ?? ''))));
  return all
    .map((row) =>
      header
        .map((_, column) => {
          const cell = row[column] ?? '';
          return column === header.length - 1 ? cell : cell + ' '.repeat((widths[column] ?? 0) - width(cell));
        })
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function width(text: string): number {
  return [...text].length;
}
