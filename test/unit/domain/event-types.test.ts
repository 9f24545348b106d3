import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  EVENT_TYPE_PATTERN,
  isReservedEventType,
  matchesEventType,
  subscriptionSelects,
  TEST_EVENT_TYPE,
  testEventRefusal,
} from '#domain/event-types.ts';

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
    // Operational events describe other subscriptions: only a pattern that names them selects them.
    [['*'], 'hookline.subscription.failing', false],
    [['*'], 'hookline.replay.completed', false],
    [['*'], 'hookline.test', true],
    [['hookline.*'], 'hookline.subscription.failing', true],
    [['hookline.subscription.*'], 'hookline.subscription.failing', true],
    [['hookline.subscription.*'], 'hookline.replay.completed', false],
    [['hookline.subscription.failing'], 'hookline.subscription.failing', true],
    [['*', 'hookline.replay.*'], 'hookline.replay.completed', true],
  ];
  for (const [patterns, type, expected] of table) {
    it(`${JSON.stringify(patterns)} ${expected ? 'matches' : 'does not match'} ${type}`, () => {
      assert.equal(matchesEventType(patterns, type), expected);
    });
  }
});

describe('operational events', () => {
  it("go only to producer-owned subscriptions (no tenant): they name every tenant's subscriptions", () => {
    assert.equal(
      subscriptionSelects({ eventTypes: ['hookline.subscription.*'] }, 'hookline.subscription.failing'),
      true,
    );
    assert.equal(
      subscriptionSelects(
        { eventTypes: ['hookline.subscription.*'], tenantId: 'acme' },
        'hookline.subscription.failing',
      ),
      false,
    );
    assert.equal(subscriptionSelects({ eventTypes: ['*'], tenantId: 'acme' }, 'invoice.paid'), true);
  });
  it('hookline. is reserved: producers may not publish under it', () => {
    assert.deepEqual(
      ['hookline.test', 'hookline.subscription.failing', 'hooklinex.a', 'invoice.hookline.x'].map(isReservedEventType),
      [true, true, false, false],
    );
  });
});

describe('EVENT_TYPE_PATTERN', () => {
  const valid = ['*', 'invoice', 'invoice.paid', 'invoice.*', 'invoice.line.added', 'invoice.line.*', 'a_b-c.D9', 'x'];
  const invalid = [
    '',
    '.',
    'invoice.',
    '.invoice',
    'invoice..paid',
    'invoice.*.paid',
    '*.paid',
    '**',
    'invoice*',
    'in voice',
    'invoice/paid',
    'invoice.paid\n',
    'é.paid',
  ];
  for (const pattern of valid)
    it(`accepts ${JSON.stringify(pattern)}`, () => assert.equal(EVENT_TYPE_PATTERN.test(pattern), true));
  for (const pattern of invalid)
    it(`refuses ${JSON.stringify(pattern)}`, () => assert.equal(EVENT_TYPE_PATTERN.test(pattern), false));
});

describe('testEventRefusal(): which types a test event may have', () => {
  const subscription = { eventTypes: ['invoice.*', 'customer.created'], tenantId: 'acme' };
  // [type, refused?]
  const table: ReadonlyArray<readonly [string, RegExp | undefined]> = [
    [TEST_EVENT_TYPE, undefined],
    ['invoice.paid', undefined],
    ['invoice.line.added', undefined],
    ['customer.created', undefined],
    [
      'customer.deleted',
      /'customer.deleted' is not a type this subscription receives \(its eventTypes: invoice\.\*, customer\.created\)/,
    ],
    ['hookline.subscription.failing', /must not start with 'hookline\.' other than hookline\.test/],
    ['hookline.other', /must not start with 'hookline\.'/],
  ];
  for (const [type, refused] of table)
    it(`${type}: ${refused ? 'refused' : 'sent'}`, () => {
      const refusal = testEventRefusal(subscription, type);
      if (refused) assert.match(refusal ?? '', refused);
      else assert.equal(refusal, undefined);
    });
});
