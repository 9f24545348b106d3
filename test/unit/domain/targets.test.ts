import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkTargetUrl, isForbiddenAddress } from '#domain/targets.ts';
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
    ['http://metadata.google.internal/computeMetadata/v1/', 'url host metadata.google.internal is not allowed', 'http://metadata.google.internal/computeMetadata/v1/'],
    ['http://metadata.google.internal./', /^url host metadata\.google\.internal\.? is not allowed$/, 'http://metadata.google.internal./'],
    ['http://ip-10-0-0-1.ec2.internal/', 'url host ip-10-0-0-1.ec2.internal is not allowed', 'http://ip-10-0-0-1.ec2.internal/'],
    ['http://[::1]/hook', 'url host ::1 is a loopback, private, link-local or metadata address', 'http://[::1]/hook'],
    ['http://[::1]:3000/hook', PRIVATE_HOST, 'http://[::1]:3000/hook'],
    ['http://169.254.169.254/latest/meta-data/', 'url host 169.254.169.254 is a loopback, private, link-local or metadata address', 'http://169.254.169.254/latest/meta-data/'],
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
