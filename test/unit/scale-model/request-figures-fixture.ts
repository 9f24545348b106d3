import type { RequestFigures } from '../../../scripts/scale-model/request-meter.ts';

/** What a single publish asks for when nothing is shared (the stated-traffic run's figures, rounded). */
export const UNSHARED_REQUESTS: RequestFigures = {
  invocations: { api: 1, ingest: 1, sender: 1 },
  sqsRequests: 3,
  wru: 3,
  rru: 1.48,
  wruByTable: { events: 1, deliveries: 1, 'ingest-manifests': 1 },
  eventsPerFanOut: 1,
  dollarsPerMillion: { dynamodb: 2.06, sqs: 1.2, lambda: 0.6, total: 3.86 },
};
