import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { IDEMPOTENCY_KEY_ROUTES } from '#handlers/api/idempotency.ts';
import { portalLevelsFor } from '#handlers/api/portal-access.ts';
import { openApiDocument, openApiText } from '#handlers/api/openapi.ts';
import { OPERATIONS, REQUEST_COMPONENTS, RESPONSE_COMPONENTS } from '#handlers/api/operations.ts';
import { ROUTES, route } from '#handlers/api/router.ts';
import { fakeDeps } from '#test/fakes.ts';
import { OPERATIONAL_EVENT_COMPONENTS } from '#app/notices/operational-events.ts';

const keyOf = (r: { method: string; path: string }) => `${r.method} ${r.path}`;
const document = openApiDocument(ROUTES);
const operations = Object.values(document.paths).flatMap((item) => Object.values(item) as Record<string, any>[]);

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document (an independent validator)', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
    assert.equal(validator.version, '3.1');
  });

  it('the validator refuses a broken document (the check above can fail)', async () => {
    const broken = structuredClone(document) as any;
    broken.paths['/health'].get.responses = 'none';
    assert.equal((await new Validator().validate(broken)).valid, false);
  });

  it('documents every route of ROUTES, and only those', () => {
    const routes = ROUTES.map(keyOf).sort();
    const documented = Object.keys(OPERATIONS).sort();
    assert.deepEqual(
      {
        undocumented: routes.filter((k) => !documented.includes(k)),
        notRoutes: documented.filter((k) => !routes.includes(k)),
      },
      { undocumented: [], notRoutes: [] },
      'each ROUTES entry needs an OPERATIONS entry (lambdas/handlers/api/operations.ts) and the other way round',
    );
    const inDocument = Object.entries(document.paths)
      .flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    assert.deepEqual(inDocument, routes);
  });

  it('has unique operation ids, bearer security on every authenticated route and none on the public ones', () => {
    const ids = operations.map((o) => o.operationId);
    assert.equal(new Set(ids).size, ids.length);
    for (const r of ROUTES) {
      const op = (document.paths[r.path] as any)[r.method.toLowerCase()];
      assert.deepEqual(op.security, r.access === 'public' ? [] : [{ bearerAuth: [] }], keyOf(r));
      if (r.access !== 'public') assert.ok(op.responses['401'], `${keyOf(r)} documents 401`);
      if (r.access === 'admin') assert.ok(op.responses['403'], `${keyOf(r)} documents 403`);
    }
  });

  it('marks the portal access levels that may call each route (x-hookline-portal), and a 403 where a level may not', () => {
    const op = (key: string) => {
      const [method, path] = key.split(' ') as [string, string];
      return (document.paths[path] as any)[method.toLowerCase()];
    };
    for (const r of ROUTES) {
      const levels = portalLevelsFor(keyOf(r));
      assert.deepEqual(op(keyOf(r))['x-hookline-portal'], levels.length > 0 ? levels : undefined, keyOf(r));
      if (r.access !== 'public' && levels.length < 2)
        assert.ok(op(keyOf(r)).responses['403'], `${keyOf(r)} documents 403`);
    }
    assert.deepEqual(op('GET /v1/subscriptions')['x-hookline-portal'], ['view', 'manage']);
    assert.deepEqual(op('DELETE /v1/subscriptions/{subscriptionId}')['x-hookline-portal'], ['manage']);
    assert.deepEqual(op('POST /v1/subscriptions')['x-hookline-portal'], ['manage']);
    assert.equal(op('POST /v1/subscriptions')['x-hookline-access'], 'admin', 'a tenant key still may not create');
    assert.equal(op('POST /v1/replays')['x-hookline-portal'], undefined);
  });

  it('documents the Idempotency-Key header on exactly the routes that take it', () => {
    const withHeader = ROUTES.filter((r) =>
      (document.paths[r.path] as any)[r.method.toLowerCase()].parameters?.some(
        (p: any) => p.in === 'header' && p.name === 'Idempotency-Key',
      ),
    ).map(keyOf);
    assert.deepEqual(
      withHeader.sort(),
      [...IDEMPOTENCY_KEY_ROUTES].filter((k) => ROUTES.some((r) => keyOf(r) === k)).sort(),
    );
  });

  it('names every body and answer as a component, request schemas refusing unknown fields', () => {
    const schemas = (document.components as any).schemas as Record<string, any>;
    assert.deepEqual(
      Object.keys(schemas).sort(),
      [
        ...Object.keys(REQUEST_COMPONENTS),
        ...Object.keys(RESPONSE_COMPONENTS),
        ...Object.keys(OPERATIONAL_EVENT_COMPONENTS),
      ].sort(),
    );
    for (const name of Object.keys(REQUEST_COMPONENTS)) assert.equal(schemas[name].additionalProperties, false, name);
    const refs = JSON.stringify(document).match(/#\/components\/schemas\/\w+/g) ?? [];
    for (const ref of new Set(refs)) assert.ok(schemas[ref.split('/').pop()!], `${ref} exists`);
    // A few rules as the document shows them: the same schemas refuse requests.
    assert.deepEqual(schemas.PublishRequest.required, ['type', 'payload']);
    const limit = (document.paths['/v1/dead-letters'] as any).get.parameters.find((p: any) => p.name === 'limit');
    assert.deepEqual(
      [limit.schema.type, limit.schema.minimum, limit.schema.maximum, limit.required],
      ['integer', 1, 100, false],
    );
    const subscriptionId = (document.paths['/v1/deliveries'] as any).get.parameters.find(
      (p: any) => p.name === 'subscriptionId',
    );
    assert.equal(subscriptionId.required, true);
  });

  it('docs/openapi.json is the document as generated (run `npm run openapi` after changing a route or a schema)', () => {
    const committed = readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8');
    assert.equal(committed, openApiText(ROUTES), 'docs/openapi.json is stale: run `npm run openapi`');
  });

  it('GET /openapi.json serves it without a key', async () => {
    const res = await route(fakeDeps() as never, {
      method: 'GET',
      path: '/openapi.json',
      query: {},
      body: null,
      principal: undefined,
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, document);
  });
});
