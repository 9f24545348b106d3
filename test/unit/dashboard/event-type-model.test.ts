import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  catalogExample,
  coveringPattern,
  EMPTY_EVENT_TYPE_DRAFT,
  eventTypeBodyText,
  eventTypeDraftOf,
  pickedTypes,
  testTypeChoices,
  toggleType,
  unparsedField,
  type EventTypeLike,
} from '../../../dashboard/src/event-type-model.ts';

const PAID: EventTypeLike = {
  name: 'invoice.paid',
  description: 'An invoice was paid in full.',
  schema: { type: 'object', required: ['invoice'] },
  example: { invoice: 'in_1', total: '9.99' },
  deprecated: false,
};
const CREATED: EventTypeLike = {
  name: 'order.created',
  description: 'An order was placed.',
  schema: null,
  example: null,
  deprecated: true,
};

describe('the event-type form text', () => {
  it('an edit starts from the type as it is, its JSON pretty-printed and none as blank', () => {
    assert.deepEqual(eventTypeDraftOf(PAID), {
      name: 'invoice.paid',
      description: 'An invoice was paid in full.',
      schema: '{\n  "type": "object",\n  "required": [\n    "invoice"\n  ]\n}',
      example: '{\n  "invoice": "in_1",\n  "total": "9.99"\n}',
      deprecated: false,
    });
    assert.deepEqual([eventTypeDraftOf(CREATED).schema, eventTypeDraftOf(CREATED).example], ['', '']);
  });

  it('the body splices the JSON texts in as typed and leaves blank ones out', () => {
    assert.equal(
      eventTypeBodyText({
        ...EMPTY_EVENT_TYPE_DRAFT,
        description: ' Paid. ',
        schema: '{"type":"object"}',
        example: '1',
      }),
      '{"description":"Paid.","schema":{"type":"object"},"example":1,"deprecated":false}',
    );
    assert.deepEqual(JSON.parse(eventTypeBodyText({ ...EMPTY_EVENT_TYPE_DRAFT, deprecated: true })), {
      description: '',
      deprecated: true,
    });
    // Text that is not JSON reaches the API as it is, for its refusal to say where it breaks.
    assert.equal(
      eventTypeBodyText({ ...EMPTY_EVENT_TYPE_DRAFT, description: 'x', example: '{nope' }),
      '{"description":"x","example":{nope,"deprecated":false}',
    );
  });

  it("a refusal of the whole body is placed at the JSON text that does not parse, the schema's first", () => {
    assert.equal(unparsedField({ ...EMPTY_EVENT_TYPE_DRAFT, schema: '{', example: '{' }), 'schema');
    assert.equal(unparsedField({ ...EMPTY_EVENT_TYPE_DRAFT, schema: '{}', example: 'nope' }), 'example');
    assert.equal(unparsedField({ ...EMPTY_EVENT_TYPE_DRAFT, schema: ' ', example: '"a"' }), undefined);
  });
});

describe('the catalog in the endpoint forms', () => {
  it('ticking a type adds it as a line and unticking takes it out; hand-typed patterns stay', () => {
    assert.equal(toggleType('order.*\n*', 'invoice.paid', true), 'order.*\n*\ninvoice.paid');
    assert.equal(toggleType('invoice.paid, order.*', 'invoice.paid', false), 'order.*');
    assert.equal(toggleType('invoice.paid', 'invoice.paid', true), 'invoice.paid', 'never twice');
    assert.equal(toggleType('', 'invoice.paid', true), 'invoice.paid');
    assert.deepEqual([...pickedTypes(' invoice.paid \norder.*')], ['invoice.paid', 'order.*']);
  });

  it('says which pattern already selects a type it does not name', () => {
    assert.equal(coveringPattern(['order.*'], 'order.created'), 'order.*');
    assert.equal(coveringPattern(['*'], 'order.created'), '*');
    assert.equal(coveringPattern(['order.*', 'order.created'], 'order.created'), undefined, 'named: ticked');
    assert.equal(coveringPattern(['invoice.*'], 'order.created'), undefined);
  });
});

describe('the catalog in a test event', () => {
  it('offers the test type and each registered type the subscription receives', () => {
    assert.deepEqual(testTypeChoices({ eventTypes: ['invoice.*'], tenantId: 'acme' }, [PAID, CREATED]), [
      'hookline.test',
      'invoice.paid',
    ]);
    assert.deepEqual(testTypeChoices({ eventTypes: ['*'], tenantId: null }, [PAID, CREATED]), [
      'hookline.test',
      'invoice.paid',
      'order.created',
    ]);
  });

  it('without a catalog, offers the exact types and an example under each prefix, as before', () => {
    assert.deepEqual(testTypeChoices({ eventTypes: ['order.*', 'invoice.paid', '*'] }, []), [
      'hookline.test',
      'order.example',
      'invoice.paid',
    ]);
  });

  it("pre-fills a registered type's example, and nothing for a type without one", () => {
    assert.equal(catalogExample([PAID, CREATED], ' invoice.paid '), '{\n  "invoice": "in_1",\n  "total": "9.99"\n}');
    assert.equal(catalogExample([PAID, CREATED], 'order.created'), undefined);
    assert.equal(catalogExample([PAID], 'other.type'), undefined);
    assert.equal(catalogExample([{ ...PAID, example: false }], 'invoice.paid'), 'false', 'a falsy example is one');
  });
});
