import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { audienceOf, describeAudience, inAudience, sameAudience } from '#domain/audience.ts';

describe('audience', () => {
  it('is the tenant named, the producer without one, or every tenant with audience all', () => {
    assert.deepEqual(audienceOf({ tenantId: 'acme' }), { kind: 'tenant', tenantId: 'acme' });
    assert.deepEqual(audienceOf({}), { kind: 'producer' });
    assert.deepEqual(audienceOf({ audience: 'all' }), { kind: 'all' });
  });

  const cases: [string, Parameters<typeof audienceOf>[0], string | undefined, boolean][] = [
    ["a tenant's event, its own subscription", { tenantId: 'acme' }, 'acme', true],
    ["a tenant's event, another tenant's subscription", { tenantId: 'acme' }, 'globex', false],
    ["a tenant's event, a subscription without a tenant", { tenantId: 'acme' }, undefined, false],
    ["the producer's event, a subscription without a tenant", {}, undefined, true],
    ["the producer's event, a tenant's subscription", {}, 'acme', false],
    ["every tenant's event, a tenant's subscription", { audience: 'all' }, 'globex', true],
    ["every tenant's event, a subscription without a tenant", { audience: 'all' }, undefined, true],
  ];
  for (const [name, event, tenantId, expected] of cases) {
    it(`${name}: ${expected ? 'reached' : 'not reached'}`, () => {
      assert.equal(inAudience(audienceOf(event), tenantId === undefined ? {} : { tenantId }), expected);
    });
  }

  it('tells two audiences apart by kind and tenant', () => {
    assert.equal(sameAudience({ tenantId: 'acme' }, { tenantId: 'acme' }), true);
    assert.equal(sameAudience({ tenantId: 'acme' }, { tenantId: 'globex' }), false);
    assert.equal(sameAudience({ tenantId: 'acme' }, {}), false);
    assert.equal(sameAudience({}, { audience: 'all' }), false);
    assert.equal(sameAudience({ audience: 'all' }, { audience: 'all' }), true);
  });

  it('reads as words in a refusal', () => {
    assert.equal(describeAudience({ kind: 'tenant', tenantId: 'acme' }), 'tenant acme');
    assert.equal(describeAudience({ kind: 'producer' }), 'subscriptions without a tenant');
    assert.equal(describeAudience({ kind: 'all' }), 'every tenant');
  });
});
