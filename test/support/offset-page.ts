import type { Page, PageRequest } from '#ports/page.ts';

/** Offset cursors: enough for in-memory stores; the adapters' own cursors are tested separately. */
export function offsetPage<T>(all: readonly T[], request: PageRequest): Page<T> {
  const start = request.cursor ? Number(request.cursor) : 0;
  const items = all.slice(start, start + request.limit);
  const next = start + items.length;
  return next < all.length ? { items, nextCursor: String(next) } : { items };
}
