import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeDeliveryMessage, encodeDeliveryMessage } from '#adapters/delivery-message-codec.ts';
import { BodyIntegrityError } from '#adapters/errors.ts';

const BODY = '{"id":"evt_1","type":"a","timestamp":"2024-05-01T12:00:00.000Z","data":{"n":1.0,"s":"ünï ✓"}}';
const FRESH = { deliveryId: 'dlv_1', subscriptionId: 'sub_1', eventId: 'evt_1', eventType: 'a', createdAt: '2024-05-01T12:00:00.000Z', giveUpAt: '2024-05-04T12:00:00.000Z', body: BODY, fresh: true } as const;

describe('delivery message codec', () => {
  it('round-trips a fresh message, the body byte for byte, compressed on the way', () => {
    const wire = encodeDeliveryMessage({ ...FRESH, delaySeconds: 5 });

    assert.deepEqual(decodeDeliveryMessage(JSON.parse(wire)), FRESH);
    assert.equal(wire.includes('ünï'), false, 'the body travels compressed');
    assert.equal(wire.includes('delaySeconds'), false, 'the delay is the queue\'s, not part of the body');
  });

  it('reads a message with only the ids (a retry\'s, a replay\'s, or one from before bodies travelled)', () => {
    assert.deepEqual(decodeDeliveryMessage({ deliveryId: 'dlv_1', subscriptionId: 'sub_1' }), { deliveryId: 'dlv_1', subscriptionId: 'sub_1' });
  });

  it('leaves out a body too large for a message: the sender reads the event instead', () => {
    // Random bytes do not compress: about 250 KB of base64 text, which deflates to about 190 KB and grows by a third in base64.
    const noise = randomBytes(190 * 1024).toString('base64');
    const wire = JSON.parse(encodeDeliveryMessage({ ...FRESH, body: JSON.stringify(noise) }));

    assert.equal(wire.bodyZ, undefined);
    assert.equal(decodeDeliveryMessage(wire).body, undefined);
  });

  it('refuses a body whose bytes do not match their sha256', () => {
    const wire = JSON.parse(encodeDeliveryMessage(FRESH));

    assert.throws(() => decodeDeliveryMessage({ ...wire, bodySha256: 'AAAA' }), (e: unknown) => e instanceof BodyIntegrityError);
  });
});
