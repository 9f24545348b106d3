/**
 * Public AWS list prices, us-east-1, as of the date below. Benchmarks multiply measured request
 * counts by these; change them here and the next run uses them.
 */
export const PRICES = {
  asOf: '2026-05-01',
  region: 'us-east-1',
  dynamodbWriteRequestUnit: 0.625 / 1e6,
  dynamodbReadRequestUnit: 0.125 / 1e6,
  sqsRequest: 0.4 / 1e6,
  lambdaRequest: 0.2 / 1e6,
  lambdaArmGbSecond: 0.0000133334,
  apiGatewayRestRequest: 3.5 / 1e6,
  eventBridgeEvent: 1.0 / 1e6,
  eventBridgeApiDestinationInvocation: 0.2 / 1e6,
} as const;

export const PRICE_TABLE_MARKDOWN = `Prices (public list prices, ${PRICES.region}, as of ${PRICES.asOf}): DynamoDB on-demand $0.625 per million write request units and $0.125 per million read request units; SQS standard $0.40 per million requests; Lambda $0.20 per million requests plus $0.0000133334 per GB-second on arm64; API Gateway REST $3.50 per million requests; EventBridge $1.00 per million custom events plus $0.20 per million API destination invocations.`;
