/**
 * An array appended at the back and released from the front, addressed by absolute position (the
 * count of items ever pushed before it). Released slots are cleared at once and the array is
 * compacted once they make up half of it, so a consumer that keeps up holds memory for what it
 * has not read yet, not for everything ever pushed (a stream carries millions of records a run).
 */
export class Fifo<T> {
  private items: (T | undefined)[] = [];
  private head = 0;
  private base = 0;

  /** The position of the oldest item still held. */
  get start(): number {
    return this.base + this.head;
  }

  /** The position the next push takes. */
  get end(): number {
    return this.base + this.items.length;
  }

  get size(): number {
    return this.items.length - this.head;
  }

  /** Array slots in use, released ones not yet compacted included: what the memory test watches. */
  get slots(): number {
    return this.items.length;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** The item at an absolute position, or undefined once released (or not pushed yet). */
  at(position: number): T | undefined {
    const i = position - this.base;
    return i >= this.head ? this.items[i] : undefined;
  }

  peek(): T | undefined {
    return this.items[this.head];
  }

  /** Releases every item before `position`. */
  releaseBefore(position: number): void {
    const until = Math.min(position - this.base, this.items.length);
    while (this.head < until) this.items[this.head++] = undefined;
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.base += this.head;
      this.head = 0;
    }
  }
}
