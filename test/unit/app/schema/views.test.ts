import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { z } from 'zod';
import { deliveryDetailView } from '#app/deliveries/delivery-detail-view.ts';
import { attemptView, deliveryView } from '#app/deliveries/delivery-view.ts';
import type { eventDetailView, eventSummaryView, subscriptionEventView } from '#app/events/event-view.ts';
import * as R from '#app/schema/responses.ts';
import type { subscriptionStatsView } from '#app/subscriptions/subscription-stats-view.ts';
import { subscriptionView } from '#app/subscriptions/subscription-view.ts';
import type { tenantKeyView } from '#app/tenants/tenants.ts';
import type { ErrorCode } from '#handlers/error-map.ts';
import { STATE } from '#domain/states.ts';
import { aDelivery, aSubscription } from '#test/fakes.ts';

/**
 * The views and the response schemas agree. Views in this capability's files return the
 * schema's type (`DeliveryView`, …) and fail to compile when they drift; for the others, the
 * type checks below do the same (tsc runs over this file), and each view's output is parsed
 * by its (strict) schema, so an undocumented field fails here before an integration test.
 */

type Is<T extends true> = T;
/** `V` is what schema `S` describes: assignable to it (no field of the wrong type, none missing). */
type Fits<V, S extends z.ZodType> = V extends R.View<S> ? true : false;

export type Checks = [
  Is<Fits<ReturnType<typeof subscriptionView>, typeof R.createdSubscription>>,
  Is<Fits<ReturnType<typeof subscriptionStatsView>, typeof R.subscriptionStats>>,
  Is<Fits<ReturnType<typeof tenantKeyView>, typeof R.tenantKey>>,
  Is<Fits<ReturnType<typeof eventDetailView>, typeof R.eventDetail>>,
  Is<Fits<ReturnType<typeof eventSummaryView>, typeof R.eventSummary>>,
  Is<Fits<ReturnType<typeof subscriptionEventView>, typeof R.subscriptionEvent>>,
  // Every error code the error table can answer is one the document lists.
  Is<ErrorCode extends (typeof R.ERROR_CODES)[number] ? true : false>,
];

const parses = (schema: z.ZodType, value: unknown) => {
  const result = schema.safeParse(value);
  assert.ok(result.success, JSON.stringify(result.error?.issues));
};

describe('the response schemas accept what the views produce', () => {
  const subscription = aSubscription({
    id: 'sub_1',
    tenantId: 'acme',
    description: 'billing',
    headers: { 'x-team': 'a' },
    metadata: { k: 'v' },
  });
  const delivery = aDelivery({ id: 'dlv_1', state: STATE.failed, lastStatus: 500, lastError: 'http_500' });
  const attempt = {
    deliveryId: 'dlv_1',
    seq: 1,
    attempt: 1,
    startedAt: '2024-05-01T00:00:00.000Z',
    durationMs: 12,
    status: 500,
    responseSnippet: 'no',
  };

  it('subscription, delivery, attempt and detail', () => {
    parses(R.subscription, subscriptionView(subscription));
    parses(R.createdSubscription, subscriptionView({ ...subscription, secret: 'whsec_x' }, { withSecret: true }));
    parses(R.delivery, deliveryView(delivery));
    parses(R.attempt, attemptView(attempt));
    parses(
      R.deliveryDetail,
      deliveryDetailView({ delivery, event: undefined, attempts: [attempt], attemptsNextCursor: undefined } as never),
    );
  });

  it('refuses a field the schema does not document (strict objects)', () => {
    assert.equal(R.delivery.safeParse({ ...deliveryView(delivery), leaseUntil: 'x' }).success, false);
    assert.equal(
      R.resumedSubscription.safeParse({ ...subscriptionView(subscription), secret: 'whsec_x', drained: 0 }).success,
      false,
    );
  });
});
