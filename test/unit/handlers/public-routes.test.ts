import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PUBLIC_API_ROUTES } from '#config/topology.ts';
import { ROUTES } from '#handlers/api/router.ts';

describe('public routes', () => {
  it('the router answers without a key exactly the routes API Gateway leaves open', () => {
    const router = ROUTES.filter((r) => r.access === 'public')
      .map((r) => `${r.method} ${r.path}`)
      .sort();
    assert.deepEqual(router, PUBLIC_API_ROUTES.map((r) => `${r.method} ${r.path}`).sort());
  });
});
