import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '#app/errors.ts';
import { parsePublishBatch, parsePublishRequest } from '#app/publish/publish-request.ts';

const refusal = (field: string, rule?: RegExp) => (e: unknown) =>
  e instanceof ValidationError && e.field === field && (!rule || rule.test(e.rule));

describe('parsePublishRequest: the audience fields', () => {
  it('reads tenantId, audience and subscriptionIds', () => {
    assert.deepEqual(
      parsePublishRequest('{"type":"a","payload":1,"tenantId":"acme","subscriptionIds":["sub_a","sub_b"]}'),
      { type: 'a', tenantId: 'acme', subscriptionIds: ['sub_a', 'sub_b'], payloadJson: '1' },
    );
    assert.deepEqual(parsePublishRequest('{"type":"a","payload":1,"audience":"all"}'), {
      type: 'a',
      audience: 'all',
      payloadJson: '1',
    });
  });

  const refused: [string, string, RegExp][] = [
    ['{"type":"a","payload":1,"tenantId":"a b"}', 'tenantId', /letters, digits/],
    ['{"type":"a","payload":1,"tenantId":7}', 'tenantId', /letters, digits/],
    ['{"type":"a","payload":1,"audience":"everyone"}', 'audience', /must be "all"/],
    ['{"type":"a","payload":1,"audience":"all","tenantId":"acme"}', 'audience', /leave out tenantId/],
    ['{"type":"a","payload":1,"subscriptionIds":[]}', 'subscriptionIds', /1 to 20/],
    [
      `{"type":"a","payload":1,"subscriptionIds":${JSON.stringify(Array.from({ length: 21 }, (_, i) => `sub_${i}`))}}`,
      'subscriptionIds',
      /1 to 20/,
    ],
    ['{"type":"a","payload":1,"subscriptionIds":["sub_a","sub_a"]}', 'subscriptionIds', /twice/],
    ['{"type":"a","payload":1,"subscriptionIds":["dlv_a"]}', 'subscriptionIds[0]', /sub_/],
    ['{"type":"a","payload":1,"subscriptionIds":"sub_a"}', 'subscriptionIds', /list/],
  ];
  for (const [body, field, rule] of refused) {
    it(`refuses ${body.length > 80 ? `${body.slice(0, 77)}...` : body}, naming ${field}`, () => {
      assert.throws(() => parsePublishRequest(body), refusal(field, rule));
    });
  }

  it('names the batch event a refusal is in', () => {
    assert.throws(
      () => parsePublishBatch('{"events":[{"type":"a","payload":1},{"type":"a","payload":1,"tenantId":""}]}'),
      refusal('events[1].tenantId'),
    );
  });
});
