import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkTargetUrl, isForbiddenAddress } from '#domain/targets.ts';
import { parseAllowedPorts } from '#domain/target-ports.ts';
import { DomainError, ForbiddenTargetError } from '#domain/errors.ts';

describe('isForbiddenAddress()', () => {
  // [address, forbidden, why]
  const table: ReadonlyArray<readonly [string, boolean, string]> = [
    ['127.0.0.1', true, 'loopback'],
    ['127.255.255.254', true, 'loopback /8'],
    ['10.0.0.1', true, 'private 10/8'],
    ['10.255.255.255', true, 'private 10/8'],
    ['172.16.0.1', true, 'private 172.16/12, first'],
    ['172.20.10.5', true, 'private 172.16/12'],
    ['172.31.255.255', true, 'private 172.16/12, last'],
    ['172.15.255.255', false, 'just below 172.16/12'],
    ['172.32.0.1', false, 'just above 172.16/12'],
    ['192.168.0.1', true, 'private 192.168/16'],
    ['192.168.255.255', true, 'private 192.168/16'],
    ['192.169.0.1', false, 'just above 192.168/16'],
    ['169.254.169.254', true, 'cloud metadata (link-local)'],
    ['169.254.0.1', true, 'link-local'],
    ['100.64.0.1', true, 'CGNAT 100.64/10'],
    ['100.127.255.255', true, 'CGNAT 100.64/10, last'],
    ['100.63.255.255', false, 'just below CGNAT'],
    ['100.128.0.0', false, 'just above CGNAT'],
    ['0.0.0.0', true, 'this host'],
    ['0.1.2.3', true, 'this network 0/8'],
    ['192.0.0.170', true, 'IETF protocol assignments'],
    ['198.18.0.1', true, 'benchmarking'],
    ['224.0.0.1', true, 'multicast'],
    ['255.255.255.255', true, 'broadcast'],
    ['8.8.8.8', false, 'public'],
    ['1.1.1.1', false, 'public'],
    ['93.184.216.34', false, 'public'],
    ['::1', true, 'IPv6 loopback'],
    ['::', true, 'IPv6 unspecified'],
    ['[::1]', true, 'bracketed loopback'],
    ['fe80::1', true, 'link-local'],
    ['FE80::1', true, 'link-local, upper case'],
    ['fe80::1%eth0', true, 'link-local with a zone'],
    ['febf::1', true, 'link-local, last /10'],
    ['fc00::1', true, 'unique-local'],
    ['fd00:ec2::254', true, 'AWS metadata over IPv6 (unique-local)'],
    ['fdff:ffff::1', true, 'unique-local, last'],
    ['ff02::1', true, 'multicast'],
    ['::ffff:127.0.0.1', true, 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', true, 'IPv4-mapped loopback, hex form'],
    ['::ffff:10.1.2.3', true, 'IPv4-mapped private'],
    ['::ffff:169.254.169.254', true, 'IPv4-mapped metadata'],
    ['0:0:0:0:0:ffff:c0a8:0101', true, 'IPv4-mapped 192.168.1.1, long form'],
    ['::ffff:8.8.8.8', false, 'IPv4-mapped public'],
    ['2606:4700::1111', false, 'public IPv6'],
    ['2001:4860:4860::8888', false, 'public IPv6'],
    ['64:ff9b::a00:1', true, 'NAT64 of 10.0.0.1'],
    ['64:ff9b::7f00:1', true, 'NAT64 of 127.0.0.1'],
    // IPv6 transition ranges: each either carries an IPv4 address that is judged, or is refused whole.
    ['64:ff9b::a9fe:a9fe', true, 'NAT64 of the metadata address'],
    ['64:ff9b::192.168.1.1', true, 'NAT64 of a private address, dotted tail'],
    ['64:ff9b::808:808', false, 'NAT64 of 8.8.8.8: a public IPv4 host from an IPv6-only network'],
    ['64:ff9b::8.8.4.4', false, 'NAT64 of 8.8.4.4, dotted tail'],
    ['64:ff9b:1::808:808', true, 'local-use NAT64 64:ff9b:1::/48 (operator-defined translation)'],
    ['64:ff9b:1:ffff::a00:1', true, 'local-use NAT64, last part of the /48'],
    ['64:ff9b:0:0:1::808:808', true, 'the rest of 64:ff9b::/32 is not the well-known /96'],
    ['::7f00:1', true, 'IPv4-compatible ::/96 of 127.0.0.1'],
    ['::8.8.8.8', true, 'IPv4-compatible ::/96 (deprecated): refused whole, even a public one'],
    ['::0.0.0.2', true, 'IPv4-compatible ::/96, low'],
    ['::ffff:0:7f00:1', true, 'IPv4-translated ::ffff:0:0:0/96 of 127.0.0.1'],
    ['::ffff:0:8.8.8.8', true, 'IPv4-translated ::ffff:0:0:0/96: refused whole'],
    ['2002:7f00:1::1', true, '6to4 of 127.0.0.1'],
    ['2002:a9fe:a9fe::', true, '6to4 of the metadata address'],
    ['2002:808:808::1', true, '6to4 of a public address: 2002::/16 refused whole'],
    ['2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff', true, '6to4, last'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', true, 'Teredo 2001::/32'],
    ['2001::1', true, 'Teredo, compressed'],
    ['2001:0:ffff:ffff:ffff:ffff:ffff:ffff', true, 'Teredo, last'],
    ['2001:1::1', false, 'just above Teredo'],
    ['2003:de:2016::1', false, 'just above 6to4 (public)'],
    ['2001:1ff::1', false, 'public, 2001::/32 boundary not overreached'],
    ['localhost', true, 'not an address: refused'],
    ['example.com', true, 'not an address: refused'],
    ['', true, 'empty: refused'],
    ['010.0.0.1', true, 'ambiguous octal form: refused'],
    ['256.1.1.1', true, 'not an address: refused'],
  ];
  for (const [address, forbidden, why] of table) {
    it(`${JSON.stringify(address)} ${forbidden ? 'is forbidden' : 'is allowed'} (${why})`, () => {
      assert.equal(isForbiddenAddress(address), forbidden);
    });
  }
});

function rejects(raw: string, allowPrivate: boolean, message: string | RegExp, target = raw): void {
  assert.throws(
    () => checkTargetUrl(raw, { allowPrivate }),
    (error: unknown) => {
      assert.ok(error instanceof ForbiddenTargetError, String(error));
      assert.ok(error instanceof DomainError);
      if (typeof message === 'string') assert.equal(error.message, message);
      else assert.match(error.message, message);
      assert.equal(error.target, target);
      return true;
    },
  );
}

const PRIVATE_HOST = /^url host .+ is a loopback, private, link-local or metadata address$/;
const LONG = `https://example.com/${'a'.repeat(2049 - 'https://example.com/'.length)}`;
const LONGEST = `https://example.com/${'a'.repeat(2048 - 'https://example.com/'.length)}`;

describe('checkTargetUrl(): refused in every mode', () => {
  // [url, message]
  const table: ReadonlyArray<readonly [string, string | RegExp]> = [
    ['ftp://example.com/hook', 'url scheme must be http or https, not ftp'],
    ['file:///etc/passwd', 'url scheme must be http or https, not file'],
    ['javascript:alert(1)', 'url scheme must be http or https, not javascript'],
    ['data:text/plain,hi', 'url scheme must be http or https, not data'],
    ['gopher://127.0.0.1:6379/_INFO', 'url scheme must be http or https, not gopher'],
    ['ws://example.com/socket', 'url scheme must be http or https, not ws'],
    ['https://user:secret@example.com/hook', 'url must not carry credentials'],
    ['https://user@example.com/hook', 'url must not carry credentials'],
    ['https://:secret@example.com/hook', 'url must not carry credentials'],
    ['https://example.com/hook#section', 'url must not have a fragment'],
    ['https://example.com/ho ok', 'url must not contain whitespace or control characters'],
    ['https://example.com/hook\r\nX-Injected: 1', 'url must not contain whitespace or control characters'],
    ['https://example.com/hook\n', 'url must not contain whitespace or control characters'],
    [' https://example.com/hook', 'url must not contain whitespace or control characters'],
    ['https://example.com/\thook', 'url must not contain whitespace or control characters'],
    ['https://example.com/\u0000hook', 'url must not contain whitespace or control characters'],
    ['https://example.com/\u007fhook', 'url must not contain whitespace or control characters'],
    ['https://example.com/\u00a0hook', 'url must not contain whitespace or control characters'],
    ['example.com/hook', 'url is not a valid absolute URL'],
    ['/hook', 'url is not a valid absolute URL'],
    ['', 'url is not a valid absolute URL'],
    ['https://', 'url is not a valid absolute URL'],
  ];
  for (const [raw, message] of table) {
    for (const allowPrivate of [false, true]) {
      it(`${JSON.stringify(raw)} (allowPrivate ${allowPrivate})`, () => rejects(raw, allowPrivate, message));
    }
  }

  for (const allowPrivate of [false, true]) {
    it(`a URL over 2048 characters (allowPrivate ${allowPrivate})`, () => {
      assert.equal(LONG.length, 2049);
      rejects(LONG, allowPrivate, 'url must be at most 2048 characters', LONG.slice(0, 64));
    });
  }
});

describe('checkTargetUrl(): private hosts depend on allowPrivate', () => {
  // [url, message when allowPrivate is false, href when it is true]
  const table: ReadonlyArray<readonly [string, string | RegExp, string]> = [
    ['http://localhost:8080/hook', 'url host localhost is not allowed', 'http://localhost:8080/hook'],
    ['http://LOCALHOST/hook', 'url host localhost is not allowed', 'http://localhost/hook'],
    ['http://api.localhost/hook', 'url host api.localhost is not allowed', 'http://api.localhost/hook'],
    ['http://localhost./hook', /^url host localhost\.? is not allowed$/, 'http://localhost./hook'],
    ['http://api.localhost./hook', /^url host api\.localhost\.? is not allowed$/, 'http://api.localhost./hook'],
    [
      'http://metadata.google.internal/computeMetadata/v1/',
      'url host metadata.google.internal is not allowed',
      'http://metadata.google.internal/computeMetadata/v1/',
    ],
    [
      'http://metadata.google.internal./',
      /^url host metadata\.google\.internal\.? is not allowed$/,
      'http://metadata.google.internal./',
    ],
    [
      'http://ip-10-0-0-1.ec2.internal/',
      'url host ip-10-0-0-1.ec2.internal is not allowed',
      'http://ip-10-0-0-1.ec2.internal/',
    ],
    ['http://[::1]/hook', 'url host ::1 is a loopback, private, link-local or metadata address', 'http://[::1]/hook'],
    ['http://[::1]:3000/hook', PRIVATE_HOST, 'http://[::1]:3000/hook'],
    [
      'http://169.254.169.254/latest/meta-data/',
      'url host 169.254.169.254 is a loopback, private, link-local or metadata address',
      'http://169.254.169.254/latest/meta-data/',
    ],
    ['http://[fd00:ec2::254]/latest/meta-data/', PRIVATE_HOST, 'http://[fd00:ec2::254]/latest/meta-data/'],
    ['http://127.0.0.1:3000/hook', PRIVATE_HOST, 'http://127.0.0.1:3000/hook'],
    ['http://127.1/', 'url host 127.0.0.1 is a loopback, private, link-local or metadata address', 'http://127.0.0.1/'],
    ['http://2130706433/', PRIVATE_HOST, 'http://127.0.0.1/'],
    ['http://0x7f000001/', PRIVATE_HOST, 'http://127.0.0.1/'],
    ['http://0/', PRIVATE_HOST, 'http://0.0.0.0/'],
    ['http://10.1.2.3/hook', PRIVATE_HOST, 'http://10.1.2.3/hook'],
    ['https://172.16.5.4/hook', PRIVATE_HOST, 'https://172.16.5.4/hook'],
    ['https://192.168.1.10/hook', PRIVATE_HOST, 'https://192.168.1.10/hook'],
    ['https://100.64.0.1/hook', PRIVATE_HOST, 'https://100.64.0.1/hook'],
    ['http://[::ffff:127.0.0.1]/', PRIVATE_HOST, 'http://[::ffff:7f00:1]/'],
    ['http://[fe80::1]/', PRIVATE_HOST, 'http://[fe80::1]/'],
    ['http://[64:ff9b::10.0.0.1]/', PRIVATE_HOST, 'http://[64:ff9b::a00:1]/'],
    ['http://[64:ff9b:1::808:808]/', PRIVATE_HOST, 'http://[64:ff9b:1::808:808]/'],
    ['http://[::127.0.0.1]/', PRIVATE_HOST, 'http://[::7f00:1]/'],
    ['http://[::ffff:0:10.0.0.1]/', PRIVATE_HOST, 'http://[::ffff:0:a00:1]/'],
    ['http://[2002:a00:1::]/', PRIVATE_HOST, 'http://[2002:a00:1::]/'],
    ['http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', PRIVATE_HOST, 'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/'],
    ['http://127.0.0.1:54321/hook', PRIVATE_HOST, 'http://127.0.0.1:54321/hook'],
  ];
  for (const [raw, message, href] of table) {
    it(`${raw}: refused in cloud mode`, () => rejects(raw, false, message));
    it(`${raw}: allowed with allowPrivate`, () => assert.equal(checkTargetUrl(raw, { allowPrivate: true }).href, href));
  }
});

describe('checkTargetUrl(): public targets pass in every mode', () => {
  // [url, href]
  const table: ReadonlyArray<readonly [string, string]> = [
    ['https://example.com/hooks/1?x=1&y=2', 'https://example.com/hooks/1?x=1&y=2'],
    ['http://example.com', 'http://example.com/'],
    ['HTTPS://Example.COM/Hook', 'https://example.com/Hook'],
    ['https://example.com:8443/hook', 'https://example.com:8443/hook'],
    ['https://8.8.8.8/hook', 'https://8.8.8.8/hook'],
    ['https://172.32.0.1/hook', 'https://172.32.0.1/hook'],
    ['https://[2606:4700::1111]/hook', 'https://[2606:4700::1111]/hook'],
    ['https://example.com/%0d%0aX-Injected:%201', 'https://example.com/%0d%0aX-Injected:%201'],
    ['https://localhost.example.com/hook', 'https://localhost.example.com/hook'],
    ['https://internal.example.com/hook', 'https://internal.example.com/hook'],
    ['https://[64:ff9b::808:808]/hook', 'https://[64:ff9b::808:808]/hook'],
    // The URL is normalised (WHATWG): the returned href is what is stored and sent.
    ['HTTP://Example.COM:443/a/../b', 'http://example.com:443/b'],
    ['https://example.com:443/x/./y/../z', 'https://example.com/x/z'],
    ['http://example.com:80/%7Efoo', 'http://example.com/%7Efoo'],
    ['http://EXAMPLE.com./a', 'http://example.com./a'],
    ['http://example.com:1024/', 'http://example.com:1024/'],
    ['http://example.com:65535/', 'http://example.com:65535/'],
    [LONGEST, LONGEST],
  ];
  for (const [raw, href] of table) {
    for (const allowPrivate of [false, true]) {
      it(`${raw.length > 80 ? `${raw.slice(0, 40)}… (${raw.length} chars)` : raw} (allowPrivate ${allowPrivate})`, () => {
        const url = checkTargetUrl(raw, { allowPrivate });
        assert.ok(url instanceof URL);
        assert.equal(url.href, href);
      });
    }
  }
});

describe('checkTargetUrl(): destination ports (HOOKLINE_ALLOWED_PORTS, default 80,443,1024-65535)', () => {
  const DEFAULT_REFUSAL = (port: number) => `url port ${port} is not allowed (allowed ports: 80,443,1024-65535)`;
  // [url, refused port]: SSH, SMTP, DNS, LDAP and the like on a public host, in every mode.
  const refused: ReadonlyArray<readonly [string, number]> = [
    ['https://example.com:22/', 22],
    ['http://example.com:25/hook', 25],
    ['http://example.com:1023/', 1023],
    ['https://example.com:81/', 81],
    ['http://example.com:1/', 1],
  ];
  for (const [raw, port] of refused) {
    for (const allowPrivate of [false, true]) {
      it(`${raw} is refused by the default ports (allowPrivate ${allowPrivate})`, () =>
        rejects(raw, allowPrivate, DEFAULT_REFUSAL(port)));
    }
  }

  it('the scheme default counts: http:// is port 80, https:// port 443', () => {
    const onlyTls = { allowPrivate: false, allowedPorts: parseAllowedPorts('443') };
    assert.equal(checkTargetUrl('https://example.com/hook', onlyTls).href, 'https://example.com/hook');
    assert.equal(checkTargetUrl('http://example.com:443/hook', onlyTls).href, 'http://example.com:443/hook');
    assert.throws(
      () => checkTargetUrl('http://example.com/hook', onlyTls),
      (e: unknown) =>
        e instanceof ForbiddenTargetError && e.message === 'url port 80 is not allowed (allowed ports: 443)',
    );
    assert.throws(() => checkTargetUrl('https://example.com:8443/hook', onlyTls), /url port 8443 is not allowed/);
  });

  it('a deployment can widen the set, e.g. to every port', () => {
    const any = { allowPrivate: false, allowedPorts: parseAllowedPorts('1-65535') };
    assert.equal(checkTargetUrl('http://example.com:22/', any).href, 'http://example.com:22/');
  });

  it('locally (allowPrivate) a receiver on a random high port passes the default set', () => {
    assert.equal(
      checkTargetUrl('http://127.0.0.1:54321/hook', { allowPrivate: true }).href,
      'http://127.0.0.1:54321/hook',
    );
    assert.equal(
      checkTargetUrl('http://localhost:3001/hook', { allowPrivate: true }).href,
      'http://localhost:3001/hook',
    );
  });
});
