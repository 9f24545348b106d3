import { createHash, timingSafeEqual } from 'node:crypto';
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import type { KeySource } from '#ports/key-source.ts';
import { withObservability, type Observability } from './observability.ts';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Compares keys through fixed-length digests so timing says nothing about the key. */
export function keyMatches(offered: string, expected: string): boolean {
  return expected.length > 0 && timingSafeEqual(digest(offered), digest(expected));
}

/** "Unauthorized" is the message API Gateway turns into a 401. */
export const UNAUTHORIZED = 'Unauthorized';

/** API Gateway TOKEN authorizer: `Authorization: Bearer <key>` → principal with a role. */
export function createAuthorizerHandler(keys: KeySource, obs: Observability) {
  return withObservability(async (event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
    const match = /^Bearer ([\x21-\x7e]{1,512})$/.exec(event.authorizationToken ?? '');
    if (!match || !keyMatches(match[1]!, await keys.adminKey())) throw new Error(UNAUTHORIZED);
    // Allow every route of this stage so API Gateway's authorizer cache serves the next call.
    const [arnPrefix, stage] = event.methodArn.split('/');
    return {
      principalId: 'admin',
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: `${arnPrefix}/${stage}/*` }],
      },
      context: { role: 'admin' },
    };
  }, obs);
}
