/**
 * Runs `fn` over `items` with at most `limit` calls in flight: fast against DynamoDB and S3
 * without a burst that throttles a table or exhausts sockets. Rejects with the first error.
 */
export async function forEachLimit<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<void>,
): Promise<void> {
  const slots = new Slots(limit);
  await Promise.all(items.map((item, index) => slots.run(() => fn(item, index))));
}

/**
 * At most `limit` tasks at once, shared by work started at different times (a pipeline's pages),
 * taken in the order asked: a later page's writes queue behind an earlier page's, but start the
 * moment a slot frees, with no wait for the earlier page to end.
 */
export class Slots {
  private free: number;
  /**
   * Waiters in order, from `head` on. Not `shift()`: on a long queue (forEachLimit over 100,000
   * items queues them all) each shift moves every waiter behind it, and the whole run went quadratic.
   */
  private readonly waiting: (() => void)[] = [];
  private head = 0;

  constructor(limit: number) {
    this.free = limit;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.next();
      if (next) next();
      else this.free++;
    }
  }

  private next(): (() => void) | undefined {
    if (this.head === this.waiting.length) return undefined;
    const next = this.waiting[this.head++];
    // The served part is dropped once it is half the array: each waiter is moved at most once on average.
    if (this.head * 2 >= this.waiting.length) {
      this.waiting.splice(0, this.head);
      this.head = 0;
    }
    return next;
  }
}
