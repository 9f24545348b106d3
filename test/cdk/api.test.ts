import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { DEFAULT_API_THROTTLING } from '../../lib/constructs/api.ts';
import { HooklineStack } from '../../lib/hookline-stack.ts';
import { findTopologyResource } from '../../lib/topology-metadata.ts';
import { TEST_ENV, defaultHookline, resourcesOfType, testApp } from './helpers/synth.ts';
import { allowedActionsOn } from './helpers/template.ts';

const { template, json } = defaultHookline();
const apiFn = findTopologyResource(json, 'function/api').logicalId;
const authorizerFn = findTopologyResource(json, 'function/authorizer').logicalId;
const restApiId = resourcesOfType(json, 'AWS::ApiGateway::RestApi')[0]![0];

/** The path of an AWS::ApiGateway::Resource, rebuilt from its parents. */
function pathOf(resourceId: string): string {
  const r = json.Resources[resourceId]!.Properties!;
  const parent = r.ParentId as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
  const prefix = parent.Ref ? pathOf(parent.Ref) : '';
  return `${prefix}/${r.PathPart as string}`;
}
function methodsByPath() {
  return Object.fromEntries(
    resourcesOfType(json, 'AWS::ApiGateway::Method').map(([, m]) => {
      const resource = m.Properties!.ResourceId as { Ref?: string };
      return [`${m.Properties!.HttpMethod as string} ${resource.Ref ? pathOf(resource.Ref) : '/'}`, m.Properties!];
    }),
  );
}

describe('API Gateway REST API (bearer auth, the default)', () => {
  test('a regional REST API', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { EndpointConfiguration: { Types: ['REGIONAL'] } });
  });

  test('routes: ANY /v1/{proxy+} behind the authorizer, GET /health open, nothing else', () => {
    const methods = methodsByPath();
    assert.deepEqual(Object.keys(methods).sort(), ['ANY /v1/{proxy+}', 'GET /health']);
    const authorizerId = resourcesOfType(json, 'AWS::ApiGateway::Authorizer')[0]![0];
    assert.equal(methods['ANY /v1/{proxy+}']!.AuthorizationType, 'CUSTOM');
    assert.deepEqual(methods['ANY /v1/{proxy+}']!.AuthorizerId, { Ref: authorizerId });
    assert.equal(methods['GET /health']!.AuthorizationType, 'NONE');
    assert.equal(methods['GET /health']!.AuthorizerId, undefined);
  });

  test('both routes are Lambda proxy integrations to the api function', () => {
    for (const method of Object.values(methodsByPath())) {
      const integration = method.Integration as { Type: string; IntegrationHttpMethod: string; Uri: unknown };
      assert.equal(integration.Type, 'AWS_PROXY');
      assert.equal(integration.IntegrationHttpMethod, 'POST');
      assert.match(JSON.stringify(integration.Uri), new RegExp(`"${apiFn}","Arn"`));
    }
  });

  test('a TOKEN authorizer backed by the authorizer function reads the Authorization header', () => {
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'TOKEN',
      IdentitySource: 'method.request.header.Authorization',
      RestApiId: { Ref: restApiId },
    });
    const authorizer = resourcesOfType(json, 'AWS::ApiGateway::Authorizer')[0]![1];
    assert.match(JSON.stringify(authorizer.Properties!.AuthorizerUri), new RegExp(`"${authorizerFn}","Arn"`));
  });

  test('authorizer decisions are cached for 30 s, so a revoked or expired tenant key stops working within 60 s', () => {
    const authorizer = resourcesOfType(json, 'AWS::ApiGateway::Authorizer')[0]![1];
    assert.equal(authorizer.Properties!.AuthorizerResultTtlInSeconds, 30);
  });

  test('API Gateway may invoke the api and authorizer functions, scoped to this API', () => {
    for (const fn of [apiFn, authorizerFn]) {
      template.hasResourceProperties('AWS::Lambda::Permission', {
        Action: 'lambda:InvokeFunction',
        Principal: 'apigateway.amazonaws.com',
        FunctionName: { 'Fn::GetAtt': [fn, 'Arn'] },
        SourceArn: Match.objectLike({ 'Fn::Join': Match.arrayWith([Match.arrayWith([{ Ref: restApiId }])]) }),
      });
    }
  });

  test('stage throttling: the default rate and burst on every method', () => {
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: Match.arrayWith([
        Match.objectLike({ HttpMethod: '*', ResourcePath: '/*', ThrottlingRateLimit: DEFAULT_API_THROTTLING.rateLimit, ThrottlingBurstLimit: DEFAULT_API_THROTTLING.burstLimit }),
      ]),
    });
  });

  test('JSON access logs go to a log group with a retention; execution logs carry errors but never bodies', () => {
    const stage = resourcesOfType(json, 'AWS::ApiGateway::Stage')[0]![1].Properties!;
    const access = stage.AccessLogSetting as { DestinationArn: unknown; Format: string };
    const parsed = JSON.parse(access.Format) as Record<string, string>;
    assert.equal(parsed.requestId, '$context.requestId');
    assert.equal(parsed.status, '$context.status');
    const logGroupIds = resourcesOfType(json, 'AWS::Logs::LogGroup').map(([id]) => id);
    const target = logGroupIds.find((id) => JSON.stringify(access.DestinationArn).includes(`"${id}"`));
    assert.ok(target, 'access logs target a log group of this stack');
    assert.equal(typeof json.Resources[target]!.Properties!.RetentionInDays, 'number');
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      TracingEnabled: true,
      MethodSettings: Match.arrayWith([Match.objectLike({ LoggingLevel: 'ERROR', DataTraceEnabled: false, MetricsEnabled: true })]),
    });
  });

  test('API Gateway gets the account-level role it needs to write those logs', () => {
    template.resourceCountIs('AWS::ApiGateway::Account', 1);
    template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: { Statement: [Match.objectLike({ Principal: { Service: 'apigateway.amazonaws.com' } })] },
    });
  });

  test('the admin key is generated by Secrets Manager: no secret value anywhere in the template', () => {
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: Match.objectLike({ PasswordLength: 48, ExcludePunctuation: true }),
    });
    const raw = JSON.stringify(json);
    assert.ok(!raw.includes('"SecretString"'), 'a SecretString property would put the key in the template');
    assert.ok(!/Bearer [A-Za-z0-9]{16,}/.test(raw));
  });

  test('the authorizer gets the secret ARN as HOOKLINE_ADMIN_KEY_SECRET_ID and may read it', () => {
    const secretId = resourcesOfType(json, 'AWS::SecretsManager::Secret')[0]![0];
    const env = (findTopologyResource(json, 'function/authorizer').properties.Environment as { Variables: Record<string, unknown> }).Variables;
    assert.deepEqual(env.HOOKLINE_ADMIN_KEY_SECRET_ID, { Ref: secretId });
    const actions = allowedActionsOn(json, 'authorizer', secretId);
    assert.ok(actions.has('secretsmanager:GetSecretValue'));
    for (const fn of ['api', 'ingest', 'sender', 'sweeper'] as const) assert.equal(allowedActionsOn(json, fn, secretId).size, 0, `${fn} reads the key`);
  });

  test("errors API Gateway answers itself use Hookline's {error: {code, message}} shape", () => {
    for (const [type, code, status] of [
      ['UNAUTHORIZED', 'unauthorized', '401'],
      ['ACCESS_DENIED', 'forbidden', '403'],
      ['MISSING_AUTHENTICATION_TOKEN', 'not_found', '404'],
      ['THROTTLED', 'rate_limited', '429'],
      ['DEFAULT_4XX', 'invalid_request', undefined],
      ['DEFAULT_5XX', 'internal', undefined],
    ] as const) {
      template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: type,
        StatusCode: status ?? Match.absent(),
        ResponseTemplates: { 'application/json': `{"error":{"code":"${code}","message":$context.error.messageString}}` },
      });
    }
  });
});

describe('API Gateway with IAM auth and custom throttling', () => {
  const app = testApp();
  const stack = new HooklineStack(app, 'HooklineIam', { env: TEST_ENV, delivery: { apiAuth: 'iam', apiThrottling: { rateLimit: 50, burstLimit: 80 } } });
  const caller = new iam.Role(stack, 'Caller', { assumedBy: new iam.AccountRootPrincipal() });
  stack.delivery.grantInvokeApi(caller);
  const t = Template.fromStack(stack);

  test('no authorizer, no authorizer function, no admin key', () => {
    t.resourceCountIs('AWS::ApiGateway::Authorizer', 0);
    t.resourceCountIs('AWS::SecretsManager::Secret', 0);
    // api, ingest, sender, sweeper, replay, archiver: everything but the authorizer.
    t.resourceCountIs('AWS::Lambda::Function', 6);
    assert.equal(stack.delivery.functions.authorizer, undefined);
    assert.throws(() => stack.delivery.grantReadAdminKey(caller), /no admin key/);
  });

  test('/v1 requires SigV4; /health stays open', () => {
    t.hasResourceProperties('AWS::ApiGateway::Method', { HttpMethod: 'ANY', AuthorizationType: 'AWS_IAM' });
    t.hasResourceProperties('AWS::ApiGateway::Method', { HttpMethod: 'GET', AuthorizationType: 'NONE' });
  });

  test('grantInvokeApi allows execute-api:Invoke on this API stage', () => {
    t.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: stack.getLogicalId(caller.node.defaultChild as iam.CfnRole) }],
      PolicyDocument: { Statement: [Match.objectLike({ Action: 'execute-api:Invoke', Effect: 'Allow' })] },
    });
  });

  test('stage throttling follows the prop', () => {
    t.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: Match.arrayWith([Match.objectLike({ ThrottlingRateLimit: 50, ThrottlingBurstLimit: 80 })]),
    });
  });
});
