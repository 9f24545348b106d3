import { Logger, type LogItem } from '@aws-lambda-powertools/logger';
import { COMMON_ENVIRONMENT, OBSERVABILITY_DEFAULTS } from '#config/topology.ts';

/** What the handlers logged while the meter ran: lines and bytes as CloudWatch Logs would ingest them. */
export interface LogUsage {
  readonly lines: number;
  readonly bytes: number;
}

/**
 * Characters a deployed function's record carries beyond a local one. The local context names a
 * function `hookline-local-sender`; CDK names it `<stack>-<construct path><hash>-<suffix>`, about
 * 60 characters, and the record carries the name twice (function_name, function_arn): about 80
 * more bytes, plus `xray_trace_id` (about 55 bytes) when tracing is on. Modelled, not measured.
 */
export const DEPLOYED_NAME_EXTRA_BYTES = 80;
export const XRAY_TRACE_ID_BYTES = 55;

/**
 * The Powertools logger the handlers get, at the stack's default level
 * (OBSERVABILITY_DEFAULTS.logLevel), printing nothing: each record is serialised as the
 * JSON line Lambda would send to CloudWatch Logs and only counted.
 */
export class LogMeter extends Logger {
  private usage = { lines: 0, bytes: 0 };

  constructor(logLevel: string = OBSERVABILITY_DEFAULTS.logLevel) {
    super({ serviceName: COMMON_ENVIRONMENT.POWERTOOLS_SERVICE_NAME, logLevel: logLevel as 'INFO' });
  }

  protected override printLog(_logLevel: number, log: LogItem): void {
    log.prepareForPrint();
    this.usage.lines++;
    this.usage.bytes += Buffer.byteLength(`${JSON.stringify(log.getAttributes())}\n`);
  }

  reset(): LogUsage {
    const previous = this.usage;
    this.usage = { lines: 0, bytes: 0 };
    return previous;
  }
}
