import type { InputRefusal } from './errors.ts';

/**
 * A scanner over JSON text for values that must reach a receiver exactly as the producer wrote
 * them. JSON.parse would silently rewrite some valid JSON (1e400 becomes Infinity, then null;
 * 9007199254740993 becomes …992; of two equal keys the last wins) and throws on very deep
 * nesting, so the text itself is checked, and the source slice of each member of a root object
 * is reported so callers can pass a value on without re-serialising it.
 *
 * One pass, no recursion (an explicit stack), so any input costs time linear in its length and
 * never overflows the call stack.
 */

/** How deep containers may nest, counted from the value checked (so `[[1]]` is 2). */
export const MAX_JSON_NESTING = 64;

/** Integers beyond this magnitude do not survive a round trip through an IEEE double (2^53). */
const MAX_EXACT_INTEGER_DIGITS = '9007199254740992';

/** Where one value sits in the text: `text.slice(start, end)` is its source. */
export interface JsonSpan {
  readonly start: number;
  readonly end: number;
}

/**
 * A refused text: `syntax` when it is not JSON at all, `value` when it is JSON that would not
 * reach a receiver as written; `path` names the value (`payload.items[3].price`, '' for the
 * root) and `offset` is where in the text the problem starts.
 */
export interface JsonTextRefusal extends InputRefusal {
  readonly kind: 'syntax' | 'value';
  readonly offset: number;
}

export type JsonTextScan =
  /** `members`: the root object's values by key; `elements`: the root array's values in order (each empty for the other kind of root). */
  | { readonly ok: true; readonly members: ReadonlyMap<string, JsonSpan>; readonly elements: readonly JsonSpan[] }
  | { readonly ok: false; readonly refusal: JsonTextRefusal };

interface Frame {
  readonly kind: 'object' | 'array';
  /** Decoded keys seen so far (objects only). */
  readonly keys: Set<string>;
  /** The current member's key, or the current element's index. */
  at: string | number;
  /** Where the container opened, so its source span is known when it closes. */
  readonly start: number;
}

/** Thrown inside the scan only, and turned into its result: never leaves this module. */
class Refused {
  constructor(readonly refusal: JsonTextRefusal) {}
}

const NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** A key in a reported path is cut to this many characters, so one huge key cannot make a huge message. */
const PATH_KEY_CHARS = 64;

function pathOf(stack: readonly Frame[]): string {
  let path = '';
  for (const frame of stack) {
    if (typeof frame.at === 'number') path += `[${frame.at}]`;
    else {
      const key = frame.at.length > PATH_KEY_CHARS ? `${frame.at.slice(0, PATH_KEY_CHARS)}…` : frame.at;
      path += NAME.test(frame.at) ? `${path === '' ? '' : '.'}${key}` : `[${JSON.stringify(key)}]`;
    }
  }
  return path;
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

export interface JsonTextLimits {
  /** How deep containers may nest (default MAX_JSON_NESTING). */
  readonly maxNesting?: number;
  /**
   * Levels of the text that do not count against `maxNesting`: 1 for a request body, whose
   * object only holds the fields, each of which may nest `maxNesting` deep.
   */
  readonly outerLevels?: number;
}

/**
 * Checks `text` is one JSON value with finite numbers, integer literals within ±2^53, no
 * duplicate keys in any object, and containers nested at most `maxNesting` deep.
 */
export function scanJsonText(
  text: string,
  { maxNesting = MAX_JSON_NESTING, outerLevels = 0 }: JsonTextLimits = {},
): JsonTextScan {
  const stack: Frame[] = [];
  const members = new Map<string, JsonSpan>();
  const elements: JsonSpan[] = [];
  let i = 0;

  const syntax = (what: string): never => {
    const found = i >= text.length ? 'the end of the text' : `${JSON.stringify(text[i])}`;
    throw new Refused({
      kind: 'syntax',
      path: pathOf(stack),
      rule: `is not valid JSON: ${what}, found ${found} at character ${i}`,
      offset: i,
    });
  };
  const refuse = (rule: string, offset: number): never => {
    throw new Refused({ kind: 'value', path: pathOf(stack), rule, offset });
  };
  const skipWhitespace = () => {
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else return;
    }
  };
  const expect = (c: number, what: string) => {
    if (text.charCodeAt(i) !== c) syntax(what);
    i++;
  };

  /** Scans a string literal starting at `i`; returns its decoded value only when asked (keys). */
  const scanString = (decode: boolean): string => {
    const start = i;
    expect(0x22, 'expected a string');
    let escaped = false;
    for (;;) {
      if (i >= text.length) syntax('unterminated string');
      const c = text.charCodeAt(i);
      if (c === 0x22) break;
      if (c < 0x20) syntax('control characters must be escaped in a string');
      if (c === 0x5c) {
        escaped = true;
        const e = text.charCodeAt(i + 1);
        if (e === 0x75) {
          for (let k = 2; k < 6; k++) {
            if (!isHex(text.charCodeAt(i + k))) {
              i += k;
              syntax('\\u must be followed by four hex digits');
            }
          }
          i += 6;
          continue;
        }
        // " \ / b f n r t
        if (
          e === 0x22 ||
          e === 0x5c ||
          e === 0x2f ||
          e === 0x62 ||
          e === 0x66 ||
          e === 0x6e ||
          e === 0x72 ||
          e === 0x74
        ) {
          i += 2;
          continue;
        }
        i++;
        syntax('unknown escape');
      }
      i++;
    }
    i++;
    if (!decode) return '';
    // A validated string literal: JSON.parse decodes it exactly, in linear time.
    return escaped ? (JSON.parse(text.slice(start, i)) as string) : text.slice(start + 1, i - 1);
  };

  const digits = (what: string) => {
    if (!isDigit(text.charCodeAt(i))) syntax(what);
    while (isDigit(text.charCodeAt(i))) i++;
  };

  const scanNumber = () => {
    const start = i;
    if (text.charCodeAt(i) === 0x2d) i++;
    const intStart = i;
    if (text.charCodeAt(i) === 0x30) i++;
    else digits('expected a digit');
    const intEnd = i;
    let integer = true;
    if (text.charCodeAt(i) === 0x2e) {
      i++;
      integer = false;
      digits('expected a digit after the decimal point');
    }
    if (text.charCodeAt(i) === 0x65 || text.charCodeAt(i) === 0x45) {
      i++;
      integer = false;
      if (text.charCodeAt(i) === 0x2b || text.charCodeAt(i) === 0x2d) i++;
      digits('expected a digit in the exponent');
    }
    if (integer) {
      // On the literal text, since the parsed double has already lost the digits.
      const length = intEnd - intStart;
      if (
        length > MAX_EXACT_INTEGER_DIGITS.length ||
        (length === MAX_EXACT_INTEGER_DIGITS.length && text.slice(intStart, intEnd) > MAX_EXACT_INTEGER_DIGITS)
      ) {
        refuse('is an integer beyond ±2^53, which JSON parsers round: send it as a string', start);
      }
    } else if (!Number.isFinite(Number(text.slice(start, i)))) {
      refuse(
        'is not a finite number: it is beyond the range of a double, which JSON parsers turn into Infinity or null',
        start,
      );
    }
  };

  const scanLiteral = (word: string) => {
    if (!text.startsWith(word, i)) syntax('expected a value');
    i += word.length;
  };

  try {
    // Each turn scans one value (opening a container counts as starting one), then what follows it.
    for (;;) {
      skipWhitespace();
      let start = i;
      const c = text.charCodeAt(i);
      if (c === 0x7b || c === 0x5b) {
        if (stack.length >= maxNesting + outerLevels) refuse(`nests deeper than ${maxNesting} levels`, i);
        i++;
        const frame: Frame = { kind: c === 0x7b ? 'object' : 'array', keys: new Set(), at: 0, start };
        stack.push(frame);
        skipWhitespace();
        if (text.charCodeAt(i) === (frame.kind === 'array' ? 0x5d : 0x7d)) {
          i++;
          stack.pop();
        } else {
          if (frame.kind === 'object') readKey(frame);
          continue;
        }
      } else if (c === 0x22) scanString(false);
      else if (c === 0x2d || isDigit(c)) scanNumber();
      else if (c === 0x74) scanLiteral('true');
      else if (c === 0x66) scanLiteral('false');
      else if (c === 0x6e) scanLiteral('null');
      else syntax('expected a value');
      // A value spanning [start, i) ended: note it if it is a root member, then close containers until one continues.
      for (;;) {
        const top = stack[stack.length - 1];
        if (!top) {
          skipWhitespace();
          if (i < text.length) syntax('expected the end of the text');
          return { ok: true, members, elements };
        }
        if (stack.length === 1 && top.kind === 'object') members.set(top.at as string, { start, end: i });
        if (stack.length === 1 && top.kind === 'array') elements.push({ start, end: i });
        skipWhitespace();
        const next = text.charCodeAt(i);
        if (next === 0x2c) {
          i++;
          if (top.kind === 'array') top.at = (top.at as number) + 1;
          else readKey(top);
          break;
        }
        if (next !== (top.kind === 'array' ? 0x5d : 0x7d))
          syntax(top.kind === 'array' ? "expected ',' or ']'" : "expected ',' or '}'");
        i++;
        stack.pop();
        // The container just closed is itself a value of the frame below.
        start = top.start;
      }
    }
  } catch (error) {
    if (error instanceof Refused) return { ok: false, refusal: error.refusal };
    throw error;
  }

  function readKey(frame: Frame): void {
    skipWhitespace();
    const keyStart = i;
    if (text.charCodeAt(i) !== 0x22) syntax('expected a key (a string)');
    const key = scanString(true);
    frame.at = key;
    if (frame.keys.has(key)) refuse('is given more than once (a JSON parser would keep only one)', keyStart);
    frame.keys.add(key);
    skipWhitespace();
    expect(0x3a, "expected ':'");
  }
}
