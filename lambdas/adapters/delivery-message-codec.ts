import { DELIVERIES_PER_MESSAGE, MAX_PACK_BYTES } from '#config/topology.ts';
import type { InlineAttempt } from '#domain/types.ts';
import type { DeliveryMessage, ReceivedDeliveryMessage } from '#ports/delivery-queue.ts';
import { decodeBodyBase64, encodeBodyBase64 } from './body-codec.ts';
import { MalformedDeliveryMessageError } from './errors.ts';

/**
 * Past this many characters of compressed body the message goes without it and the sender
 * reads the event instead: SQS takes 256 KiB a message, and the rest of it must fit too.
 */
const MAX_CARRIED_BODY_CHARS = 192 * 1024;

/**
 * The wire form's version. Messages without one were sent by an earlier version of Hookline
 * (its `fresh`, `recorded` and bare-id messages); they are read as `fresh` when they carry a
 * first attempt whole, and as `due` otherwise (the sender reads the row).
 */
const WIRE_VERSION = 2;

/** The JSON of a pack wraps its deliveries' own: `{"pack":[…]}`. */
const PACK_OVERHEAD_BYTES = '{"pack":[]}'.length;

/** One delivery's SQS message body (a message of its own, or an entry of a pack): its kind as `k`, its body compressed with its sha256. */
function encodeDeliveryMessage(m: DeliveryMessage): string {
  const { delaySeconds: _d, alone: _a, kind, ...fields } = m;
  const { body, ...rest } = fields as typeof fields & { body?: string };
  const carried = body === undefined ? undefined : encodeBodyBase64(body);
  const bodyFields =
    carried && carried.base64.length <= MAX_CARRIED_BODY_CHARS
      ? { bodyZ: carried.base64, bodySha256: carried.sha256 }
      : {};
  return JSON.stringify({ v: WIRE_VERSION, k: kind, ...rest, ...bodyFields });
}

/**
 * The SQS message bodies for deliveries due at the same time, in order: up to
 * DELIVERIES_PER_MESSAGE share a body (a pack) while it stays within MAX_PACK_BYTES. A delivery
 * left alone, or too large to share, is a body of its own.
 */
export function encodeDeliveryMessages(messages: readonly DeliveryMessage[]): string[] {
  const bodies: string[] = [];
  let pack: string[] = [];
  let packBytes = PACK_OVERHEAD_BYTES;
  const flush = () => {
    if (pack.length === 1) bodies.push(pack[0]!);
    // Joined as text: each entry is already JSON, and parsing it again only to nest it costs a copy.
    else if (pack.length > 1) bodies.push(`{"pack":[${pack.join(',')}]}`);
    pack = [];
    packBytes = PACK_OVERHEAD_BYTES;
  };
  for (const m of messages) {
    const one = encodeDeliveryMessage(m);
    if (m.alone) {
      bodies.push(one);
      continue;
    }
    const bytes = Buffer.byteLength(one) + 1;
    if (pack.length === DELIVERIES_PER_MESSAGE || packBytes + bytes > MAX_PACK_BYTES) flush();
    pack.push(one);
    packBytes += bytes;
  }
  flush();
  return bodies;
}

/**
 * The deliveries a received message body carries (its JSON already parsed): one, or a pack's.
 * A body whose sha256 does not match throws (the codec's error): the message is retried, never
 * sent with altered bytes.
 */
export function decodeDeliveryMessages(wire: Readonly<Record<string, unknown>>): ReceivedDeliveryMessage[] {
  if (!('pack' in wire)) return [decodeDeliveryMessage(wire)];
  if (!Array.isArray(wire.pack) || wire.pack.length === 0)
    throw new MalformedDeliveryMessageError('a pack must list its deliveries');
  return wire.pack.map((entry: unknown) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
      throw new MalformedDeliveryMessageError('a pack entry must be an object');
    return decodeDeliveryMessage(entry as Record<string, unknown>);
  });
}

type Wire = Readonly<Record<string, unknown>>;
const text = (wire: Wire, key: string) =>
  typeof wire[key] === 'string' && wire[key] !== '' ? (wire[key] as string) : undefined;
const instant = (wire: Wire, key: string) => {
  const value = text(wire, key);
  return value !== undefined && Number.isFinite(Date.parse(value)) ? value : undefined;
};
const count = (wire: Wire, key: string) =>
  Number.isSafeInteger(wire[key]) && (wire[key] as number) >= 0 ? (wire[key] as number) : undefined;

/** One delivery's fields, as `decodeDeliveryMessages` reads each. */
function decodeDeliveryMessage(wire: Wire): ReceivedDeliveryMessage {
  const deliveryId = text(wire, 'deliveryId');
  const subscriptionId = text(wire, 'subscriptionId');
  if (!deliveryId) throw new MalformedDeliveryMessageError('a delivery message lacks a string deliveryId');
  if (!subscriptionId)
    throw new MalformedDeliveryMessageError(`delivery message ${deliveryId} lacks a string subscriptionId`);
  const notBefore = instant(wire, 'notBefore');
  const ids = {
    deliveryId,
    subscriptionId,
    ...(notBefore ? { notBefore } : {}),
    ...(wire.reread === true ? { reread: true as const } : {}),
  };
  const version = wire.v;
  if (version === undefined) return fromEarlierVersion(wire, ids);
  if (version !== WIRE_VERSION)
    throw new MalformedDeliveryMessageError(
      `delivery message ${deliveryId} is of wire version ${JSON.stringify(version)}; this version reads ${WIRE_VERSION} and earlier ones without a version`,
    );
  const attemptSeq = count(wire, 'attemptSeq');
  if (wire.k === 'due') return { kind: 'due', ...ids, ...(attemptSeq !== undefined ? { attemptSeq } : {}) };
  const event = eventFields(wire);
  if (!event)
    throw new MalformedDeliveryMessageError(
      `delivery message ${deliveryId} (${String(wire.k)}) lacks its event's id, type, creation or deadline`,
    );
  if (wire.k === 'fresh') return { kind: 'fresh', ...ids, ...event };
  const attempts = count(wire, 'attempts');
  const nextAttemptAt = instant(wire, 'nextAttemptAt');
  if (wire.k !== 'retry' || attemptSeq === undefined || attempts === undefined || !nextAttemptAt)
    throw new MalformedDeliveryMessageError(
      `delivery message ${deliveryId} is neither fresh, retry nor due, or lacks what its kind needs`,
    );
  const previousAttempt = attemptIn(wire.previousAttempt);
  const earlierAttempts = attemptsIn(wire.earlierAttempts);
  return {
    kind: 'retry',
    ...ids,
    ...event,
    attemptSeq,
    attempts,
    nextAttemptAt,
    ...(previousAttempt ? { previousAttempt } : {}),
    ...(earlierAttempts ? { earlierAttempts } : {}),
  };
}

/**
 * The row's earlier attempts as a retry message carries them, all or nothing: a list with an
 * entry left out would, written back, drop that attempt from the row, where a list not carried
 * leaves the row's as it is (ports/delivery-store.ts `writtenFields`).
 */
function attemptsIn(value: unknown): readonly InlineAttempt[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const attempts = value.map(attemptIn);
  return attempts.every((a) => a !== undefined) ? attempts : undefined;
}

/** The event fields a fresh or retry message carries, undefined when one is missing; the body checked against its sha256. */
function eventFields(wire: Wire) {
  const eventId = text(wire, 'eventId');
  const eventType = text(wire, 'eventType');
  const createdAt = instant(wire, 'createdAt');
  const giveUpAt = instant(wire, 'giveUpAt');
  if (!eventId || !eventType || !createdAt || !giveUpAt) return undefined;
  const bodyZ = text(wire, 'bodyZ');
  const sha = text(wire, 'bodySha256');
  return {
    eventId,
    eventType,
    createdAt,
    giveUpAt,
    ...(bodyZ !== undefined && sha !== undefined ? { body: decodeBodyBase64(bodyZ, sha) } : {}),
  };
}

/** An attempt record as a retry message carries it; anything else is left out (its log entry is then the table's, if any). */
function attemptIn(value: unknown): InlineAttempt | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const a = value as Record<string, unknown>;
  const seq = count(a, 'seq');
  const attempt = count(a, 'attempt');
  const durationMs = typeof a.durationMs === 'number' ? a.durationMs : undefined;
  const startedAt = instant(a, 'startedAt');
  if (seq === undefined || attempt === undefined || durationMs === undefined || !startedAt) return undefined;
  return {
    seq,
    attempt,
    startedAt,
    durationMs,
    ...(typeof a.status === 'number' ? { status: a.status } : {}),
    ...(typeof a.responseSnippet === 'string' ? { responseSnippet: a.responseSnippet } : {}),
    ...(typeof a.error === 'string' ? { error: a.error } : {}),
  };
}

/**
 * A message an earlier version sent: its first attempt's message (`fresh`, with the event it
 * carried) is read as fresh; any other (a planned retry's `recorded`, a replay's or the
 * sweeper's bare ids) as due, so the sender reads the row as it stands, whatever that version
 * left in it.
 */
function fromEarlierVersion(
  wire: Wire,
  ids: { deliveryId: string; subscriptionId: string; notBefore?: string; reread?: true },
): ReceivedDeliveryMessage {
  const event = wire.fresh === true ? eventFields(wire) : undefined;
  return event ? { kind: 'fresh', ...ids, ...event } : { kind: 'due', ...ids };
}
