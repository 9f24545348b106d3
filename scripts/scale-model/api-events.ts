import type { APIGatewayProxyEventV2 } from 'aws-lambda';

let requests = 0;

/** An HTTP API (payload 2.0) request as the API function receives it from the gateway, with the admin key's authorizer context. */
export function apiRequest(method: string, path: string, body?: unknown): APIGatewayProxyEventV2 {
  const now = Date.now();
  const routeKey = 'ANY /v1/{proxy+}';
  return {
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: '',
    headers: { 'content-type': 'application/json', host: 'api.model.example', 'x-forwarded-proto': 'https' },
    pathParameters: { proxy: path.slice('/v1/'.length) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'model',
      domainName: 'api.model.example',
      domainPrefix: 'api',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '203.0.113.1', userAgent: 'scale-model' },
      requestId: `req-${++requests}`,
      routeKey,
      stage: '$default',
      time: new Date(now).toISOString(),
      timeEpoch: now,
      authorizer: { lambda: { role: 'admin' } },
    },
  } as unknown as APIGatewayProxyEventV2;
}
