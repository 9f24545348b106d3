/**
 * `npm run openapi`: writes docs/openapi.json, the document GET /openapi.json serves, from the
 * router's ROUTES and the operations table. A unit test (test/unit/handlers/openapi.test.ts)
 * fails while the committed file differs from what this writes.
 */
import { writeFileSync } from 'node:fs';
import { openApiText } from '#handlers/api/openapi.ts';
import { ROUTES } from '#handlers/api/router.ts';

const OPENAPI_FILE = new URL('../docs/openapi.json', import.meta.url);

writeFileSync(OPENAPI_FILE, openApiText(ROUTES));
console.log(`wrote ${OPENAPI_FILE.pathname}`);
