import { InvalidHeaderError } from './errors.ts';

/** At most this many custom headers per subscription, each value this long: they go out on every attempt. */
export const MAX_CUSTOM_HEADERS = 20;
export const MAX_HEADER_VALUE_CHARS = 1024;

/** An HTTP field name (RFC 9110 token), kept short. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;
/** Visible ASCII and spaces, no leading or trailing space: nothing a receiver could split into a second header. */
const VALUE = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/;

/**
 * Names the sender owns or that would change what the request means: the signature set, the
 * framing and connection (hop-by-hop) headers, and the body's type and length.
 */
const RESERVED = new Set([
  'host',
  'content-length',
  'content-type',
  'content-encoding',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'upgrade',
  'expect',
]);

/**
 * Checks a subscription's custom headers and returns them with lower-cased names (HTTP names
 * are case-insensitive; two spellings of one name would be sent twice). InvalidHeaderError
 * names the header and the rule.
 */
export function checkCustomHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const entries = Object.entries(headers);
  if (entries.length > MAX_CUSTOM_HEADERS) throw new InvalidHeaderError('', `at most ${MAX_CUSTOM_HEADERS} headers`);
  const checked: Record<string, string> = {};
  for (const [name, value] of entries) {
    const lower = name.toLowerCase();
    if (!TOKEN.test(name))
      throw new InvalidHeaderError(
        name,
        "is not an HTTP header name (letters, digits and !#$%&'*+.^_`|~-, at most 64)",
      );
    if (lower.startsWith('webhook-'))
      throw new InvalidHeaderError(name, 'webhook-* headers are the signature set, which Hookline sets');
    if (RESERVED.has(lower))
      throw new InvalidHeaderError(name, 'is set by Hookline or controls the connection, so it cannot be overridden');
    if (lower in checked) throw new InvalidHeaderError(name, 'is given twice (header names are case-insensitive)');
    if (typeof value !== 'string' || value.length > MAX_HEADER_VALUE_CHARS || !VALUE.test(value)) {
      throw new InvalidHeaderError(
        name,
        `must be 1 to ${MAX_HEADER_VALUE_CHARS} visible ASCII characters (spaces inside only)`,
      );
    }
    checked[lower] = value;
  }
  return checked;
}
