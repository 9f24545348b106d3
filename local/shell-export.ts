/**
 * `export NAME=value …` lines for a POSIX shell, as the banner and `npx hookline env` print
 * them to be pasted or `eval`ed. A value is single-quoted unless it is made only of characters
 * no shell treats specially, so pasting one can never run anything.
 */
const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

export function shellQuote(value: string): string {
  return PLAIN.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** One `export` line setting every variable given, in order. */
export function exportLine(variables: readonly (readonly [name: string, value: string])[]): string {
  return `export ${variables.map(([name, value]) => `${name}=${shellQuote(value)}`).join(' ')}`;
}
