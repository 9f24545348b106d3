import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { openApiDocument } from '#handlers/api/openapi.ts';
import { ROUTES } from '#handlers/api/router.ts';
import {
  apiReference,
  handWrittenPart,
  REFERENCE_END,
  REFERENCE_START,
  withReference,
} from '../../../scripts/api-reference.ts';

/**
 * docs/api.md is a hand-written guide around a reference generated from the OpenAPI document
 * (scripts/api-reference.ts, written by `npm run openapi`). The reference must be the one the
 * document gives now, and writing it must never touch the guide.
 */
const API_GUIDE = new URL('../../../docs/api.md', import.meta.url);
const committed = readFileSync(API_GUIDE, 'utf8');
const document = openApiDocument(ROUTES);
const reference = apiReference(document);

/** The part of the reference about one operation: from its heading to the next. */
function section(title: string): string {
  const start = reference.indexOf(`#### \`${title}\`\n`);
  assert.notEqual(start, -1, `the reference has a section for ${title}`);
  const next = reference.indexOf('\n#### ', start + 1);
  return reference.slice(start, next === -1 ? undefined : next);
}

describe('docs/api.md', () => {
  it('holds the reference as generated (run `npm run openapi` after changing a route or a schema)', () => {
    assert.equal(committed, withReference(committed, reference), 'docs/api.md is stale: run `npm run openapi`');
  });

  it('the staleness check can fail: a reference edited by hand is rewritten', () => {
    const edited = committed.replace('#### `GET /health`', '#### `GET /healthz`');
    assert.notEqual(edited, committed, 'the committed reference has a GET /health section to edit');
    assert.notEqual(withReference(edited, reference), edited);
  });

  it('keeps the hand-written guide: authentication, errors, paging, Idempotency-Key, the curl walk-through', () => {
    const { before } = handWrittenPart(committed);
    for (const heading of [
      '## Authentication',
      '## Errors',
      '## Paging',
      '## Idempotency-Key',
      '## A walk through the API with curl',
      '## Reconciliation',
      '## The subscription lifecycle',
      '## Reference',
    ]) {
      assert.ok(before.includes(`\n${heading}\n`), `the hand-written part has "${heading}"`);
    }
    assert.ok(before.includes('curl -s -X POST $API/v1/subscriptions -H "$H"'), 'the curl walk-through is there');
    assert.ok(before.includes('`Authorization: Bearer <key>`'));
    assert.ok(!before.includes('#### `GET /health`'), 'no generated text outside the markers');
  });

  it('writing the reference changes nothing outside the markers', () => {
    const guide = `# Guide\n\nhand-written ${REFERENCE_END.length}\n\n${REFERENCE_START}\nold reference\n${REFERENCE_END}\n\n## After\n\nmore text\n`;
    const written = withReference(guide, reference);
    assert.deepEqual(handWrittenPart(written), handWrittenPart(guide));
    assert.ok(!written.includes('old reference'));
    assert.ok(written.includes(`${REFERENCE_START}\n${reference.trimEnd()}\n${REFERENCE_END}`));
    assert.equal(withReference(written, reference), written, 'writing it twice changes nothing');
  });

  it('refuses a guide whose markers are missing, repeated or out of order, rather than overwrite it', () => {
    assert.throws(() => withReference('# Guide without markers\n', reference), /reference:start/);
    assert.throws(
      () => withReference(`${REFERENCE_START}\n${REFERENCE_END}\n${REFERENCE_START}\n`, reference),
      /once each/,
    );
    assert.throws(() => withReference(`${REFERENCE_END}\n${REFERENCE_START}\n`, reference), /comes before/);
  });
});

describe('the generated reference', () => {
  it('has a section for every operation of the document and every operational webhook', () => {
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of Object.keys(item)) section(`${method.toUpperCase()} ${path}`);
    }
    for (const type of Object.keys((document as any).webhooks)) section(`POST <your endpoint>: ${type}`);
    for (const { name } of (document as any).tags)
      assert.ok(reference.includes(`\n### ${name}\n`), `a heading for the tag ${name}`);
  });

  it('says who may call each operation, as the document marks it', () => {
    assert.match(section('GET /health'), /Who may call it: public: no key\./);
    assert.match(section('POST /v1/replays'), /Who may call it: the admin key only\./);
    assert.match(
      section('PATCH /v1/subscriptions/{subscriptionId}'),
      /Who may call it: the admin key, a tenant key \(its own tenant's only\), a customer portal session with access manage\./,
    );
    assert.match(section('GET /v1/deliveries'), /a tenant key \(its own tenant's only\), a customer portal session\./);
    // An admin route a manage session may call: the create.
    assert.match(
      section('POST /v1/subscriptions'),
      /Who may call it: the admin key, a customer portal session with access manage\./,
    );
  });

  it('lists query and body fields with whether each is required, and every answer with its meaning', () => {
    const deliveries = section('GET /v1/deliveries');
    assert.match(deliveries, /\| `subscriptionId` \| string, not empty \| yes \|/);
    assert.match(deliveries, /\| `cursor` \| string \| no \| a previous page's nextCursor, unchanged \|/);
    const publish = section('POST /v1/events');
    assert.match(publish, /Body \(`PublishRequest`\):/);
    assert.match(publish, /\| `type` \| string, not empty \| yes \|/);
    assert.match(publish, /\| `tenantId` \| string \| no \| the tenant the event belongs to/);
    assert.match(publish, /\| 202 \| accepted: one delivery per matching subscription \(`Published`\) \|/);
    assert.match(publish, /\| 403 \| forbidden: /);
    assert.match(publish, /Header `Idempotency-Key` \(optional\)/);
    assert.match(
      section('POST /v1/events/batch'),
      /array of `PublishRequest` \(the body of `POST \/v1\/events`\), 1–100 items/,
    );
    assert.match(
      section('POST /v1/subscriptions/{subscriptionId}/rotate-secret'),
      /Body \(`RotateSecretRequest`\), optional:/,
    );
  });
});
