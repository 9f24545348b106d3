import { Logger, LogLevelThreshold, type LogItem } from '@aws-lambda-powertools/logger';
import { COMMON_ENVIRONMENT } from '#config/topology.ts';
import { prettyLogLine } from './pretty-log.ts';

export const LOG_FORMATS = ['pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
export type LocalLogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';

export class InvalidLogFormatError extends Error {
  override name = 'InvalidLogFormatError';
  constructor(readonly value: string) {
    super(`HOOKLINE_LOG_FORMAT "${value}" is not valid: use ${LOG_FORMATS.join(' or ')}`);
  }
}

/**
 * `HOOKLINE_LOG_FORMAT` when set; otherwise pretty lines for a person at a terminal and JSON
 * (as on AWS) when the output goes to a file or a pipe, where a program reads it.
 */
export function chooseLogFormat(setting: string | undefined, isTTY: boolean): LogFormat {
  if (setting === undefined || setting === '') return isTTY ? 'pretty' : 'json';
  if (!(LOG_FORMATS as readonly string[]).includes(setting)) throw new InvalidLogFormatError(setting);
  return setting as LogFormat;
}

/** The same Powertools logger the handlers get on AWS; only how a record is printed differs. */
class PrettyLogger extends Logger {
  protected override printLog(logLevel: number, log: LogItem): void {
    log.prepareForPrint();
    // As Powertools does: warnings and errors to stderr, the rest to stdout.
    const out = logLevel >= LogLevelThreshold.WARN ? process.stderr : process.stdout;
    out.write(`${prettyLogLine(log.getAttributes())}\n`);
  }
}

/** The local runtime's one logger, shared by every handler it runs. */
export function localLogger(logLevel: LocalLogLevel, format: LogFormat): Logger {
  const options = { serviceName: COMMON_ENVIRONMENT.POWERTOOLS_SERVICE_NAME, logLevel };
  return format === 'pretty' ? new PrettyLogger(options) : new Logger(options);
}
