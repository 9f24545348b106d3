import { AssertionError } from 'node:assert';
import type { z } from 'zod';
import { errorBody } from '#app/schema/responses.ts';
import { documentedAnswers } from '#handlers/api/openapi.ts';
import { patternOf } from '#handlers/api/route.ts';
import { ROUTES } from '#handlers/api/router.ts';

/**
 * Every answer an integration test gets from the API, checked against what the OpenAPI
 * document says of it (lambdas/handlers/api/operations.ts): the route is found by method and
 * path as the router finds it, and a 2xx or 4xx body must be one the documented schema for
 * that status accepts. So the document cannot drift from what the API really answers without
 * some test failing, naming the route.
 */

const MATCHERS = ROUTES.map((route) => ({ route, pattern: patternOf(route.path) }));

function refusal(schema: z.ZodType, body: unknown): string | undefined {
  const result = schema.safeParse(body);
  if (result.success) return undefined;
  return result.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`)
    .join('; ');
}

/** Throws an AssertionError naming the route when `body` is not what the document says `method path` answers with `status`. */
export function checkAnswer(method: string, pathAndQuery: string, status: number, body: unknown): void {
  if (!((status >= 200 && status < 300) || (status >= 400 && status < 500))) return;
  const raw = new URL(pathAndQuery, 'http://api.invalid').pathname;
  const path = raw.length > 1 ? raw.replace(/\/+$/, '') : raw;
  const route = MATCHERS.find((m) => m.route.method === method.toUpperCase() && m.pattern.test(path))?.route;
  if (!route) {
    // No route answers this method on this path: only a refusal is possible (401, 404 route_not_found, 405).
    if (status >= 400) {
      const wrong = refusal(errorBody, body);
      if (wrong)
        throw new AssertionError({
          message: `${method} ${path} (no route) answered ${status} with a body that is not the documented error shape: ${wrong}\n${JSON.stringify(body)?.slice(0, 500)}`,
        });
      return;
    }
    throw new AssertionError({ message: `${method} ${path} answered ${status}, but no route in ROUTES matches it` });
  }
  const name = `${route.method} ${route.path}`;
  const answers = documentedAnswers(route);
  if (!answers)
    throw new AssertionError({
      message: `${name} is not documented in the operations table (lambdas/handlers/api/operations.ts)`,
    });
  const schema = answers.get(status);
  if (!schema)
    throw new AssertionError({
      message: `${name} answered ${status}, which its OpenAPI operation does not document (documented: ${[...answers.keys()].join(', ')})`,
    });
  const wrong = refusal(schema, body);
  if (wrong)
    throw new AssertionError({
      message: `${name} answered ${status} with a body its documented schema refuses: ${wrong}\n${JSON.stringify(body)?.slice(0, 500)}`,
    });
}
