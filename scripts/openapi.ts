/**
 * `npm run openapi`: writes docs/openapi.json, the document GET /openapi.json serves, from the
 * router's ROUTES and the operations table, and renders its reference into docs/api.md between
 * the reference markers (scripts/api-reference.ts), leaving the hand-written part as it is. Unit
 * tests (test/unit/handlers/openapi.test.ts, api-reference.test.ts) fail while either file differs
 * from what this writes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { openApiDocument, openApiText } from '#handlers/api/openapi.ts';
import { ROUTES } from '#handlers/api/router.ts';
import { apiReference, withReference } from './api-reference.ts';

const OPENAPI_FILE = new URL('../docs/openapi.json', import.meta.url);
const API_GUIDE_FILE = new URL('../docs/api.md', import.meta.url);

writeFileSync(OPENAPI_FILE, openApiText(ROUTES));
console.log(`wrote ${OPENAPI_FILE.pathname}`);
writeFileSync(
  API_GUIDE_FILE,
  withReference(readFileSync(API_GUIDE_FILE, 'utf8'), apiReference(openApiDocument(ROUTES))),
);
console.log(`wrote the reference in ${API_GUIDE_FILE.pathname}`);
