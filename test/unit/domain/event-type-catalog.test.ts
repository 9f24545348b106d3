import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  ACCEPTED_AS_IS,
  catalogNameRefusal,
  catalogNeeded,
  DEFAULT_EVENT_TYPE_CHECK,
  EVENT_TYPE_CHECKS,
  eventTypeVerdict,
  isEventTypeCheck,
  type EventTypeCheck,
  type EventTypeEntry,
  type EventTypeVerdict,
} from '#domain/event-type-catalog.ts';

const entry = (more: Partial<EventTypeEntry> = {}): EventTypeEntry => ({
  name: 'order.created',
  description: 'an order was placed',
  schemaJson: '{"type":"object"}',
  deprecated: false,
  createdAt: '2024-05-01T00:00:00.000Z',
  updatedAt: '2024-05-01T00:00:00.000Z',
  ...more,
});

describe('the event-type check setting', () => {
  it('is allow unless the deployment says otherwise, and takes exactly three values', () => {
    assert.equal(DEFAULT_EVENT_TYPE_CHECK, 'allow');
    assert.deepEqual([...EVENT_TYPE_CHECKS], ['allow', 'warn', 'refuse']);
    for (const value of EVENT_TYPE_CHECKS) assert.ok(isEventTypeCheck(value));
    for (const value of ['', 'Allow', 'reject', 'off']) assert.equal(isEventTypeCheck(value), false, value);
  });
});

describe('catalogNameRefusal()', () => {
  const table: ReadonlyArray<readonly [string, RegExp | undefined]> = [
    ['order.created', undefined],
    ['a', undefined],
    ['billing:invoice.paid', undefined],
    ['hookline-ish.thing', undefined],
    ['*', /not a pattern/],
    ['order.*', /not a pattern/],
    ['hookline.test', /reserved for Hookline's own/],
    ['hookline.subscription.disabled', /reserved for Hookline's own/],
  ];
  for (const [name, refused] of table)
    it(`${name}: ${refused ? 'refused' : 'may be registered'}`, () => {
      const refusal = catalogNameRefusal(name);
      if (refused) assert.match(refusal ?? '', refused);
      else assert.equal(refusal, undefined);
    });
});

describe('eventTypeVerdict(): what publish makes of one event', () => {
  const unregistered = 'order.shipped is not registered in the event-type catalog';
  const mismatch = 'does not match the schema of order.created: /amount must be number';
  const deprecated = { field: 'type', message: 'type order.created is deprecated in the event-type catalog' } as const;
  // [check, type, entry, schema error, verdict]
  const table: ReadonlyArray<
    readonly [EventTypeCheck, string, EventTypeEntry | undefined, string | undefined, EventTypeVerdict]
  > = [
    // allow: whatever the catalog would say, nothing.
    ['allow', 'order.shipped', undefined, undefined, ACCEPTED_AS_IS],
    ['allow', 'order.created', entry({ deprecated: true }), '/amount must be number', ACCEPTED_AS_IS],
    // A registered type whose payload matches (or which has no schema): nothing to say.
    ['warn', 'order.created', entry(), undefined, ACCEPTED_AS_IS],
    ['refuse', 'order.created', entry({ schemaJson: undefined }), undefined, ACCEPTED_AS_IS],
    // Unregistered.
    [
      'warn',
      'order.shipped',
      undefined,
      undefined,
      { kind: 'accept', warnings: [{ field: 'type', message: `type ${unregistered}` }] },
    ],
    ['refuse', 'order.shipped', undefined, undefined, { kind: 'refuse', field: 'type', rule: unregistered }],
    // A payload the schema refuses.
    [
      'warn',
      'order.created',
      entry(),
      '/amount must be number',
      { kind: 'accept', warnings: [{ field: 'payload', message: `payload ${mismatch}` }] },
    ],
    [
      'refuse',
      'order.created',
      entry(),
      '/amount must be number',
      { kind: 'refuse', field: 'payload', rule: mismatch },
    ],
    // Deprecated: accepted with a warning under warn and refuse alike.
    ['warn', 'order.created', entry({ deprecated: true }), undefined, { kind: 'accept', warnings: [deprecated] }],
    ['refuse', 'order.created', entry({ deprecated: true }), undefined, { kind: 'accept', warnings: [deprecated] }],
    // Deprecated and mismatched: two warnings, or refused for its payload.
    [
      'warn',
      'order.created',
      entry({ deprecated: true }),
      '/amount must be number',
      { kind: 'accept', warnings: [deprecated, { field: 'payload', message: `payload ${mismatch}` }] },
    ],
    [
      'refuse',
      'order.created',
      entry({ deprecated: true }),
      '/amount must be number',
      { kind: 'refuse', field: 'payload', rule: mismatch },
    ],
    // Hookline's own types are never checked, registered or not.
    ['refuse', 'hookline.test', undefined, undefined, ACCEPTED_AS_IS],
    ['warn', 'hookline.subscription.disabled', undefined, undefined, ACCEPTED_AS_IS],
  ];
  for (const [check, type, e, schemaError, expected] of table)
    it(`${check}, ${type}${e ? (e.deprecated ? ' (deprecated)' : ' (registered)') : ' (unregistered)'}${schemaError ? ', payload mismatched' : ''}: ${expected.kind}`, () => {
      assert.deepEqual(eventTypeVerdict(check, type, e, schemaError), expected);
    });
});

describe('catalogNeeded(): whether a publish reads the catalog at all', () => {
  it('never under allow; under warn and refuse unless every event is one of Hookline’s own', () => {
    assert.equal(catalogNeeded('allow', ['order.created']), false);
    assert.equal(catalogNeeded('warn', ['order.created']), true);
    assert.equal(catalogNeeded('refuse', ['hookline.test', 'order.created']), true);
    assert.equal(catalogNeeded('refuse', ['hookline.test', 'hookline.replay.completed']), false);
    assert.equal(catalogNeeded('warn', []), false);
  });
});
