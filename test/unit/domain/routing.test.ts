import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { matchesEventType } from '#domain/event-types.ts';
import {
  patternSegment,
  prunablePatterns,
  resolveTargets,
  routeEntriesOf,
  routeTargetOf,
  typeSegments,
  type RouteEntry,
  type Routed,
} from '#domain/routing.ts';
import { aSubscription } from '#test/fakes.ts';

const routed = (over: Partial<Routed> & { id: string }): Routed => ({
  ...aSubscription(over),
  routeVersion: 1,
  routedPatterns: [],
  ...over,
});
const entryOf = (id: string, pattern: string, version: number, over: Partial<Routed> = {}): RouteEntry => ({
  pattern,
  version,
  live: true,
  target: routeTargetOf(routed({ id, eventTypes: [pattern], ...over })),
});

describe('routing', () => {
  it('files a pattern under its first segment, or *', () => {
    assert.equal(patternSegment('invoice.*'), 'invoice');
    assert.equal(patternSegment('invoice.line.added'), 'invoice');
    assert.equal(patternSegment('invoice'), 'invoice');
    assert.equal(patternSegment('*'), '*');
  });

  it('looks a type up under two segments, and every pattern that selects it is filed under one of them', () => {
    const patterns = ['*', 'a.*', 'a.b.*', 'a.b.c', 'a.b.c.*', 'b.*', 'a.c', 'ab.*', 'hookline.*'];
    for (const type of ['a', 'a.b', 'a.b.c', 'a.b.c.d', 'b.x', 'ab.c', 'hookline.subscription.failing']) {
      const segments = typeSegments(type);
      assert.equal(segments.length, 2);
      for (const p of patterns)
        if (matchesEventType([p], type)) assert.ok(segments.includes(patternSegment(p)), `${p} selects ${type}`);
    }
  });

  it('carries what fan-out needs, and nothing the sender reads (no url, headers or secrets)', () => {
    const target = routeTargetOf(
      aSubscription({
        id: 'sub_a',
        tenantId: 'acme',
        eventTypes: ['a.*'],
        rateLimitPerSecond: 20,
        state: 'paused',
        retryPolicy: { initialDelaySeconds: 1, multiplier: 2, maxDelaySeconds: 10, jitter: 0, deadlineSeconds: 600 },
      }),
    );
    assert.deepEqual(target, {
      id: 'sub_a',
      tenantId: 'acme',
      eventTypes: ['a.*'],
      rateLimitPerSecond: 20,
      deadlineSeconds: 600,
      receives: true,
    });
    assert.equal(routeTargetOf(aSubscription({ id: 'sub_b', state: 'disabled' })).receives, false);
  });

  it('writes an entry per pattern, live while it has the pattern and takes deliveries, a tombstone for each it left', () => {
    const entries = routeEntriesOf(
      routed({ id: 'sub_a', eventTypes: ['b.*', 'c'], routedPatterns: ['a.*', 'b.*'], routeVersion: 4 }),
    );
    assert.deepEqual(
      entries.map((e) => [e.pattern, e.version, e.live]),
      [
        ['a.*', 4, false],
        ['b.*', 4, true],
        ['c', 4, true],
      ],
    );
    assert.deepEqual(
      prunablePatterns(routed({ id: 'sub_a', eventTypes: ['b.*', 'c'], routedPatterns: ['a.*', 'b.*'] })),
      ['a.*'],
    );
    assert.ok(routeEntriesOf(routed({ id: 'sub_d', eventTypes: ['x'], state: 'deleted' })).every((e) => !e.live));
  });

  it('judges each subscription by its newest entry: a pattern it left does not reach it, one it took does', () => {
    const entries = [
      // sub_a moved from invoice.* (version 1) to order.* (version 2); its invoice.* entry was rewritten at 2.
      entryOf('sub_a', 'invoice.*', 2, { eventTypes: ['order.*'] }),
      // sub_b's change to order.* is half written: its invoice.* entry is still at version 1.
      entryOf('sub_b', 'invoice.*', 1),
      entryOf('sub_c', 'invoice.paid', 1),
      entryOf('sub_c', '*', 1, { eventTypes: ['invoice.paid', '*'] }),
    ];
    assert.deepEqual(
      resolveTargets(entries, { kind: 'producer' }, 'invoice.paid').map((t) => t.id),
      ['sub_b', 'sub_c'],
      'sub_c once, sub_b as of version 1',
    );
  });

  it('never reaches a subscription outside the audience, whatever entries it is given', () => {
    const entries = [
      entryOf('sub_acme', '*', 1, { tenantId: 'acme' }),
      entryOf('sub_globex', '*', 1, { tenantId: 'globex' }),
      entryOf('sub_mine', '*', 1),
    ];
    assert.deepEqual(
      resolveTargets(entries, { kind: 'tenant', tenantId: 'acme' }, 'x').map((t) => t.id),
      ['sub_acme'],
    );
    assert.deepEqual(
      resolveTargets(entries, { kind: 'producer' }, 'x').map((t) => t.id),
      ['sub_mine'],
    );
    assert.deepEqual(
      resolveTargets(entries, { kind: 'all' }, 'x').map((t) => t.id),
      ['sub_acme', 'sub_globex', 'sub_mine'],
    );
  });

  it("leaves out subscriptions that take no deliveries, and operational events from tenants' subscriptions", () => {
    const entries = [
      entryOf('sub_off', '*', 1, { state: 'disabled' }),
      entryOf('sub_ops', 'hookline.*', 1),
      entryOf('sub_t', 'hookline.*', 1, { tenantId: 'acme' }),
    ];
    assert.deepEqual(
      resolveTargets(entries, { kind: 'all' }, 'hookline.subscription.failing').map((t) => t.id),
      ['sub_ops'],
    );
    assert.deepEqual(resolveTargets(entries, { kind: 'all' }, 'a.b'), []);
  });
});
