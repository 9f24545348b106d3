import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  changeBody,
  createBody,
  draftOf,
  EMPTY_DRAFT,
  ENDPOINT_FIELDS,
  examplePayload,
  headersOf,
  listOf,
  OVERLAP_CHOICES,
  overlapUntil,
  rateLimitOf,
  refusedField,
  suggestedTestTypes,
  testEventBodyText,
  type EndpointLike,
} from '../../../dashboard/src/endpoint-model.ts';
import { parseTestEvent, parseUpdateSubscription } from '#app/subscriptions/subscription-request.ts';
import { DEFAULT_RETRY_POLICY } from '#domain/retry-policy.ts';

const ENDPOINT: EndpointLike = {
  id: 'sub_1',
  url: 'https://example.com/hooks',
  description: 'Orders',
  eventTypes: ['order.*', 'invoice.paid'],
  headers: { 'x-team': 'billing' },
  rateLimitPerSecond: 10,
  contactEmails: ['ops@example.com'],
};

describe('the endpoint form text', () => {
  it('lists: one per line or comma-separated, trimmed, blanks dropped', () => {
    assert.deepEqual(listOf(' a.b , c.*\n\n d '), ['a.b', 'c.*', 'd']);
    assert.deepEqual(listOf('  \n '), []);
  });

  it('headers: `Name: value` lines; a line without a colon is sent with an empty value for the API to refuse', () => {
    assert.deepEqual(headersOf('X-Team: billing\n\nX-Url: https://a.example/x:1'), {
      'X-Team': 'billing',
      'X-Url': 'https://a.example/x:1',
    });
    assert.deepEqual(headersOf('NoColon'), { NoColon: '' });
  });

  it('rate limit: blank is none, a number is one, anything else goes as typed (never NaN, which would travel as null)', () => {
    assert.equal(rateLimitOf(' '), undefined);
    assert.equal(rateLimitOf('25'), 25);
    assert.equal(rateLimitOf('2.5'), 2.5);
    assert.equal(rateLimitOf('fast'), 'fast');
  });

  it('a create sends what was filled in, and the URL even when empty', () => {
    assert.deepEqual(createBody(EMPTY_DRAFT), { url: '' });
    assert.deepEqual(
      createBody({
        ...EMPTY_DRAFT,
        url: ' https://example.com/h ',
        eventTypes: 'a.*',
        headers: 'X-A: 1',
        rateLimit: '5',
        contactEmails: 'a@example.com, b@example.com',
        description: 'Mine',
      }),
      {
        url: 'https://example.com/h',
        eventTypes: ['a.*'],
        description: 'Mine',
        headers: { 'X-A': '1' },
        rateLimitPerSecond: 5,
        contactEmails: ['a@example.com', 'b@example.com'],
      },
    );
  });

  it('an edit sends only what changed, null for an optional field emptied; nothing changed is {}', () => {
    const draft = draftOf(ENDPOINT);
    assert.deepEqual(changeBody(ENDPOINT, draft), {});
    // Header names compare without case, as HTTP (and the API, which lower-cases them) does.
    assert.deepEqual(changeBody(ENDPOINT, { ...draft, headers: 'X-Team: billing' }), {});
    assert.deepEqual(
      changeBody(ENDPOINT, {
        ...draft,
        url: 'https://example.com/v2',
        eventTypes: 'order.*',
        headers: '',
        rateLimit: '',
        contactEmails: '',
        description: '',
      }),
      {
        url: 'https://example.com/v2',
        eventTypes: ['order.*'],
        description: null,
        headers: null,
        rateLimitPerSecond: null,
        contactEmails: null,
      },
    );
    assert.deepEqual(changeBody(ENDPOINT, { ...draft, rateLimit: '11', headers: 'x-team: ops' }), {
      headers: { 'x-team': 'ops' },
      rateLimitPerSecond: 11,
    });
  });

  it("each body is one the API's parser reads as meant (or refuses naming the field the form has)", () => {
    const change = changeBody(ENDPOINT, { ...draftOf(ENDPOINT), headers: '', rateLimit: '' });
    assert.deepEqual(parseUpdateSubscription(JSON.stringify(change), DEFAULT_RETRY_POLICY), {
      headers: null,
      rateLimitPerSecond: null,
    });
    for (const [draft, field] of [
      [{ rateLimit: 'fast' }, 'rateLimitPerSecond'],
      [{ headers: 'NoColon' }, 'headers'],
      [{ eventTypes: 'not a type' }, 'eventTypes'],
      [{ contactEmails: 'nobody' }, 'contactEmails'],
    ] as const) {
      const body = JSON.stringify(changeBody(ENDPOINT, { ...draftOf(ENDPOINT), ...draft }));
      assert.throws(
        () => parseUpdateSubscription(body, DEFAULT_RETRY_POLICY),
        (e: Error) => refusedField(e.message, ENDPOINT_FIELDS) === field,
        `${body}: refused naming ${field}`,
      );
    }
  });

  it("finds the field a 400's message names, if the form has it", () => {
    assert.equal(refusedField('url: must use https', ENDPOINT_FIELDS), 'url');
    assert.equal(refusedField('headers.x-a: is not an HTTP header name', ENDPOINT_FIELDS), 'headers');
    assert.equal(refusedField("eventTypes: 'a b' is not an event type", ENDPOINT_FIELDS), 'eventTypes');
    assert.equal(refusedField('contactEmails[1]: nope', ENDPOINT_FIELDS), 'contactEmails');
    assert.equal(refusedField('body: name at least one field to change', ENDPOINT_FIELDS), undefined);
    assert.equal(refusedField('subscription sub_1 was deleted', ENDPOINT_FIELDS), undefined);
  });
});

describe('the test event form', () => {
  it('offers the test type, each exact type and an example under each prefix', () => {
    assert.deepEqual(suggestedTestTypes(['*', 'order.*', 'invoice.paid', 'order.*']), [
      'hookline.test',
      'order.example',
      'invoice.paid',
    ]);
  });

  it('prefills an example payload marked as one, naming the type and the endpoint', () => {
    const payload = JSON.parse(examplePayload('invoice.paid', 'sub_1'));
    assert.deepEqual(
      { example: payload.example, type: payload.type, subscriptionId: payload.subscriptionId },
      { example: true, type: 'invoice.paid', subscriptionId: 'sub_1' },
    );
  });

  it('sends the payload as typed, so the API reads it byte for byte (or refuses it when it is not JSON)', () => {
    assert.deepEqual(parseTestEvent(testEventBodyText(' invoice.paid ', '{"total": 1.0}')), {
      type: 'invoice.paid',
      payloadJson: '{"total": 1.0}',
    });
    assert.deepEqual(parseTestEvent(testEventBodyText('hookline.test', '  ')), { type: 'hookline.test' });
    assert.throws(
      () => parseTestEvent(testEventBodyText('a.b', '{"a": }')),
      /^ValidationError: body: is not valid JSON/,
    );
  });
});

describe('the rotate form', () => {
  it('says until when the old secret still verifies: the latest overlap end, none when nothing overlaps', () => {
    assert.equal(
      overlapUntil({
        secrets: [
          { expiresAt: null },
          { expiresAt: '2024-05-02T12:00:00.000Z' },
          { expiresAt: '2024-05-01T13:00:00.000Z' },
        ],
      }),
      '2024-05-02T12:00:00.000Z',
    );
    assert.equal(overlapUntil({ secrets: [{ expiresAt: null }] }), undefined);
  });

  it("offers the API's own default and most as overlaps", () => {
    assert.deepEqual(
      OVERLAP_CHOICES.map(([s]) => s),
      [0, 3600, 86_400, 604_800],
    );
    assert.match(OVERLAP_CHOICES[2]![1], /24 hours \(the default\)/);
    assert.match(OVERLAP_CHOICES[3]![1], /7 days \(the most\)/);
  });
});
