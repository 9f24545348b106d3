import type { z } from 'zod';
import { ValidationError } from '#app/errors.ts';

/** `a.b[2].c` from a zod issue path, the way every refusal names a field. */
export function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (text, key) => (typeof key === 'number' ? `${text}[${key}]` : text ? `${text}.${String(key)}` : String(key)),
    '',
  );
}

/**
 * The value as `schema` reads it, or a ValidationError naming the first field zod refused and
 * its rule: the API's one error shape whatever validated the input. `root` names the whole
 * value when the refusal is not about one field (the body, a query).
 */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, root = 'body'): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  // zod reports unknown keys on their object; the caller must be told which key to remove.
  const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
  throw new ValidationError(fieldPath(path) || root, issue.message);
}
