import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '#app/errors.ts';
import { MAX_BATCH_EVENTS, parsePublishBatch } from '#app/publish/publish-request.ts';

const refusal = (field: string, rule?: RegExp) => (error: unknown) =>
  error instanceof ValidationError && error.field === field && (!rule || rule.test(error.rule));

describe('parsePublishBatch', () => {
  it('reads each event as a single publish would, payload text byte for byte', () => {
    const raw =
      '{"events":[{"id":"evt_a","type":"a.b","payload":{ "n" : 1.0 }}, {"type":"c","payload":[1e2,"\\u00e9"]}]}';

    assert.deepEqual(parsePublishBatch(raw), [
      { id: 'evt_a', type: 'a.b', payloadJson: '{ "n" : 1.0 }' },
      { type: 'c', payloadJson: '[1e2,"\\u00e9"]' },
    ]);
  });

  it('refuses the whole batch naming the first bad event and field', () => {
    const raw = JSON.stringify({
      events: [
        { type: 'ok', payload: {} },
        { type: 'bad type!', payload: {} },
      ],
    });
    assert.throws(() => parsePublishBatch(raw), refusal('events[1].type', /at most 256 letters/));
    assert.throws(
      () => parsePublishBatch(JSON.stringify({ events: [{ type: 'a' }] })),
      refusal('events[0].payload', /required/),
    );
    assert.throws(
      () => parsePublishBatch(JSON.stringify({ events: [{ type: 'a', payload: {}, extra: 1 }] })),
      refusal('events[0].extra', /not a known field/),
    );
    assert.throws(() => parsePublishBatch(JSON.stringify({ events: [42] })), refusal('events[0]', /JSON object/));
  });

  it('needs 1 to 100 events in a list, and nothing else in the body', () => {
    assert.throws(() => parsePublishBatch('{}'), refusal('events', /required/));
    assert.throws(() => parsePublishBatch('{"events":{}}'), refusal('events', /list/));
    assert.throws(() => parsePublishBatch('{"events":[]}'), refusal('events', /1 to 100/));
    const tooMany = JSON.stringify({
      events: Array.from({ length: MAX_BATCH_EVENTS + 1 }, () => ({ type: 'a', payload: 1 })),
    });
    assert.throws(() => parsePublishBatch(tooMany), refusal('events', /not 101/));
    assert.throws(() => parsePublishBatch('{"events":[],"more":1}'), refusal('more'));
    assert.equal(
      parsePublishBatch(
        JSON.stringify({ events: Array.from({ length: MAX_BATCH_EVENTS }, () => ({ type: 'a', payload: 1 })) }),
      ).length,
      MAX_BATCH_EVENTS,
    );
  });

  it('keeps the single publish limits per event: size, and refuses a payload JSON would rewrite', () => {
    const big = JSON.stringify({ events: [{ type: 'a', payload: 'x'.repeat(256 * 1024) }] });
    assert.throws(() => parsePublishBatch(big), refusal('events[0]', /at most 262144 bytes/));
    assert.throws(
      () => parsePublishBatch('{"events":[{"type":"a","payload":{"n":1e400}}]}'),
      (e: unknown) => e instanceof ValidationError && e.field.startsWith('events'),
    );
  });
});
