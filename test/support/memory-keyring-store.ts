import type { KeyringStore, RingKey } from '#ports/keyring-store.ts';

/** The keyring with DynamoDbKeyringStore's conditions: a ring's key is created once. */
export class InMemoryKeyringStore implements KeyringStore {
  readonly items = new Map<string, RingKey>();

  async get(ring: string): Promise<RingKey | undefined> {
    const key = this.items.get(ring);
    return key && { ...key };
  }

  async create(key: RingKey): Promise<boolean> {
    if (this.items.has(key.ring)) return false;
    this.items.set(key.ring, { ...key });
    return true;
  }
}
