import { InvalidPolicyError } from './errors.ts';

/** The destination ports subscriptions may use, as inclusive [first, last] ranges. */
export type PortRanges = readonly (readonly [number, number])[];

/**
 * The web ports and every unprivileged one. Below 1024 that keeps out SSH, SMTP, DNS, LDAP,
 * SMB and the like, which a webhook never needs; a receiver on a high port (a local receiver on
 * a random port among them) still works. HOOKLINE_ALLOWED_PORTS changes it per deployment.
 */
export const DEFAULT_ALLOWED_PORTS = '80,443,1024-65535';

const RULE = 'must be a comma-separated list of ports and ranges from 1 to 65535, e.g. 80,443,1024-65535';

/** Parses `80,443,1024-65535`; anything else is an InvalidPolicyError of `allowedPorts` that quotes the text. */
export function parseAllowedPorts(text: string): PortRanges {
  const refuse = () => new InvalidPolicyError('allowedPorts', '', `${RULE}, not '${text}'`);
  const ranges: (readonly [number, number])[] = [];
  for (const part of text.split(',')) {
    const match = /^\s*(\d{1,5})(?:\s*-\s*(\d{1,5}))?\s*$/.exec(part);
    if (!match) throw refuse();
    const first = Number(match[1]);
    const last = match[2] === undefined ? first : Number(match[2]);
    if (first < 1 || last > 65_535 || first > last) throw refuse();
    ranges.push(Object.freeze([first, last] as const));
  }
  return Object.freeze(ranges);
}

export const DEFAULT_PORT_RANGES: PortRanges = parseAllowedPorts(DEFAULT_ALLOWED_PORTS);

export function isAllowedPort(port: number, ranges: PortRanges): boolean {
  return ranges.some(([first, last]) => port >= first && port <= last);
}

/** The port a URL connects to: the one written in it, else its scheme's default. */
export function targetPort(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/** The ranges as a setting would write them (for messages). */
export function formatPorts(ranges: PortRanges): string {
  return ranges.map(([first, last]) => (first === last ? String(first) : `${first}-${last}`)).join(',');
}
