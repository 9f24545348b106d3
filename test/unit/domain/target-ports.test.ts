import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_ALLOWED_PORTS,
  formatPorts,
  isAllowedPort,
  parseAllowedPorts,
  targetPort,
} from '#domain/target-ports.ts';
import { InvalidPolicyError } from '#domain/errors.ts';

describe('parseAllowedPorts()', () => {
  // [setting, ports allowed, ports refused]
  const table: ReadonlyArray<readonly [string, readonly number[], readonly number[]]> = [
    [DEFAULT_ALLOWED_PORTS, [80, 443, 1024, 8080, 65535], [1, 22, 25, 79, 81, 442, 444, 1023]],
    ['443', [443], [80, 8443]],
    [' 80 , 443 ,8000 - 8999 ', [80, 443, 8000, 8500, 8999], [7999, 9000]],
    ['1-65535', [1, 22, 65535], []],
    ['8443-8443', [8443], [8442, 8444]],
  ];
  for (const [text, allowed, refused] of table) {
    it(`${JSON.stringify(text)} allows ${allowed.join(',')}${refused.length ? ` and refuses ${refused.join(',')}` : ''}`, () => {
      const ranges = parseAllowedPorts(text);
      for (const port of allowed) assert.equal(isAllowedPort(port, ranges), true, String(port));
      for (const port of refused) assert.equal(isAllowedPort(port, ranges), false, String(port));
    });
  }

  for (const bad of [
    '',
    ' ',
    '0',
    '65536',
    '70000',
    'http',
    '80,,443',
    '80;443',
    '10-5',
    '1-2-3',
    '-80',
    '80-',
    '1e3',
    '0x50',
    '443 8443',
    '*',
  ]) {
    it(`refuses ${JSON.stringify(bad)}, saying what it must be`, () => {
      assert.throws(
        () => parseAllowedPorts(bad),
        (e: unknown) =>
          e instanceof InvalidPolicyError &&
          e.path === 'allowedPorts' &&
          /must be a comma-separated list of ports and ranges from 1 to 65535/.test(e.rule) &&
          e.rule.includes(`not '${bad}'`),
      );
    });
  }

  it('formats the set back the way it is written', () => {
    assert.equal(formatPorts(parseAllowedPorts(DEFAULT_ALLOWED_PORTS)), '80,443,1024-65535');
    assert.equal(formatPorts(parseAllowedPorts(' 443 , 8000-8999')), '443,8000-8999');
  });
});

describe('targetPort()', () => {
  it('is the explicit port, else the scheme default', () => {
    assert.equal(targetPort(new URL('http://example.com/')), 80);
    assert.equal(targetPort(new URL('https://example.com/')), 443);
    assert.equal(targetPort(new URL('https://example.com:443/')), 443);
    assert.equal(targetPort(new URL('http://example.com:443/')), 443);
    assert.equal(targetPort(new URL('http://example.com:8080/')), 8080);
  });
});
