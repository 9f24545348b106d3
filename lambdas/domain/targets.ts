import { isIPv4, isIPv6 } from 'node:net';
import { ForbiddenTargetError } from './errors.ts';
import { DEFAULT_PORT_RANGES, formatPorts, isAllowedPort, targetPort, type PortRanges } from './target-ports.ts';

/** IPv4 ranges a cloud deployment must never call: loopback, private, link-local (metadata), CGNAT, multicast. */
const BLOCKED_V4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

function v4ToInt(ip: string): number {
  return ip.split('.').reduce((acc, part) => (acc << 8) + Number(part), 0) >>> 0;
}

function inV4Range(ip: string, [base, bits]: readonly [string, number]): boolean {
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return (v4ToInt(ip) & mask) === (v4ToInt(base) & mask);
}

/** Expands an IPv6 literal to 8 groups of 16 bits (handles `::` and an embedded IPv4 tail). */
function v6Groups(ip: string): number[] {
  let text = ip
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .split('%')[0]!;
  const v4Tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4Tail) {
    const n = v4ToInt(v4Tail[1]!);
    text = `${text.slice(0, -v4Tail[1]!.length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (s: string) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const h = parse(head);
  const t = tail === undefined ? [] : parse(tail);
  const fill = tail === undefined ? [] : new Array(8 - h.length - t.length).fill(0);
  return [...h, ...fill, ...t];
}

const v4Of = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/**
 * Whether a resolved address is one a cloud deployment must refuse (SSRF protection).
 *
 * IPv6 transition ranges either carry an IPv4 address that is judged like any other (IPv4-mapped
 * `::ffff:0:0/96`, and the well-known NAT64 prefix `64:ff9b::/96`, which an IPv6-only network
 * uses to reach public IPv4 hosts, so a public inner address passes), or are refused whole:
 * IPv4-compatible `::/96` and IPv4-translated `::ffff:0:0:0/96` (both obsolete), 6to4
 * `2002::/16` (deprecated, RFC 7526; where the packet goes depends on relays we cannot see, so
 * even a public embedded address is refused), Teredo `2001::/32` (a tunnel whose embedded
 * addresses are obfuscated), and the rest of `64:ff9b::/32`, local-use `64:ff9b:1::/48`
 * included (an operator-defined translation that can lead anywhere, RFC 8215).
 */
export function isForbiddenAddress(ip: string): boolean {
  if (isIPv4(ip)) return BLOCKED_V4.some((range) => inV4Range(ip, range));
  if (!isIPv6(ip.replace(/^\[|\]$/g, ''))) return true;
  const g = v6Groups(ip);
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return isForbiddenAddress(v4Of(g[6]!, g[7]!)); // IPv4-mapped
  if (zeros(0, 6)) return true; // ::/96 IPv4-compatible, with :: and ::1
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return true; // ::ffff:0:0:0/96 IPv4-translated
  const [first, second] = [g[0]!, g[1]!];
  if (first === 0x64 && second === 0xff9b) return zeros(2, 6) ? isForbiddenAddress(v4Of(g[6]!, g[7]!)) : true; // NAT64
  if (first === 0x2002) return true; // 6to4
  if (first === 0x2001 && second === 0) return true; // Teredo
  if ((first & 0xfe00) === 0xfc00) return true; // fc00::/7 unique-local (AWS metadata fd00:ec2::254 included)
  if ((first & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((first & 0xff00) === 0xff00) return true; // multicast
  return false;
}

const FORBIDDEN_HOSTNAMES = [/^localhost$/i, /\.localhost$/i, /^metadata\.google\.internal$/i, /\.internal$/i];

export interface TargetRules {
  /** Local development lets receivers on localhost and private networks through. */
  readonly allowPrivate: boolean;
  /** Destination ports a URL may name (HOOKLINE_ALLOWED_PORTS); default DEFAULT_ALLOWED_PORTS. Checked in every mode. */
  readonly allowedPorts?: PortRanges;
}

/**
 * Checks a subscription URL before it is stored: http/https only, no credentials, no
 * fragment, at most 2048 characters, an allowed port, and (in cloud mode) no private host
 * literal. Hostnames are checked again on the resolved address at every send, which also
 * defeats DNS rebinding. The URL returned is the WHATWG-normalised one: its `href` is what is
 * stored and sent, so the rules judged exactly what will be called.
 */
export function checkTargetUrl(raw: string, rules: TargetRules): URL {
  if (raw.length > 2048) throw new ForbiddenTargetError('must be at most 2048 characters', raw.slice(0, 64));
  if (/[\s\u0000-\u001f\u007f]/.test(raw))
    throw new ForbiddenTargetError('must not contain whitespace or control characters', raw);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ForbiddenTargetError('is not a valid absolute URL', raw);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ForbiddenTargetError(`scheme must be http or https, not ${url.protocol.replace(':', '')}`, raw);
  }
  if (url.username || url.password) throw new ForbiddenTargetError('must not carry credentials', raw);
  if (url.hash) throw new ForbiddenTargetError('must not have a fragment', raw);
  const ports = rules.allowedPorts ?? DEFAULT_PORT_RANGES;
  const port = targetPort(url);
  if (!isAllowedPort(port, ports))
    throw new ForbiddenTargetError(`port ${port} is not allowed (allowed ports: ${formatPorts(ports)})`, raw);
  if (!rules.allowPrivate) {
    // A trailing dot names the same host (fully qualified): "localhost." is localhost.
    const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
    if (FORBIDDEN_HOSTNAMES.some((re) => re.test(host)))
      throw new ForbiddenTargetError(`host ${host} is not allowed`, raw);
    if ((isIPv4(host) || isIPv6(host)) && isForbiddenAddress(host)) {
      throw new ForbiddenTargetError(`host ${host} is a loopback, private, link-local or metadata address`, raw);
    }
  }
  return url;
}
