/**
 * The traffic the fixed and traffic-shaped costs are spread over, stated because the answer
 * depends on it: the scheduled functions' runs are a monthly cost, X-Ray samples a share that
 * falls as the rate grows, and KMS is called once per data key per cache lifetime.
 */
import { DAYS_PER_MONTH } from './storage.ts';

export const TRAFFIC = {
  deliveriesPerMonth: 10_000_000,
  /** Subscriptions the deliveries are spread over, evenly. */
  subscriptions: 1000,
  /** Warm sender containers sharing the deliveries (at about 4 a second, a batch or two in flight: one or two). */
  senderContainers: 2,
  /**
   * Data keys the subscriptions' secrets are sealed under: the keyring's one a month
   * (lambdas/adapters/kms-secret-cipher.ts), so a year of creations and rotations is 12.
   */
  ringsInUse: 12,
  /** How long a Lambda container lives before it is replaced (not published by AWS; an assumption). */
  containerLifetimeHours: 2,
} as const;

/** The stated traffic as a rate: its deliveries a month over a month's seconds (DAYS_PER_MONTH). */
export const STATED_DELIVERIES_PER_SECOND = TRAFFIC.deliveriesPerMonth / (DAYS_PER_MONTH * 86_400);
