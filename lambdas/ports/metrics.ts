/** What the services report; the AWS side writes EMF through Powertools. */
export interface DeliveryMetrics {
  count(name: 'DeliveriesSucceeded' | 'DeliveriesFailed' | 'DeliveriesExpired' | 'DeadLettered' | 'EventsPublished', value?: number): void;
  latency(ms: number): void;
}

export const noMetrics: DeliveryMetrics = { count: () => {}, latency: () => {} };
