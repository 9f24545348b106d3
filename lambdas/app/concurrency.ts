/**
 * Runs `fn` over `items` with at most `limit` calls in flight: fast against DynamoDB and S3
 * without a burst that throttles a table or exhausts sockets. Rejects with the first error.
 */
export async function forEachLimit<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await fn(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
