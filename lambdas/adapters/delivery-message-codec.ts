import type { DeliveryMessage, ReceivedDeliveryMessage } from '#ports/delivery-queue.ts';
import { decodeBodyBase64, encodeBodyBase64 } from './body-codec.ts';

/**
 * Past this many characters of compressed body the message goes without it and the sender
 * reads the event instead: SQS takes 256 KiB a message, and the rest of it must fit too.
 */
const MAX_CARRIED_BODY_CHARS = 192 * 1024;

/** An SQS message body as sent: the fields of DeliveryMessage, the body compressed (deflate-raw, base64) with its sha256. */
type Wire = Omit<DeliveryMessage, 'delaySeconds' | 'body' | 'fresh'> & {
  readonly fresh?: true;
  readonly bodyZ?: string;
  readonly bodySha256?: string;
};

export function encodeDeliveryMessage(m: DeliveryMessage): string {
  const { delaySeconds: _d, body, fresh, ...fields } = m;
  const carried = body === undefined ? undefined : encodeBodyBase64(body);
  const wire: Wire = {
    ...fields,
    ...(fresh ? { fresh: true } : {}),
    ...(carried && carried.base64.length <= MAX_CARRIED_BODY_CHARS ? { bodyZ: carried.base64, bodySha256: carried.sha256 } : {}),
  };
  return JSON.stringify(wire);
}

/**
 * The message as the sender reads it. Only the ids are required: a message from before bodies
 * travelled (or one sent without its body) is one whose row and event the sender reads.
 * A body whose sha256 does not match throws (the codec's error): the message is retried, never
 * sent with altered bytes.
 */
export function decodeDeliveryMessage(wire: Readonly<Record<string, unknown>>): ReceivedDeliveryMessage {
  const text = (key: keyof Wire) => (typeof wire[key] === 'string' ? (wire[key] as string) : undefined);
  const optional = <K extends string>(key: K, value: string | undefined) => (value === undefined ? {} : ({ [key]: value } as Record<K, string>));
  const bodyZ = text('bodyZ');
  const sha = text('bodySha256');
  return {
    deliveryId: wire.deliveryId as string,
    subscriptionId: wire.subscriptionId as string,
    ...optional('eventId', text('eventId')),
    ...optional('eventType', text('eventType')),
    ...optional('createdAt', text('createdAt')),
    ...optional('giveUpAt', text('giveUpAt')),
    ...(wire.fresh === true ? { fresh: true } : {}),
    ...(bodyZ !== undefined && sha !== undefined ? { body: decodeBodyBase64(bodyZ, sha) } : {}),
  };
}
