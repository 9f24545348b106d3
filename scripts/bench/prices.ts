import { API_ENTRY_NAMES, DEFAULT_API_TYPE, type ApiType } from '#config/topology.ts';

/**
 * Public AWS list prices, us-east-1, as of the date below. Benchmarks multiply measured request
 * counts by these; change them here and the next run uses them.
 */
export const PRICES = {
  asOf: '2026-05-01',
  region: 'us-east-1',
  dynamodbWriteRequestUnit: 0.625 / 1e6,
  dynamodbReadRequestUnit: 0.125 / 1e6,
  /** DynamoDB Standard table class, per GB-month of items, their per-item overhead and index entries. */
  dynamodbStorageGbMonth: 0.25,
  sqsRequest: 0.4 / 1e6,
  lambdaRequest: 0.2 / 1e6,
  lambdaArmGbSecond: 0.0000133334,
  /** A Lambda Function URL: no charge beyond the function's own invocation and duration. */
  functionUrlRequest: 0,
  /** HTTP API (v2), the first 300 million a month; each 512 KB of a request is metered as one. */
  apiGatewayHttpRequest: 1.0 / 1e6,
  /** REST API (v1), the first 333 million a month: kept for comparison with the HTTP API. */
  apiGatewayRestRequest: 3.5 / 1e6,
  eventBridgeEvent: 1.0 / 1e6,
  eventBridgeApiDestinationInvocation: 0.2 / 1e6,
  /** DynamoDB point-in-time recovery, per GB-month of table size. */
  dynamodbPitrGbMonth: 0.2,
  /**
   * CloudWatch Logs Standard class: ingestion per GB, and storage per GB-month (billed on the
   * archived, compressed size; priced here on the raw size, an upper bound).
   */
  logsIngestionGb: 0.5,
  logsStorageGbMonth: 0.03,
  /** X-Ray traces recorded, past the free tier. */
  xrayTraceRecorded: 5.0 / 1e6,
  /** KMS symmetric requests (Decrypt, GenerateDataKey): $0.03 per 10,000. */
  kmsRequest: 0.03 / 1e4,
  /** S3 Standard: a PUT, a GET (or other read), storage per GB-month; Glacier Instant Retrieval storage per GB-month. */
  s3Put: 0.005 / 1e3,
  s3Get: 0.0004 / 1e3,
  s3StandardGbMonth: 0.023,
  s3GlacierInstantGbMonth: 0.004,
  /** NAT gateway: per hour per gateway, and per GB processed. */
  natGatewayHour: 0.045,
  natGatewayGb: 0.045,
} as const;

/** HTTP API meters a request per 512 KB of its payload. */
export const API_GATEWAY_HTTP_METERING_BYTES = 512 * 1024;

/** What one API request costs its entry, per the stack's `apiType`. */
export const API_REQUEST_PRICES: Readonly<Record<ApiType, number>> = {
  url: PRICES.functionUrlRequest,
  http: PRICES.apiGatewayHttpRequest,
  rest: PRICES.apiGatewayRestRequest,
};

/**
 * What an API request costs in the figures: the stack's default entry, a Function URL (nothing
 * beyond the invocation). The API Gateway prices stay in the price line for the other entries.
 */
export const API_REQUEST_PRICE = API_REQUEST_PRICES[DEFAULT_API_TYPE];

/** The stack's default entry, as the figures name it. */
export const DEFAULT_API_ENTRY = API_ENTRY_NAMES[DEFAULT_API_TYPE];

export const PRICE_TABLE_MARKDOWN = `Prices (public list prices, ${PRICES.region}, as of ${PRICES.asOf}): DynamoDB on-demand $0.625 per million write request units and $0.125 per million read request units, Standard storage $0.25 per GB-month; SQS standard $0.40 per million requests (each 64 KB of payload one request); Lambda $0.20 per million requests plus $0.0000133334 per GB-second on arm64; API requests **at the default entry, a Lambda Function URL: no charge beyond the api function's invocation**, beside API Gateway's HTTP API $1.00 per million requests (each 512 KB one request, \`apiType: 'http'\`) and REST API $3.50 per million (\`apiType: 'rest'\`); EventBridge $1.00 per million custom events plus $0.20 per million API destination invocations. The all-in figures add: CloudWatch Logs $0.50 per GB ingested and $0.03 per GB-month stored; X-Ray $5.00 per million traces recorded; KMS $0.03 per 10,000 requests; DynamoDB point-in-time recovery $0.20 per GB-month; S3 $0.005 per 1,000 PUTs, $0.0004 per 1,000 GETs, $0.023 per GB-month (Standard) and $0.004 (Glacier Instant Retrieval); NAT gateway $0.045 per hour and per GB.`;
