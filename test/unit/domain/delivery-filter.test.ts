import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { filterVerdict, type DeliveryFilter } from '#domain/delivery-filter.ts';
import type { Delivery } from '#domain/types.ts';

const AT = '2024-05-01T12:00:00.000Z';
const row = (over: Partial<Pick<Delivery, 'state' | 'createdAt' | 'eventType'>> = {}) => ({
  state: 'failed' as const,
  createdAt: AT,
  eventType: 'order.paid',
  ...over,
});
const { eventType: _none, ...earlier } = row();

describe('filterVerdict', () => {
  it('lets a delivery in only when every filter given holds; the time range includes both ends', () => {
    const table: ReadonlyArray<readonly [DeliveryFilter, 'in' | 'out']> = [
      [{}, 'in'],
      [{ state: 'failed' }, 'in'],
      [{ state: 'delivered' }, 'out'],
      [{ eventType: 'order.paid' }, 'in'],
      [{ eventType: 'order' }, 'out'],
      [{ eventType: 'order.*' }, 'out'],
      [{ since: AT }, 'in'],
      [{ since: '2024-05-01T12:00:00.001Z' }, 'out'],
      [{ until: AT }, 'in'],
      [{ until: '2024-05-01T11:59:59.999Z' }, 'out'],
      [{ since: AT, until: AT }, 'in'],
      [{ state: 'failed', eventType: 'order.paid', since: '2024-05-01', until: '2024-05-02' }, 'in'],
      [{ state: 'failed', eventType: 'order.created', since: '2024-05-01', until: '2024-05-02' }, 'out'],
    ];
    for (const [filter, verdict] of table) assert.equal(filterVerdict(row(), filter), verdict, JSON.stringify(filter));
  });

  it("cannot tell an earlier version's row (no event type) under a type filter, and tells it under any other", () => {
    assert.equal(filterVerdict(earlier, { eventType: 'order.paid' }), 'unknown_type');
    assert.equal(filterVerdict(earlier, {}), 'in');
    assert.equal(filterVerdict(earlier, { state: 'failed' }), 'in');
    // Out on what it does say, whatever its type would be.
    assert.equal(filterVerdict(earlier, { eventType: 'order.paid', state: 'delivered' }), 'out');
    assert.equal(filterVerdict(earlier, { eventType: 'order.paid', since: '2024-06-01' }), 'out');
  });
});
