import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { DEFAULT_API_THROTTLING, HooklineApi } from '../../lib/constructs/api.ts';
import { HooklineQueues } from '../../lib/constructs/queues.ts';
import { HooklineStorage } from '../../lib/constructs/storage.ts';
import { InvalidPropError } from '../../lib/errors.ts';
import { HooklineStack } from '../../lib/hookline-stack.ts';
import { findTopologyResource, type TemplateJson } from '../../lib/topology-metadata.ts';
import { API_ACCESS_LOG_FORMATS, PUBLIC_API_ROUTES } from '../../lambdas/config/topology.ts';
import { DASHBOARD_FILES } from '../../lambdas/ports/dashboard-assets.ts';
import {
  TEST_ENV,
  bareStack,
  defaultHookline,
  gatewayHookline,
  resourcesOfType,
  synthHookline,
  testApp,
} from './helpers/synth.ts';
import { allowedActionsOn } from './helpers/template.ts';

const WEB_ACL = 'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/hooks/abc';

/** Routes of an HTTP API template by route key. */
/** Every route PUBLIC_API_ROUTES opens, as `METHOD /path`. */
const OPEN_ROUTES = PUBLIC_API_ROUTES.map((r) => `${r.method} ${r.path}`);

function routesOf(json: TemplateJson) {
  return Object.fromEntries(
    resourcesOfType(json, 'AWS::ApiGatewayV2::Route').map(([, r]) => [r.Properties!.RouteKey as string, r.Properties!]),
  );
}

/** Each function may be invoked by API Gateway, and only from the API with this logical id. */
function assertInvokedOnlyBy(template: Template, functionIds: readonly string[], apiId: string): void {
  for (const fn of functionIds) {
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: 'apigateway.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [fn, 'Arn'] },
      SourceArn: Match.objectLike({ 'Fn::Join': Match.arrayWith([Match.arrayWith([{ Ref: apiId }])]) }),
    });
  }
}

/** `ApiServerErrors` is a metric-math alarm over the entry's request count and its 5xx, of one API. */
function assertServerErrorsDivide(
  template: Template,
  namespace: string,
  dimension: { Name: string; Value: unknown },
  names: readonly [count: string, errors: string],
): void {
  const metric = (name: string) =>
    Match.objectLike({
      MetricStat: Match.objectLike({ Metric: { Namespace: namespace, MetricName: name, Dimensions: [dimension] } }),
    });
  template.hasResourceProperties('AWS::CloudWatch::Alarm', {
    AlarmName: 'Hookline-ApiServerErrors',
    Metrics: Match.arrayWith(names.map(metric)),
  });
}

describe('the Function URL (the default entry, bearer auth)', () => {
  const { template, json, outdir } = defaultHookline();
  const apiFn = findTopologyResource(json, 'function/api').logicalId;
  const urlId = resourcesOfType(json, 'AWS::Lambda::Url')[0]![0];
  const apiEnv = () =>
    (findTopologyResource(json, 'function/api').properties.Environment as { Variables: Record<string, unknown> })
      .Variables;

  test("one URL, the api function's own, open to the internet (the api checks keys itself), buffered", () => {
    template.resourceCountIs('AWS::Lambda::Url', 1);
    template.hasResourceProperties('AWS::Lambda::Url', {
      TargetFunctionArn: { 'Fn::GetAtt': [apiFn, 'Arn'] },
      AuthType: 'NONE',
      InvokeMode: 'BUFFERED',
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunctionUrl',
      Principal: '*',
      FunctionName: { 'Fn::GetAtt': [apiFn, 'Arn'] },
      FunctionUrlAuthType: 'NONE',
    });
  });

  test('no API Gateway at all: no API, stage, authorizer, access log group or authorizer function', () => {
    for (const type of [
      'AWS::ApiGatewayV2::Api',
      'AWS::ApiGatewayV2::Stage',
      'AWS::ApiGatewayV2::Authorizer',
      'AWS::ApiGateway::RestApi',
      'AWS::ApiGateway::Account',
    ])
      template.resourceCountIs(type, 0);
    assert.throws(() => findTopologyResource(json, 'function/authorizer'), /found 0/);
    template.resourcePropertiesCountIs('AWS::Lambda::Permission', { Principal: 'apigateway.amazonaws.com' }, 0);
  });

  test('the api gets the admin key secret and the grant cache (30 s), and may read the key', () => {
    const secretId = resourcesOfType(json, 'AWS::SecretsManager::Secret')[0]![0];
    assert.deepEqual(apiEnv().HOOKLINE_API_ADMIN_KEY_SECRET_ID, { Ref: secretId });
    assert.equal(apiEnv().HOOKLINE_AUTH_CACHE_SECONDS, '30');
    assert.ok(allowedActionsOn(json, 'api', secretId).has('secretsmanager:GetSecretValue'));
    for (const fn of ['ingest', 'sender', 'sweeper', 'replay', 'archiver', 'notifier'] as const)
      assert.equal(allowedActionsOn(json, fn, secretId).size, 0, `${fn} reads the key`);
  });

  test('ApiUrl is the Function URL, ConsoleUrl the dashboard under it', () => {
    assert.deepEqual(json.Outputs!.ApiUrl!.Value, { 'Fn::GetAtt': [urlId, 'FunctionUrl'] });
    const value = JSON.stringify(json.Outputs!.ConsoleUrl!.Value);
    assert.match(value, new RegExp(`"${urlId}","FunctionUrl"`));
    assert.match(value, /dashboard"/);
  });

  test("ApiServerErrors divides the URL's 5xx by its requests (Lambda's Url metrics of the api function)", () => {
    assertServerErrorsDivide(template, 'AWS/Lambda', { Name: 'FunctionName', Value: { Ref: apiFn } }, [
      'UrlRequestCount',
      'Url5xxCount',
    ]);
  });

  test("the api function's bundle carries the web dashboard's files beside index.mjs, where the handler reads them; no other function's does", () => {
    const dirOf = (key: 'api' | 'sender') => {
      const assetPath = findTopologyResource(json, `function/${key}`).resource.Metadata?.['aws:asset:path'] as string;
      return path.isAbsolute(assetPath) ? assetPath : path.join(outdir, assetPath);
    };
    for (const file of DASHBOARD_FILES) assert.ok(existsSync(path.join(dirOf('api'), 'dashboard', file)), file);
    const html = readFileSync(path.join(dirOf('api'), 'dashboard', 'index.html'), 'utf8');
    assert.match(html, /<script type="module" src="dashboard\/app\.js"><\/script>/);
    assert.doesNotMatch(html, /<script>(?!<)/, 'no inline script for the CSP to refuse');
    assert.ok(
      readFileSync(path.join(dirOf('api'), 'dashboard', 'app.js'), 'utf8').length > 10_000,
      'the bundled front end',
    );
    assert.equal(existsSync(path.join(dirOf('sender'), 'dashboard')), false);
  });
});

describe("API Gateway HTTP API (apiType: 'http', bearer auth)", () => {
  const { template, json } = gatewayHookline();
  const apiFn = findTopologyResource(json, 'function/api').logicalId;
  const authorizerFn = findTopologyResource(json, 'function/authorizer').logicalId;
  const httpApiId = resourcesOfType(json, 'AWS::ApiGatewayV2::Api')[0]![0];

  test('ConsoleUrl: the dashboard under the API URL', () => {
    const value = JSON.stringify(json.Outputs!.ConsoleUrl!.Value);
    assert.match(value, new RegExp(`"${httpApiId}"`));
    assert.match(value, /dashboard"/);
    assert.match(
      (json.Outputs!.ConsoleUrl as { Description?: string }).Description ?? '',
      /operator console .* customer portal/,
    );
  });

  test('one HTTP API and no REST API, no WAF association, no account-level CloudWatch role', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', { ProtocolType: 'HTTP' });
    for (const type of ['AWS::ApiGateway::RestApi', 'AWS::ApiGateway::Account', 'AWS::WAFv2::WebACLAssociation'])
      template.resourceCountIs(type, 0);
  });

  test('routes: ANY /v1/{proxy+} behind the authorizer; the open routes of PUBLIC_API_ROUTES (health, openapi.json, the dashboard files, the portal code exchange) open; nothing else', () => {
    const routes = routesOf(json);
    assert.deepEqual(Object.keys(routes).sort(), ['ANY /v1/{proxy+}', ...OPEN_ROUTES].sort());
    for (const open of OPEN_ROUTES) assert.equal(routes[open]!.AuthorizationType, 'NONE', open);
    const authorizerId = resourcesOfType(json, 'AWS::ApiGatewayV2::Authorizer')[0]![0];
    assert.equal(routes['ANY /v1/{proxy+}']!.AuthorizationType, 'CUSTOM');
    assert.deepEqual(routes['ANY /v1/{proxy+}']!.AuthorizerId, { Ref: authorizerId });
    assert.equal(routes['GET /health']!.AuthorizationType, 'NONE');
    assert.equal(routes['GET /health']!.AuthorizerId, undefined);
  });

  test('both routes target one Lambda proxy integration to the api function, payload format 2.0', () => {
    const integrations = resourcesOfType(json, 'AWS::ApiGatewayV2::Integration');
    assert.equal(integrations.length, 1);
    const [integrationId, integration] = integrations[0]!;
    assert.equal(integration.Properties!.IntegrationType, 'AWS_PROXY');
    assert.equal(integration.Properties!.PayloadFormatVersion, '2.0');
    assert.deepEqual(integration.Properties!.IntegrationUri, { 'Fn::GetAtt': [apiFn, 'Arn'] });
    for (const route of Object.values(routesOf(json)))
      assert.deepEqual(route.Target, { 'Fn::Join': ['', ['integrations/', { Ref: integrationId }]] });
  });

  test('a REQUEST authorizer with simple responses reads the Authorization header and caches decisions for 30 s', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      ApiId: { Ref: httpApiId },
      AuthorizerType: 'REQUEST',
      AuthorizerPayloadFormatVersion: '2.0',
      EnableSimpleResponses: true,
      IdentitySource: ['$request.header.Authorization'],
      AuthorizerResultTtlInSeconds: 30,
    });
    const authorizer = resourcesOfType(json, 'AWS::ApiGatewayV2::Authorizer')[0]![1];
    assert.match(JSON.stringify(authorizer.Properties!.AuthorizerUri), new RegExp(`"${authorizerFn}","Arn"`));
  });

  test('API Gateway may invoke the api and authorizer functions, scoped to this API', () => {
    assertInvokedOnlyBy(template, [apiFn, authorizerFn], httpApiId);
  });

  test('the $default stage deploys itself, throttles at the default rate and burst, and keeps detailed metrics', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Stage', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      ApiId: { Ref: httpApiId },
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: {
        ThrottlingRateLimit: DEFAULT_API_THROTTLING.rateLimit,
        ThrottlingBurstLimit: DEFAULT_API_THROTTLING.burstLimit,
        DetailedMetricsEnabled: true,
      },
    });
  });

  test('JSON access logs, with the authorizer and integration errors REST keeps in execution logs, go to a log group with a retention', () => {
    const stage = resourcesOfType(json, 'AWS::ApiGatewayV2::Stage')[0]![1].Properties!;
    const access = stage.AccessLogSettings as { DestinationArn: unknown; Format: string };
    const parsed = JSON.parse(access.Format) as Record<string, string>;
    assert.equal(parsed.requestId, '$context.requestId');
    assert.equal(parsed.status, '$context.status');
    assert.equal(parsed.routeKey, '$context.routeKey');
    assert.equal(parsed.authorizerError, '$context.authorizer.error');
    assert.equal(parsed.integrationError, '$context.integrationErrorMessage');
    const target = resourcesOfType(json, 'AWS::Logs::LogGroup')
      .map(([id]) => id)
      .find((id) => JSON.stringify(access.DestinationArn).includes(`"${id}"`));
    assert.ok(target, 'access logs target a log group of this stack');
    assert.equal(typeof json.Resources[target]!.Properties!.RetentionInDays, 'number');
  });

  test('the access log record is lean by default, and the REST standard fields with apiAccessLog: standard', () => {
    const format = (j: typeof json) =>
      Object.keys(
        JSON.parse(
          (resourcesOfType(j, 'AWS::ApiGatewayV2::Stage')[0]![1].Properties!.AccessLogSettings as { Format: string })
            .Format,
        ) as object,
      );
    assert.deepEqual(format(json), Object.keys(API_ACCESS_LOG_FORMATS.lean));
    assert.ok(!format(json).includes('httpMethod'));
    const standard = synthHookline({ apiType: 'http', apiAccessLog: 'standard' }, 'HooklineStandardLog').json;
    assert.deepEqual(format(standard), Object.keys(API_ACCESS_LOG_FORMATS.standard));
  });

  test('ApiUrl is the root of the API endpoint: routes are not under a stage path', () => {
    assert.deepEqual(json.Outputs!.ApiUrl!.Value, {
      'Fn::Join': ['', ['https://', { Ref: httpApiId }, '.execute-api.eu-west-1.', { Ref: 'AWS::URLSuffix' }, '/']],
    });
  });

  test("ApiServerErrors divides the HTTP API's 5xx by its Count", () => {
    assertServerErrorsDivide(template, 'AWS/ApiGateway', { Name: 'ApiId', Value: { Ref: httpApiId } }, [
      'Count',
      '5xx',
    ]);
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
    const env = (
      findTopologyResource(json, 'function/authorizer').properties.Environment as { Variables: Record<string, unknown> }
    ).Variables;
    assert.deepEqual(env.HOOKLINE_ADMIN_KEY_SECRET_ID, { Ref: secretId });
    // Behind API Gateway the api trusts the authorizer's context: it has no key of its own to check against.
    const apiEnv = (
      findTopologyResource(json, 'function/api').properties.Environment as { Variables: Record<string, unknown> }
    ).Variables;
    assert.equal(apiEnv.HOOKLINE_API_ADMIN_KEY_SECRET_ID, 'none');
    const actions = allowedActionsOn(json, 'authorizer', secretId);
    assert.ok(actions.has('secretsmanager:GetSecretValue'));
    for (const fn of ['api', 'ingest', 'sender', 'sweeper'] as const)
      assert.equal(allowedActionsOn(json, fn, secretId).size, 0, `${fn} reads the key`);
  });
});

describe("API Gateway REST API (apiType: 'rest', bearer auth)", () => {
  const { template, json } = synthHookline({ apiType: 'rest' }, 'HooklineRest');
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

  test('a regional REST API and no HTTP API', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { EndpointConfiguration: { Types: ['REGIONAL'] } });
    template.resourceCountIs('AWS::ApiGatewayV2::Api', 0);
  });

  test('ApiUrl ends in the stage path', () => {
    assert.match(JSON.stringify(json.Outputs!.ApiUrl!.Value), new RegExp(`"${restApiId}".*DeploymentStageprod.*"/"`));
  });

  test("ApiServerErrors divides the REST API's 5XXError by its Count", () => {
    const metric = (name: string) =>
      Match.objectLike({
        MetricStat: Match.objectLike({ Metric: Match.objectLike({ Namespace: 'AWS/ApiGateway', MetricName: name }) }),
      });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'HooklineRest-ApiServerErrors',
      Metrics: Match.arrayWith([metric('Count'), metric('5XXError')]),
    });
  });

  test('routes: ANY /v1/{proxy+} behind the authorizer; the open routes of PUBLIC_API_ROUTES open (a static /v1/portal-sessions/exchange beside the proxy); nothing else', () => {
    const methods = methodsByPath();
    assert.deepEqual(Object.keys(methods).sort(), ['ANY /v1/{proxy+}', ...OPEN_ROUTES].sort());
    for (const open of OPEN_ROUTES) assert.equal(methods[open]!.AuthorizationType, 'NONE', open);
    // One /v1 resource holds both the proxy and the open exchange route.
    assert.equal(
      resourcesOfType(json, 'AWS::ApiGateway::Resource').filter(([, r]) => r.Properties!.PathPart === 'v1').length,
      1,
    );
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
    assertInvokedOnlyBy(template, [apiFn, authorizerFn], restApiId);
  });

  test('stage throttling: the default rate and burst on every method', () => {
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: Match.arrayWith([
        Match.objectLike({
          HttpMethod: '*',
          ResourcePath: '/*',
          ThrottlingRateLimit: DEFAULT_API_THROTTLING.rateLimit,
          ThrottlingBurstLimit: DEFAULT_API_THROTTLING.burstLimit,
        }),
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
      // Stage tracing follows the functions' (off by default).
      TracingEnabled: false,
      MethodSettings: Match.arrayWith([
        Match.objectLike({ LoggingLevel: 'ERROR', DataTraceEnabled: false, MetricsEnabled: true }),
      ]),
    });
  });

  test('API Gateway gets the account-level role it needs to write those logs', () => {
    template.resourceCountIs('AWS::ApiGateway::Account', 1);
    template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [Match.objectLike({ Principal: { Service: 'apigateway.amazonaws.com' } })],
      },
    });
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
        ResponseTemplates: {
          'application/json': `{"error":{"code":"${code}","message":$context.error.messageString}}`,
        },
      });
    }
  });
});

describe('HTTP API with IAM auth and custom throttling', () => {
  const app = testApp();
  const stack = new HooklineStack(app, 'HooklineIam', {
    env: TEST_ENV,
    delivery: { apiType: 'http', apiAuth: 'iam', apiThrottling: { rateLimit: 50, burstLimit: 80 } },
  });
  const caller = new iam.Role(stack, 'Caller', { assumedBy: new iam.AccountRootPrincipal() });
  stack.delivery.grantInvokeApi(caller);
  const t = Template.fromStack(stack);
  const json = t.toJSON() as TemplateJson;
  const httpApiId = resourcesOfType(json, 'AWS::ApiGatewayV2::Api')[0]![0];

  test('no authorizer, no authorizer function, no admin key', () => {
    t.resourceCountIs('AWS::ApiGatewayV2::Authorizer', 0);
    t.resourceCountIs('AWS::SecretsManager::Secret', 0);
    // api, ingest, sender, sweeper, replay, archiver, notifier: everything but the authorizer.
    t.resourceCountIs('AWS::Lambda::Function', 7);
    assert.equal(stack.delivery.functions.authorizer, undefined);
    assert.throws(() => stack.delivery.grantReadAdminKey(caller), /no admin key/);
  });

  test('/v1 requires SigV4; /health stays open', () => {
    const routes = routesOf(json);
    assert.equal(routes['ANY /v1/{proxy+}']!.AuthorizationType, 'AWS_IAM');
    assert.equal(routes['GET /health']!.AuthorizationType, 'NONE');
  });

  test('grantInvokeApi allows execute-api:Invoke on every route of the $default stage', () => {
    t.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: stack.getLogicalId(caller.node.defaultChild as iam.CfnRole) }],
      PolicyDocument: {
        Statement: [
          Match.objectLike({
            Action: 'execute-api:Invoke',
            Effect: 'Allow',
            Resource: {
              'Fn::Join': ['', ['arn:aws:execute-api:eu-west-1:123456789012:', { Ref: httpApiId }, '/$default/*/*']],
            },
          }),
        ],
      },
    });
  });

  test('the producer policy may POST /v1/events on the $default stage and nothing else of the API', () => {
    t.hasResourceProperties('AWS::IAM::ManagedPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Action: 'execute-api:Invoke',
            Effect: 'Allow',
            Resource: {
              'Fn::Join': [
                '',
                ['arn:aws:execute-api:eu-west-1:123456789012:', { Ref: httpApiId }, '/$default/POST/v1/events'],
              ],
            },
          },
        ]),
      },
    });
  });

  test('stage throttling follows the prop', () => {
    t.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: Match.objectLike({ ThrottlingRateLimit: 50, ThrottlingBurstLimit: 80 }),
    });
  });
});

describe('REST API with IAM auth, custom throttling and a WAF web ACL', () => {
  const app = testApp();
  const stack = new HooklineStack(app, 'HooklineRestIam', {
    env: TEST_ENV,
    delivery: { apiType: 'rest', apiAuth: 'iam', apiThrottling: { rateLimit: 50, burstLimit: 80 }, webAclArn: WEB_ACL },
  });
  const caller = new iam.Role(stack, 'Caller', { assumedBy: new iam.AccountRootPrincipal() });
  stack.delivery.grantInvokeApi(caller);
  const t = Template.fromStack(stack);

  test('no authorizer, no admin key', () => {
    t.resourceCountIs('AWS::ApiGateway::Authorizer', 0);
    t.resourceCountIs('AWS::SecretsManager::Secret', 0);
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

  test('the web ACL is associated with the stage', () => {
    t.hasResourceProperties('AWS::WAFv2::WebACLAssociation', { WebACLArn: WEB_ACL, ResourceArn: Match.anyValue() });
  });
});

describe('API type choices refused at synth time', () => {
  test("webAclArn without apiType: 'rest' says to choose it: WAF cannot attach to an HTTP API or a Function URL", () => {
    for (const apiType of [undefined, 'url', 'http'] as const) {
      assert.throws(
        () => new HooklineStack(testApp(), 'HooklineWaf', { env: TEST_ENV, delivery: { apiType, webAclArn: WEB_ACL } }),
        (e: unknown) =>
          e instanceof InvalidPropError &&
          e.prop === 'webAclArn' &&
          /apiType: 'rest'/.test(e.message) &&
          /WAF/.test(e.message),
      );
    }
  });

  /** A HooklineApi whose props are checked before anything is built. */
  const apiWith = (props: Partial<ConstructorParameters<typeof HooklineApi>[2]>) => {
    const stack = bareStack('Api');
    const shared = {
      storage: new HooklineStorage(stack, 'Storage'),
      environmentValues: {},
      deliveryQueue: new HooklineQueues(stack, 'Queues').delivery,
    };
    return () => new HooklineApi(stack, 'Api', { ...shared, ...props });
  };

  test('a stage name is REST-only: the HTTP API serves $default at its root', () => {
    assert.throws(
      apiWith({ apiType: 'http', stageName: 'v1' }),
      (e: unknown) => e instanceof InvalidPropError && e.prop === 'stageName' && /apiType: 'rest'/.test(e.message),
    );
  });

  test('what only API Gateway has is refused with the Function URL entry, naming the prop and what to use', () => {
    const cases = [
      [{ throttling: { rateLimit: 10, burstLimit: 20 } }, 'apiThrottling', /reservedConcurrency\.api/],
      [{ accessLogFormat: 'standard' }, 'apiAccessLog', /apiType 'http'/],
      [{ createCloudWatchRole: false }, 'createApiGatewayCloudWatchRole', /apiType 'rest'/],
      [{ stageName: 'v1' }, 'stageName', /Function URL/],
    ] as const;
    for (const [props, prop, message] of cases)
      for (const apiType of [undefined, 'url'] as const)
        assert.throws(
          apiWith({ apiType, ...props }),
          (e: unknown) => e instanceof InvalidPropError && e.prop === prop && message.test(e.message),
          prop,
        );
  });

  test('an unknown apiType is refused', () => {
    assert.throws(
      apiWith({ apiType: 'websocket' as never }),
      (e: unknown) => e instanceof InvalidPropError && e.prop === 'apiType',
    );
  });
});

describe('the Function URL with IAM auth', () => {
  const app = testApp({ 'aws:cdk:bundling-stacks': [] });
  const stack = new HooklineStack(app, 'HooklineUrlIam', { env: TEST_ENV, delivery: { apiAuth: 'iam' } });
  const caller = new iam.Role(stack, 'Caller', { assumedBy: new iam.AccountRootPrincipal() });
  stack.delivery.grantInvokeApi(caller);
  const t = Template.fromStack(stack);
  const json = t.toJSON() as TemplateJson;
  const apiFn = findTopologyResource(json, 'function/api').logicalId;

  test('AWS_IAM on the URL: Lambda checks the signature; no admin key, no key check in the api', () => {
    t.hasResourceProperties('AWS::Lambda::Url', { AuthType: 'AWS_IAM' });
    t.resourceCountIs('AWS::SecretsManager::Secret', 0);
    t.resourcePropertiesCountIs('AWS::Lambda::Permission', { Principal: '*' }, 0);
    const env = (
      findTopologyResource(json, 'function/api').properties.Environment as { Variables: Record<string, unknown> }
    ).Variables;
    assert.equal(env.HOOKLINE_API_ADMIN_KEY_SECRET_ID, 'none');
  });

  test('grantInvokeApi allows lambda:InvokeFunctionUrl on the api function', () => {
    t.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: Match.stringLikeRegexp('^Caller') }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Action: 'lambda:InvokeFunctionUrl', Resource: { 'Fn::GetAtt': [apiFn, 'Arn'] } }),
        ]),
      },
    });
  });

  test("the producer policy keeps to the ingest queue: a URL's IAM permission would be the whole API", () => {
    const producer = resourcesOfType(json, 'AWS::IAM::ManagedPolicy').find(([id]) => id.includes('ProducerPolicy'))!;
    const statements = (producer[1].Properties!.PolicyDocument as { Statement: { Action: string }[] }).Statement;
    assert.deepEqual(
      statements.map((s) => s.Action),
      ['sqs:SendMessage'],
    );
  });
});
