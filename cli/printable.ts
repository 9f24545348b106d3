/**
 * Characters a terminal acts on instead of showing: C0 controls (ESC starts colour, cursor,
 * title and hyperlink sequences; CR and BS overwrite what is shown; BEL), DEL, C1 controls
 * (U+009B is a one-character CSI), the line and paragraph separators, and the bidirectional
 * marks, embeddings, overrides and isolates (they reorder what is shown, so a URL can read as
 * another). Text from the service (pause reasons, descriptions, URLs, receivers' responses)
 * is attacker-controlled and must reach the terminal with these shown, not obeyed.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_BUT_NEWLINE =
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** What JSON.stringify leaves raw (it escapes C0 itself): DEL, C1, the separators and the bidi controls. */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
const hex = (c: string, digits: number) => c.charCodeAt(0).toString(16).padStart(digits, '0');
const escaped = (c: string) => NAMED[c] ?? (c.charCodeAt(0) <= 0xff ? `\\x${hex(c, 2)}` : `\\u${hex(c, 4)}`);

/**
 * `text` with every character a terminal would interpret written as an escape (`\x1b`, `\r`,
 * `\u202e`), so it is shown and cannot act. `keepNewlines` keeps line feeds: for a block of
 * output whose line breaks the CLI itself wrote. Escaping twice changes nothing.
 */
export function printable(text: string, options: { readonly keepNewlines?: boolean } = {}): string {
  return text.replace(options.keepNewlines ? UNSAFE_BUT_NEWLINE : UNSAFE, escaped);
}

/**
 * A template for one human-readable line: each interpolated value goes through `printable`
 * (line feeds included), so a value from the service cannot forge a line of its own.
 */
export function line(strings: TemplateStringsArray, ...values: readonly unknown[]): string {
  return strings.reduce((out, part, i) => out + part + (i < values.length ? printable(String(values[i])) : ''), '');
}

/**
 * JSON text of `value` for --json: exactly the same JSON (JSON.parse gives back the same
 * value), with the characters JSON.stringify leaves raw written as `\uXXXX` escapes. They can
 * only occur inside strings, where such an escape means the same character.
 */
export function printableJson(value: unknown): string {
  return (JSON.stringify(value, null, 2) ?? 'null').replace(UNSAFE_IN_JSON, (c) => `\\u${hex(c, 4)}`);
}
