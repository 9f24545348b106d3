/** The archive bucket: whole objects in, whole objects out. */
export interface Archive {
  /** Writes (or overwrites) an object; the adapter has the store check the bytes it received. */
  put(key: string, body: Uint8Array, sha256Hex: string): Promise<void>;
  /** The object's bytes, or undefined when there is no such object. */
  get(key: string): Promise<Uint8Array | undefined>;
  /** Every key under `prefix`, in key order. */
  list(prefix: string): Promise<readonly string[]>;
  delete(key: string): Promise<void>;
}

/** What one archive object holds: the id and exact version of each delivery in it. */
export interface ArchiveBatch {
  readonly objectKey: string;
  readonly subscriptionId: string;
  readonly day: string;
  readonly items: readonly { readonly id: string; readonly updatedAt: string }[];
  /**
   * `writing`: the rows are all still in DynamoDB and the object may or may not exist.
   * `written`: the object was read back and verified; rows may be partly deleted.
   */
  readonly phase: 'writing' | 'written';
  readonly createdAt: string;
}

/**
 * The archiver's write-ahead log: a batch is recorded before its object is written and
 * removed after its rows are deleted, so a run that dies anywhere in between is finished by
 * the next run instead of being re-archived under another key.
 */
export interface ArchiveManifestStore {
  put(batch: ArchiveBatch): Promise<void>;
  setPhase(objectKey: string, phase: ArchiveBatch['phase']): Promise<void>;
  delete(objectKey: string): Promise<void>;
  /** Unfinished batches (there are none after a clean run). */
  list(): Promise<readonly ArchiveBatch[]>;
  /** One archiver at a time: takes the run lock if free or expired; false when another run holds it. */
  lock(owner: string, untilIso: string, nowIso: string): Promise<boolean>;
  unlock(owner: string): Promise<void>;
}
