import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { DeadLetterAlarmPreset } from './constructs/alarms.ts';
import { API_TYPES, DEFAULT_API_THROTTLING, type ApiAuth } from './constructs/api.ts';
import { InvalidPropError } from './errors.ts';
import { EVENT_TYPE_CHECKS, type EventTypeCheck } from '../lambdas/domain/event-type-catalog.ts';
import type { WebhookDeliveryProps } from './webhook-delivery.ts';
import {
  API_ACCESS_LOG_FORMATS,
  POINT_IN_TIME_RECOVERY,
  type ApiAccessLogFormat,
  type LogLevelName,
  type PlatformLogLevelName,
  type PointInTimeRecovery,
} from '../lambdas/config/topology.ts';

/**
 * The `-c key=value` context keys bin/hookline.ts understands. Values arrive as strings
 * from the command line and as JSON values from cdk.json; both are accepted.
 */
export const CONTEXT_KEYS = [
  'stackName',
  'onCallEmail',
  'alarmPreset',
  'dlqAlarmThreshold',
  'dlqAlarmPeriodMinutes',
  'dlqAlarmEvaluationPeriods',
  'apiType',
  'apiAuth',
  'apiRateLimit',
  'apiBurstLimit',
  'webAclArn',
  'createApiGatewayCloudWatchRole',
  'senderMaxConcurrency',
  'senderSlowLaneMaxConcurrency',
  'senderSlowAfterMs',
  'reservedConcurrency',
  'senderTimeoutMs',
  'logRetentionDays',
  'retryPolicy',
  'deliveredRetentionDays',
  'deadLetterRetentionDays',
  'archiveExpireDays',
  'archiveDelivered',
  'tracing',
  'logLevel',
  'platformLogLevel',
  'apiAccessLog',
  'pointInTimeRecovery',
  'secretsCacheTtlSeconds',
  'removalPolicy',
  'staticEgressNatGateways',
  'deliveryQueueMaxAgeMinutes',
  'apiServerErrorPercent',
  'noticeEmailIdentity',
  'noticeFromAddress',
  'noticeSupportEmail',
  'noticeConsoleUrl',
  'eventTypeCheck',
] as const;
export type ContextKey = (typeof CONTEXT_KEYS)[number];

export interface AppSettings {
  readonly stackName: string;
  readonly delivery: WebhookDeliveryProps;
}

/** Reads every Hookline context key once through `get` (usually `app.node.tryGetContext`). */
export function settingsFromContext(get: (key: ContextKey) => unknown): AppSettings {
  const str = (key: ContextKey): string | undefined => {
    const value = get(key);
    if (value === undefined || value === null || value === '') return undefined;
    return String(value);
  };
  const num = (key: ContextKey): number | undefined => {
    const value = str(key);
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!Number.isFinite(n)) throw new InvalidPropError(`context ${key}`, `must be a number, got '${value}'`);
    return n;
  };
  const bool = (key: ContextKey): boolean | undefined => {
    const value = str(key);
    if (value === undefined) return undefined;
    if (value === 'true') return true;
    if (value === 'false') return false;
    throw new InvalidPropError(`context ${key}`, `must be true or false, got '${value}'`);
  };
  const oneOf = <T extends string>(key: ContextKey, allowed: readonly T[]): T | undefined => {
    const value = str(key);
    if (value === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(value))
      throw new InvalidPropError(`context ${key}`, `must be one of ${allowed.join(', ')}, got '${value}'`);
    return value as T;
  };

  const logRetentionDays = num('logRetentionDays');
  if (logRetentionDays !== undefined && !(Object.values(RetentionDays) as unknown[]).includes(logRetentionDays)) {
    throw new InvalidPropError(
      'context logRetentionDays',
      `must be a CloudWatch Logs retention (1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, ...), got ${logRetentionDays}`,
    );
  }
  // A JSON object: a string from the command line, already parsed from cdk.json. WebhookDelivery validates its fields.
  const json = <T>(key: ContextKey): T | undefined => {
    let value = get(key);
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value === 'string') {
      try {
        value = JSON.parse(value);
      } catch (error) {
        throw new InvalidPropError(`context ${key}`, 'must be a JSON object', { cause: error });
      }
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new InvalidPropError(`context ${key}`, `must be a JSON object, got ${JSON.stringify(value)}`);
    return value as T;
  };
  const retryPolicy = json<WebhookDeliveryProps['retryPolicy']>('retryPolicy');
  const period = num('dlqAlarmPeriodMinutes');
  const senderTimeoutMs = num('senderTimeoutMs');
  const senderSlowAfterMs = num('senderSlowAfterMs');
  const rateLimit = num('apiRateLimit');
  const burstLimit = num('apiBurstLimit');
  const removal = oneOf('removalPolicy', ['retain', 'destroy'] as const);
  const natGateways = num('staticEgressNatGateways');
  const secretsCacheTtlSeconds = num('secretsCacheTtlSeconds');
  const maxAgeMinutes = num('deliveryQueueMaxAgeMinutes');

  return {
    stackName: str('stackName') ?? 'Hookline',
    delivery: {
      onCallEmail: str('onCallEmail'),
      deadLetterAlarm: {
        preset: oneOf<DeadLetterAlarmPreset>('alarmPreset', ['default', 'low-volume']),
        threshold: num('dlqAlarmThreshold'),
        period: period === undefined ? undefined : Duration.minutes(period),
        evaluationPeriods: num('dlqAlarmEvaluationPeriods'),
      },
      apiType: oneOf('apiType', API_TYPES),
      apiAuth: oneOf<ApiAuth>('apiAuth', ['bearer', 'iam']),
      apiThrottling:
        rateLimit === undefined && burstLimit === undefined
          ? undefined
          : {
              rateLimit: rateLimit ?? DEFAULT_API_THROTTLING.rateLimit,
              burstLimit: burstLimit ?? Math.max(DEFAULT_API_THROTTLING.burstLimit, Math.ceil(rateLimit ?? 0)),
            },
      webAclArn: str('webAclArn'),
      createApiGatewayCloudWatchRole: bool('createApiGatewayCloudWatchRole'),
      senderMaxConcurrency: num('senderMaxConcurrency'),
      senderSlowLaneMaxConcurrency: num('senderSlowLaneMaxConcurrency'),
      senderSlowAfter: senderSlowAfterMs === undefined ? undefined : Duration.millis(senderSlowAfterMs),
      reservedConcurrency: json<WebhookDeliveryProps['reservedConcurrency']>('reservedConcurrency'),
      senderTimeout: senderTimeoutMs === undefined ? undefined : Duration.millis(senderTimeoutMs),
      logRetention: logRetentionDays as RetentionDays | undefined,
      retryPolicy,
      retention: {
        deliveredDays: num('deliveredRetentionDays'),
        deadLetterDays: num('deadLetterRetentionDays'),
        archiveExpireAfterDays: num('archiveExpireDays'),
        archiveDelivered: bool('archiveDelivered'),
      },
      tracing: bool('tracing'),
      logLevel: oneOf<LogLevelName>('logLevel', ['DEBUG', 'INFO', 'WARN', 'ERROR']),
      platformLogLevel: oneOf<PlatformLogLevelName>('platformLogLevel', ['DEBUG', 'INFO', 'WARN']),
      apiAccessLog: oneOf<ApiAccessLogFormat>(
        'apiAccessLog',
        Object.keys(API_ACCESS_LOG_FORMATS) as ApiAccessLogFormat[],
      ),
      pointInTimeRecovery: oneOf<PointInTimeRecovery>('pointInTimeRecovery', POINT_IN_TIME_RECOVERY),
      secretsCacheTtl: secretsCacheTtlSeconds === undefined ? undefined : Duration.seconds(secretsCacheTtlSeconds),
      staticEgress: natGateways === undefined ? undefined : { natGateways },
      deliveryQueueMaxAge: maxAgeMinutes === undefined ? undefined : Duration.minutes(maxAgeMinutes),
      apiServerErrorPercent: num('apiServerErrorPercent'),
      eventTypeCheck: oneOf<EventTypeCheck>('eventTypeCheck', EVENT_TYPE_CHECKS),
      notices: {
        emailIdentity: str('noticeEmailIdentity'),
        fromAddress: str('noticeFromAddress'),
        supportEmail: str('noticeSupportEmail'),
        consoleUrl: str('noticeConsoleUrl'),
      },
      removalPolicy:
        removal === 'destroy' ? RemovalPolicy.DESTROY : removal === 'retain' ? RemovalPolicy.RETAIN : undefined,
    },
  };
}
