import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EVENT_TYPE_PATTERN, matchesEventType } from '#domain/event-types.ts';

describe('matchesEventType()', () => {
  // [patterns, event type, expected]
  const table: ReadonlyArray<readonly [readonly string[], string, boolean]> = [
    [['*'], 'invoice.paid', true],
    [['*'], 'user', true],
    [['*'], 'a.b.c.d', true],
    [['invoice.paid'], 'invoice.paid', true],
    [['invoice.paid'], 'invoice.created', false],
    [['invoice.paid'], 'invoice.paid.late', false],
    [['invoice.paid'], 'Invoice.paid', false],
    [['invoice.*'], 'invoice.paid', true],
    [['invoice.*'], 'invoice.line.added', true],
    [['invoice.*'], 'invoicex.paid', false],
    [['invoice.*'], 'invoice', false],
    [['invoice.*'], 'xinvoice.paid', false],
    [['invoice.*'], 'customer.invoice.paid', false],
    [['invoice'], 'invoice.paid', false],
    [['invoice'], 'invoice', true],
    [['invoice.line.*'], 'invoice.line.added', true],
    [['invoice.line.*'], 'invoice.paid', false],
    [['invoice.line.*'], 'invoice.line', false],
    [['*.paid'], 'invoice.paid', false],
    [['invoice*'], 'invoicex', false],
    [[], 'invoice.paid', false],
    [['customer.created', 'invoice.*'], 'invoice.paid', true],
    [['customer.created', 'invoice.*'], 'customer.created', true],
    [['customer.created', 'invoice.*'], 'customer.deleted', false],
  ];
  for (const [patterns, type, expected] of table) {
    it(`${JSON.stringify(patterns)} ${expected ? 'matches' : 'does not match'} ${type}`, () => {
      assert.equal(matchesEventType(patterns, type), expected);
    });
  }
});

describe('EVENT_TYPE_PATTERN', () => {
  const valid = ['*', 'invoice', 'invoice.paid', 'invoice.*', 'invoice.line.added', 'invoice.line.*', 'a_b-c.D9', 'x'];
  const invalid = ['', '.', 'invoice.', '.invoice', 'invoice..paid', 'invoice.*.paid', '*.paid', '**', 'invoice*', 'in voice', 'invoice/paid', 'invoice.paid\n', 'é.paid'];
  for (const pattern of valid) it(`accepts ${JSON.stringify(pattern)}`, () => assert.equal(EVENT_TYPE_PATTERN.test(pattern), true));
  for (const pattern of invalid) it(`refuses ${JSON.stringify(pattern)}`, () => assert.equal(EVENT_TYPE_PATTERN.test(pattern), false));
});
