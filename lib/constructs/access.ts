import type { FunctionKey } from '../../lambdas/config/topology.ts';
import type { TableGrants } from './storage.ts';

/**
 * Which tables each function may touch, and how: the least-privilege map behind every
 * DynamoDB grant, read off what the application services call (lambdas/app/*.ts). A
 * function gets access to exactly the tables its environment names (test/cdk/parity.test.ts
 * checks that), narrowed where its handler only reads or only appends.
 */
export const TABLE_GRANTS = {
  // Subscriptions CRUD and pause/resume; inline publish (POST /v1/events); replay; attempt log reads.
  api: { subscriptions: 'readWrite', events: 'readWrite', deliveries: 'readWrite', attempts: 'read' },
  authorizer: {},
  // Fan-out reads subscriptions; stores the event once and one delivery per subscription.
  ingest: { subscriptions: 'read', events: 'readWrite', deliveries: 'readWrite' },
  // Reads the subscription (and disables it on 410 Gone) and the stored body; claims and
  // settles deliveries; appends attempts (conditional PutItem, never reads them back).
  sender: { subscriptions: 'readWrite', events: 'read', deliveries: 'readWrite', attempts: 'write' },
  // Expires, re-enqueues and releases deliveries.
  sweeper: { deliveries: 'readWrite' },
} as const satisfies Record<FunctionKey, TableGrants>;
