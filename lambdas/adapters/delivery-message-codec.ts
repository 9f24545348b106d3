import { DELIVERIES_PER_MESSAGE, MAX_PACK_BYTES } from '#config/topology.ts';
import type { DeliveryMessage, ReceivedDeliveryMessage } from '#ports/delivery-queue.ts';
import type { RecordedAttempt } from '#domain/types.ts';
import { decodeBodyBase64, encodeBodyBase64 } from './body-codec.ts';
import { MalformedDeliveryMessageError } from './errors.ts';

/**
 * Past this many characters of compressed body the message goes without it and the sender
 * reads the event instead: SQS takes 256 KiB a message, and the rest of it must fit too.
 */
const MAX_CARRIED_BODY_CHARS = 192 * 1024;

/** One delivery as sent: the fields of DeliveryMessage, the body compressed (deflate-raw, base64) with its sha256. */
type Wire = Omit<DeliveryMessage, 'delaySeconds' | 'body' | 'fresh' | 'alone'> & {
  readonly fresh?: true;
  readonly bodyZ?: string;
  readonly bodySha256?: string;
};

/** The JSON of a pack wraps its deliveries' own: `{"pack":[…]}`. */
const PACK_OVERHEAD_BYTES = '{"pack":[]}'.length;

/** One delivery's SQS message body (a message of its own, or an entry of a pack). */
function encodeDeliveryMessage(m: DeliveryMessage): string {
  const { delaySeconds: _d, body, fresh, alone: _a, ...fields } = m;
  const carried = body === undefined ? undefined : encodeBodyBase64(body);
  const wire: Wire = {
    ...fields,
    ...(fresh ? { fresh: true } : {}),
    ...(carried && carried.base64.length <= MAX_CARRIED_BODY_CHARS ? { bodyZ: carried.base64, bodySha256: carried.sha256 } : {}),
  };
  return JSON.stringify(wire);
}

/**
 * The SQS message bodies for deliveries due at the same time, in order: up to
 * DELIVERIES_PER_MESSAGE share a body (a pack) while it stays within MAX_PACK_BYTES. A delivery
 * left alone, or too large to share, is a body of its own, in the form from before packs.
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
 * Only the ids are required: a message from before bodies travelled (or one sent without its
 * body) is one whose row and event the sender reads. A body whose sha256 does not match throws
 * (the codec's error): the message is retried, never sent with altered bytes.
 */
export function decodeDeliveryMessages(wire: Readonly<Record<string, unknown>>): ReceivedDeliveryMessage[] {
  if (!('pack' in wire)) return [decodeDeliveryMessage(wire)];
  if (!Array.isArray(wire.pack) || wire.pack.length === 0) throw new MalformedDeliveryMessageError('a pack must list its deliveries');
  return wire.pack.map((entry: unknown) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new MalformedDeliveryMessageError('a pack entry must be an object');
    return decodeDeliveryMessage(entry as Record<string, unknown>);
  });
}

/**
 * A planned retry's `recorded`, when it is one. Anything else is left out rather than refused:
 * without it the delivery is claimed, which needs nothing from it.
 */
function recordedIn(value: unknown): { readonly recorded?: RecordedAttempt } {
  if (typeof value !== 'object' || value === null) return {};
  const { attemptSeq, nextAttemptAt } = value as Record<string, unknown>;
  if (!Number.isSafeInteger(attemptSeq) || (attemptSeq as number) < 1 || typeof nextAttemptAt !== 'string' || !Number.isFinite(Date.parse(nextAttemptAt))) return {};
  return { recorded: { attemptSeq: attemptSeq as number, nextAttemptAt } };
}

/** One delivery's fields, as `decodeDeliveryMessages` reads each. */
function decodeDeliveryMessage(wire: Readonly<Record<string, unknown>>): ReceivedDeliveryMessage {
  const text = (key: keyof Wire) => (typeof wire[key] === 'string' ? (wire[key] as string) : undefined);
  const optional = <K extends string>(key: K, value: string | undefined) => (value === undefined ? {} : ({ [key]: value } as Record<K, string>));
  const deliveryId = text('deliveryId');
  const subscriptionId = text('subscriptionId');
  if (!deliveryId) throw new MalformedDeliveryMessageError('a delivery message lacks a string deliveryId');
  if (!subscriptionId) throw new MalformedDeliveryMessageError(`delivery message ${deliveryId} lacks a string subscriptionId`);
  const bodyZ = text('bodyZ');
  const sha = text('bodySha256');
  return {
    deliveryId,
    subscriptionId,
    ...optional('eventId', text('eventId')),
    ...optional('eventType', text('eventType')),
    ...optional('createdAt', text('createdAt')),
    ...optional('giveUpAt', text('giveUpAt')),
    ...optional('notBefore', text('notBefore')),
    ...(wire.fresh === true ? { fresh: true } : {}),
    ...recordedIn(wire.recorded),
    ...(bodyZ !== undefined && sha !== undefined ? { body: decodeBodyBase64(bodyZ, sha) } : {}),
  };
}
