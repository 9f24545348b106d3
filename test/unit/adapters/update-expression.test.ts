import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { updateExpression } from '#adapters/update-expression.ts';

describe('updateExpression', () => {
  it('aliases every SET attribute with a name and a value placeholder', () => {
    const expr = updateExpression({ state: 'pending', attempts: 0 });

    assert.deepEqual(expr, {
      UpdateExpression: 'SET #state = :state, #attempts = :attempts',
      ExpressionAttributeNames: { '#state': 'state', '#attempts': 'attempts' },
      ExpressionAttributeValues: { ':state': 'pending', ':attempts': 0 },
    });
  });

  it('turns an undefined SET value into a REMOVE, with a name but no value', () => {
    const expr = updateExpression({ state: 'failed', activeShard: undefined, dlDay: '2024-05-01' });

    assert.deepEqual(expr, {
      UpdateExpression: 'SET #state = :state, #dlDay = :dlDay REMOVE #activeShard',
      ExpressionAttributeNames: { '#state': 'state', '#activeShard': 'activeShard', '#dlDay': 'dlDay' },
      ExpressionAttributeValues: { ':state': 'failed', ':dlDay': '2024-05-01' },
    });
  });

  it('appends the explicit removals after the undefined ones', () => {
    const expr = updateExpression({ state: 'pending', lastStatus: undefined }, ['dlDay', 'expiresAt']);

    assert.equal(expr.UpdateExpression, 'SET #state = :state REMOVE #lastStatus, #dlDay, #expiresAt');
    assert.deepEqual(expr.ExpressionAttributeNames, {
      '#state': 'state',
      '#lastStatus': 'lastStatus',
      '#dlDay': 'dlDay',
      '#expiresAt': 'expiresAt',
    });
    assert.deepEqual(expr.ExpressionAttributeValues, { ':state': 'pending' });
  });

  it('writes only a REMOVE clause when nothing is set', () => {
    const expr = updateExpression({}, ['lastError']);

    assert.equal(expr.UpdateExpression, 'REMOVE #lastError');
    assert.deepEqual(expr.ExpressionAttributeNames, { '#lastError': 'lastError' });
  });

  it('keeps falsy but defined values as SETs (0, empty string, false, null)', () => {
    const expr = updateExpression({ attempts: 0, note: '', flag: false, gone: null });

    assert.equal(expr.UpdateExpression, 'SET #attempts = :attempts, #note = :note, #flag = :flag, #gone = :gone');
    assert.deepEqual(expr.ExpressionAttributeValues, { ':attempts': 0, ':note': '', ':flag': false, ':gone': null });
  });

  it('uses every name and value it declares (DynamoDB rejects unused ones)', () => {
    const expr = updateExpression({ a: 1, b: undefined, c: 'x' }, ['d']);

    const names = new Set(expr.UpdateExpression.match(/#\w+/g));
    const values = new Set(expr.UpdateExpression.match(/:\w+/g));
    assert.deepEqual(new Set(Object.keys(expr.ExpressionAttributeNames)), names);
    assert.deepEqual(new Set(Object.keys(expr.ExpressionAttributeValues)), values);
  });
});
