import { STREAM_SOURCES } from '#config/topology.ts';
import { API_REQUEST_PRICE, DEFAULT_API_ENTRY, PRICES } from './prices.ts';

export interface FloorPart {
  readonly what: string;
  /** Dollars per million deliveries. */
  readonly dollars: number;
}

/**
 * The least a first-try delivery of an event published alone over HTTP can cost while publish
 * keeps what it promises: a synchronous answer (the 4xx naming the field, the duplicate's own
 * ids), idempotency for the retention, and a durable record of every delivery it accepted, so
 * that neither a crash between the event's write and the hand-off nor a purged queue loses one.
 * A Lambda function serves one request at a time, so a publish shares nothing with another until
 * its event is stored; from there the events table's stream (free to read for Lambda) brings
 * many publishes' events to one fan-out invocation and one SendMessageBatch, here at their
 * fullest by default (STREAM_SOURCES' batch of 100; ten messages of ten deliveries a request),
 * or at `eventsPerBatch` (1: a few publishes a second, where a stream batch holds one). Left out,
 * as they only add: the sender's receive and delete (shared by up to ten messages), and Lambda
 * duration.
 */
export function singlePublishFloor(eventsPerBatch: number = FAN_OUT_BATCH): {
  readonly parts: readonly FloorPart[];
  readonly total: number;
} {
  const million = 1e6;
  const parts: FloorPart[] = [
    {
      what: `the API request (the default entry, ${DEFAULT_API_ENTRY})`,
      dollars: API_REQUEST_PRICE * million,
    },
    { what: "the API function's invocation", dollars: PRICES.lambdaRequest * million },
    { what: "the event's conditional write (idempotency, 1 WRU)", dollars: PRICES.dynamodbWriteRequestUnit * million },
    {
      what:
        eventsPerBatch > 1
          ? `the hand-off (the stream's read, free; a share of a fan-out invocation of ${eventsPerBatch} events and of one SendMessageBatch of ${eventsPerBatch} deliveries)`
          : "the hand-off (the stream's read, free; a fan-out invocation and a SendMessageBatch of its own)",
      dollars: ((PRICES.lambdaRequest + PRICES.sqsRequest) / eventsPerBatch) * million,
    },
    {
      what: "the durable record of the publish's deliveries (its manifest, 1 WRU)",
      dollars: PRICES.dynamodbWriteRequestUnit * million,
    },
    { what: "the delivery's one outcome write (1 WRU)", dollars: PRICES.dynamodbWriteRequestUnit * million },
  ];
  return { parts, total: parts.reduce((sum, p) => sum + p.dollars, 0) };
}

/**
 * The same floor where nothing is shared, as at a few publishes a second: a stream batch holds
 * the one event, so the fan-out's invocation and send are the publish's own, and a receive the
 * one message, so are the sender's receive, delete and invocation (docs/aws.md, "The rate the
 * figures hold at").
 */
export function unsharedPublishFloor(): number {
  return singlePublishFloor(1).total + (2 * PRICES.sqsRequest + PRICES.lambdaRequest) * 1e6;
}

/** Events a fan-out invocation carries at most, and deliveries one SendMessageBatch carries (10 messages of 10). */
const FAN_OUT_BATCH = STREAM_SOURCES[0].batchSize;
