import type { Deps } from '#app/deps.ts';
import type { DeliveryPolicyView } from '#app/schema/responses.ts';

/**
 * `GET /v1/delivery-policy`: the deployment's delivery contract in figures, so a portal states
 * this deployment's own (its default retry policy, the resend limit, how long dead letters stay)
 * rather than the defaults it shipped with. A subscription's own `retryPolicy` overrides the first.
 */
export function deliveryPolicyView(
  deps: Pick<Deps, 'defaultRetryPolicy' | 'customerReplayLimit' | 'retention'>,
): DeliveryPolicyView {
  return {
    retryPolicy: { ...deps.defaultRetryPolicy },
    customerReplayLimit: {
      limit: deps.customerReplayLimit.limit,
      windowSeconds: deps.customerReplayLimit.windowSeconds,
    },
    deadLetterRetentionDays: deps.retention.deadLetterDays,
  };
}
