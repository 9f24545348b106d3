import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AjvSchemaValidator } from '#adapters/ajv-schema-validator.ts';
import { ConflictError, NotFoundError, ValidationError } from '#app/errors.ts';
import { parseEventTypeName, parsePutEventType } from '#app/event-types/event-type-request.ts';
import { eventTypeView } from '#app/event-types/event-type-view.ts';
import { deleteEventType, getEventType, putEventType } from '#app/event-types/event-types.ts';
import { EVENT_TYPE_LIMITS } from '#domain/event-type-catalog.ts';
import { FakeClock } from '#test/fakes.ts';
import { InMemoryEventTypeStore } from '#test/memory-event-type-store.ts';

const deps = () => ({
  eventTypes: new InMemoryEventTypeStore(),
  schemaValidator: new AjvSchemaValidator(),
  clock: new FakeClock(),
});
const refusedAs = (field: string, rule: RegExp) => (e: unknown) =>
  e instanceof ValidationError && e.field === field && rule.test(e.rule);

describe('parseEventTypeName(): a type from the path', () => {
  it('takes one event type, percent-escapes decoded', () => {
    assert.equal(parseEventTypeName('order.created'), 'order.created');
    assert.equal(parseEventTypeName('billing%3Ainvoice.paid'), 'billing:invoice.paid');
  });
  const refused: ReadonlyArray<readonly [string, RegExp]> = [
    ['*', /not a pattern/],
    ['order.*', /not a pattern/],
    ['order.%2A', /not a pattern/],
    ['hookline.test', /reserved for Hookline's own/],
    ['order%20created', /letters, digits/],
    [`${'a'.repeat(257)}`, /at most 256/],
    ['%E0%A4%A', /malformed percent-escape/],
  ];
  for (const [segment, rule] of refused)
    it(`refuses ${segment.slice(0, 20)} naming name`, () =>
      assert.throws(() => parseEventTypeName(segment), refusedAs('name', rule)));
});

describe('parsePutEventType(): the body', () => {
  it('keeps the schema and the example as written; null and absent are none; deprecated defaults to false', () => {
    assert.deepEqual(
      parsePutEventType('{"description":" An order ","schema":{"type": "object"},"example":{"amount": 1.50}}'),
      { description: 'An order', schemaJson: '{"type": "object"}', exampleJson: '{"amount": 1.50}', deprecated: false },
    );
    assert.deepEqual(parsePutEventType('{"description":"x","schema":null,"example":null,"deprecated":true}'), {
      description: 'x',
      deprecated: true,
    });
    assert.deepEqual(parsePutEventType('{"description":"x","example":0}'), {
      description: 'x',
      exampleJson: '0',
      deprecated: false,
    });
  });
  const refused: ReadonlyArray<readonly [string, string, RegExp]> = [
    ['{}', 'description', /is required/],
    ['{"description":"   "}', 'description', /is required/],
    [JSON.stringify({ description: 'x'.repeat(1001) }), 'description', /at most 1000/],
    ['{"description":"x","schema":[]}', 'schema', /JSON object/],
    ['{"description":"x","schema":"{}"}', 'schema', /JSON object/],
    ['{"description":"x","deprecated":"yes"}', 'deprecated', /true or false/],
    ['{"description":"x","examples":[]}', 'examples', /not a known field/],
    [
      JSON.stringify({ description: 'x', example: 'e'.repeat(EVENT_TYPE_LIMITS.exampleBytesMax) }),
      'example',
      /at most 32 KiB/,
    ],
    [
      JSON.stringify({ description: 'x', schema: { description: 's'.repeat(EVENT_TYPE_LIMITS.schemaBytesMax) } }),
      'schema',
      /at most 32 KiB/,
    ],
    ['not json', 'body', /JSON/],
  ];
  for (const [body, field, rule] of refused)
    it(`refuses ${body.slice(0, 40)} naming ${field}`, () =>
      assert.throws(() => parsePutEventType(body), refusedAs(field, rule)));
});

describe('putEventType(): registering and replacing', () => {
  it('creates, then replaces keeping createdAt; the view shows the schema and example as JSON', async () => {
    const d = deps();
    const request = parsePutEventType('{"description":"An order","schema":{"type":"object"},"example":{"amount":1}}');
    const created = await putEventType(d, 'order.created', request);
    assert.equal(created.kind, 'created');
    d.clock.advance(60_000);
    const replaced = await putEventType(d, 'order.created', parsePutEventType('{"description":"Changed"}'));
    assert.equal(replaced.kind, 'replaced');
    assert.deepEqual(eventTypeView(replaced.entry), {
      name: 'order.created',
      description: 'Changed',
      schema: null,
      example: null,
      deprecated: false,
      createdAt: created.entry.createdAt,
      updatedAt: '2024-05-01T12:01:00.000Z',
    });
    assert.deepEqual(eventTypeView(created.entry).schema, { type: 'object' });
    assert.deepEqual(eventTypeView(created.entry).example, { amount: 1 });
  });

  it('refuses a schema that does not compile, and an example it refuses, naming each; nothing is stored', async () => {
    const d = deps();
    await assert.rejects(
      putEventType(d, 'a.b', parsePutEventType('{"description":"x","schema":{"type":"nope"}}')),
      refusedAs('schema', /^is not a JSON Schema Hookline can use: schema is invalid/),
    );
    await assert.rejects(
      putEventType(d, 'a.b', parsePutEventType('{"description":"x","schema":{"$ref":"https://example.com/s.json"}}')),
      refusedAs('schema', /can't resolve reference/),
    );
    await assert.rejects(
      putEventType(
        d,
        'a.b',
        parsePutEventType('{"description":"x","schema":{"$schema":"http://json-schema.org/draft-04/schema#"}}'),
      ),
      refusedAs('schema', /draft 2020-12 .* or draft-07/),
    );
    await assert.rejects(
      putEventType(
        d,
        'a.b',
        parsePutEventType(
          '{"description":"x","schema":{"type":"object","properties":{"amount":{"type":"number"}}},"example":{"amount":"1"}}',
        ),
      ),
      refusedAs('example', /^does not match the schema: \/amount must be number$/),
    );
    assert.equal(d.eventTypes.entries.size, 0);
  });

  it('refuses a new type past the catalog’s bound (409), but still replaces an existing one', async () => {
    const d = deps();
    for (let i = 0; i < EVENT_TYPE_LIMITS.typesMax; i++)
      await d.eventTypes.put({ name: `t.${i}`, description: 'x', deprecated: false }, '2024-05-01T00:00:00.000Z');
    await assert.rejects(putEventType(d, 'one.more', parsePutEventType('{"description":"x"}')), ConflictError);
    assert.equal((await putEventType(d, 't.7', parsePutEventType('{"description":"y"}'))).kind, 'replaced');
  });

  it('reads and deletes; an unknown type is a NotFoundError', async () => {
    const d = deps();
    await putEventType(d, 'a.b', parsePutEventType('{"description":"x"}'));
    assert.equal((await getEventType(d, 'a.b')).description, 'x');
    assert.equal((await deleteEventType(d, 'a.b')).name, 'a.b');
    await assert.rejects(getEventType(d, 'a.b'), NotFoundError);
    await assert.rejects(deleteEventType(d, 'a.b'), NotFoundError);
  });
});
