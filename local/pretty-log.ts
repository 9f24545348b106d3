import type { AttemptReport } from '#app/send/outcome.ts';
import { STATE } from '#domain/states.ts';
import { ATTEMPT_LOG_MESSAGE } from '#handlers/sender.ts';

/**
 * What a person reads in the terminal of `npm start`: one line per log record, built from the
 * same attributes the JSON format prints. A delivery attempt reads
 * `12:03:04.120  sub_abc  invoice.paid  hooks.example.com  503  210 ms  → retry in 20 s`;
 * any other record reads `12:03:04.120  WARN  message  key=value …`.
 */
export function prettyLogLine(
  attributes: Readonly<Record<string, unknown>>,
  options: { readonly timeZone?: string } = {},
): string {
  const time = clockTime(attributes.timestamp, options.timeZone);
  if (attributes.message === ATTEMPT_LOG_MESSAGE && isAttempt(attributes)) return attemptLine(time, attributes);
  const level = String(attributes.level ?? 'INFO');
  const extra = Object.entries(attributes).filter(([key, value]) => !ENVELOPE.has(key) && value !== undefined);
  // An error's stack is for the unexpected (ERROR and above); a WARN names what was refused and why.
  const withStack = level === 'ERROR' || level === 'CRITICAL';
  const errors = extra.flatMap(([, value]) => (value instanceof Error && withStack ? [indent(stackOf(value))] : []));
  const fields = extra.map(([key, value]) => `${key}=${text(value)}`);
  return [[time, level, String(attributes.message ?? ''), ...fields].join('  '), ...errors].join('\n');
}

/** Envelope keys Powertools adds to every record: the same in every line, or (one logger serving every local function) not reliable. */
const ENVELOPE = new Set([
  'level',
  'message',
  'timestamp',
  'service',
  'sampling_rate',
  'xray_trace_id',
  'cold_start',
  'function_arn',
  'function_memory_size',
  'function_name',
  'function_request_id',
]);

/** What the attempt led to, in words; keyed by outcome so a new outcome cannot go unprinted. */
const NEXT: Readonly<Record<AttemptReport['outcome'], (a: AttemptReport) => string>> = {
  succeed: () => STATE.delivered,
  retry: (a) => `retry in ${a.retryInSeconds} s`,
  fail_permanently: (a) => `dead-lettered as ${a.state}`,
  give_up: (a) => `dead-lettered as ${a.state}`,
  lost: () => 'a duplicate: another copy of the delivery wrote its row first',
};

function attemptLine(time: string, a: AttemptReport): string {
  const result = a.status !== undefined ? String(a.status) : (a.error ?? '?');
  return [
    time,
    a.subscriptionId,
    a.eventType,
    a.host,
    result,
    `${Math.round(a.durationMs)} ms`,
    `→ ${NEXT[a.outcome](a)}`,
  ].join('  ');
}

function isAttempt(
  attributes: Readonly<Record<string, unknown>>,
): attributes is Readonly<Record<string, unknown>> & AttemptReport {
  return (
    typeof attributes.subscriptionId === 'string' &&
    typeof attributes.durationMs === 'number' &&
    typeof attributes.outcome === 'string' &&
    attributes.outcome in NEXT
  );
}

/** HH:MM:SS.mmm in the machine's time zone (or `timeZone`); the record's own text if it is not a time. */
function clockTime(timestamp: unknown, timeZone?: string): string {
  const ms = typeof timestamp === 'string' ? Date.parse(timestamp) : NaN;
  if (Number.isNaN(ms)) return String(timestamp ?? '');
  return new Intl.DateTimeFormat('en-GB', {
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    fractionalSecondDigits: 3,
    hourCycle: 'h23',
    ...(timeZone ? { timeZone } : {}),
  }).format(ms);
}

function text(value: unknown): string {
  if (value instanceof Error) return text(`${value.name}: ${value.message}`);
  if (typeof value === 'string') return /[\s"=]/.test(value) || value === '' ? JSON.stringify(value) : value;
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

/** The stack, then each cause's (a stage error wraps the SDK error that explains it). */
function stackOf(error: Error): string {
  const own = error.stack ?? `${error.name}: ${error.message}`;
  return error.cause instanceof Error ? `${own}\ncaused by ${stackOf(error.cause)}` : own;
}

function indent(block: string): string {
  return block
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}
