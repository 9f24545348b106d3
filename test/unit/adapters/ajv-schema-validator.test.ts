import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AjvSchemaValidator } from '#adapters/ajv-schema-validator.ts';

const ORDER =
  '{"type":"object","properties":{"amount":{"type":"number"}},"required":["amount"],"additionalProperties":false}';

describe('AjvSchemaValidator', () => {
  it('says where and how a value breaks the schema, and nothing when it matches', () => {
    const v = new AjvSchemaValidator();
    assert.equal(v.mismatch('order@1', ORDER, '{"amount":12.5}'), undefined);
    assert.equal(v.mismatch('order@1', ORDER, '{"amount":"12"}'), '/amount must be number');
    assert.equal(v.mismatch('order@1', ORDER, '{}'), "must have required property 'amount'");
    assert.equal(
      v.mismatch('order@1', ORDER, '{"amount":1,"extra":true}'),
      'must NOT have additional properties (extra)',
    );
    assert.equal(v.mismatch('order@1', ORDER, '[1]'), 'must be object');
  });

  it('reads a schema without $schema as draft 2020-12, and one that says draft-07 as draft-07', () => {
    const v = new AjvSchemaValidator();
    // prefixItems is 2020-12's tuple; draft-07 spells it items: [...].
    assert.equal(v.mismatch('a@1', '{"prefixItems":[{"type":"string"}]}', '[1]'), '/0 must be string');
    assert.equal(
      v.mismatch('b@1', '{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}]}', '[1]'),
      '/0 must be string',
    );
    assert.equal(
      v.schemaProblem('{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"string"}'),
      undefined,
    );
    assert.match(v.schemaProblem('{"$schema":"http://json-schema.org/draft-04/schema#"}') ?? '', /draft 2020-12/);
  });

  it('treats formats and unknown keywords as annotations, and lets two types share an $id', () => {
    const v = new AjvSchemaValidator();
    assert.equal(
      v.mismatch('a@1', '{"type":"string","format":"email","x-owner":"billing"}', '"not an email"'),
      undefined,
    );
    assert.equal(v.schemaProblem('{"$id":"https://example.com/order","type":"object"}'), undefined);
    assert.equal(v.schemaProblem('{"$id":"https://example.com/order","type":"array"}'), undefined);
  });

  it('refuses what cannot be used: not an object, an invalid keyword, a $ref it cannot resolve (never fetched)', () => {
    const v = new AjvSchemaValidator();
    assert.match(v.schemaProblem('true') ?? '', /JSON Schema object/);
    assert.match(v.schemaProblem('{"type":"nope"}') ?? '', /schema is invalid/);
    assert.match(v.schemaProblem('{"$ref":"https://example.com/s.json"}') ?? '', /can't resolve reference/);
    assert.throws(() => v.mismatch('bad@1', '{"type":"nope"}', '1'), /schema is invalid/);
  });

  it('compiles a schema once per key: the same key is the same version of a type', () => {
    const v = new AjvSchemaValidator();
    assert.equal(v.mismatch('t@1', '{"type":"string"}', '1'), 'must be string');
    // Under the same key the compiled check is reused (the text is not compiled again)…
    assert.equal(v.mismatch('t@1', '{"type":"number"}', '1'), 'must be string');
    // …and a new version (a new updatedAt) is compiled afresh.
    assert.equal(v.mismatch('t@2', '{"type":"number"}', '1'), undefined);
  });
});
