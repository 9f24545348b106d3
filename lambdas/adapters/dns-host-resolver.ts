import { lookup } from 'node:dns/promises';
import type { HostResolver } from '#ports/host-resolver.ts';

export class DnsHostResolver implements HostResolver {
  async resolve(hostname: string): Promise<readonly string[]> {
    const found = await lookup(hostname, { all: true, verbatim: true });
    return found.map((a) => a.address);
  }
}
