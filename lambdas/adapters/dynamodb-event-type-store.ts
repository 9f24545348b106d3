import {
  DeleteCommand,
  GetCommand,
  ScanCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { EventTypeEntry } from '#domain/event-type-catalog.ts';
import type { EventTypeInput, EventTypeStore } from '#ports/event-type-store.ts';
import { decodeCursor, encodeCursor, type Page, type PageRequest, InvalidCursorError } from '#ports/page.ts';

/** The entry's attributes, and only those (a row may one day carry more). */
function fromItem(item: Record<string, unknown> | undefined): EventTypeEntry | undefined {
  if (!item) return undefined;
  return {
    name: item.name as string,
    description: item.description as string,
    ...(typeof item.schemaJson === 'string' ? { schemaJson: item.schemaJson } : {}),
    ...(typeof item.exampleJson === 'string' ? { exampleJson: item.exampleJson } : {}),
    deprecated: item.deprecated === true,
    createdAt: item.createdAt as string,
    updatedAt: item.updatedAt as string,
  };
}

/**
 * The catalog in DynamoDB, one item per type keyed by its name; schemas and examples are kept
 * as the JSON text written (a DynamoDB map would refuse some JSON: empty keys, nesting past 32).
 * The catalog is small (EVENT_TYPE_LIMITS.typesMax), so a listing reads it whole and pages it
 * in name order, and publish's `catalog()` is one Scan per container per `cacheMs`.
 */
export class DynamoDbEventTypeStore implements EventTypeStore {
  private cached: { readonly at: number; readonly catalog: Promise<ReadonlyMap<string, EventTypeEntry>> } | undefined;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly cacheMs = 30_000,
    private readonly now: () => number = Date.now,
  ) {}

  async get(name: string): Promise<EventTypeEntry | undefined> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: { name }, ConsistentRead: true }));
    return fromItem(out.Item);
  }

  async list(request: PageRequest): Promise<Page<EventTypeEntry>> {
    const position = decodeCursor<{ after?: unknown }>(request.cursor);
    if (position !== undefined && typeof position.after !== 'string') throw new InvalidCursorError();
    const after = position?.after as string | undefined;
    const all = [...(await this.readAll(true)).values()];
    const rest = after === undefined ? all : all.filter((e) => e.name > after);
    const items = rest.slice(0, request.limit);
    return {
      items,
      ...(rest.length > items.length ? { nextCursor: encodeCursor({ after: items.at(-1)!.name }) } : {}),
    };
  }

  async count(): Promise<number> {
    let total = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.db.send(
        new ScanCommand({ TableName: this.table, Select: 'COUNT', ConsistentRead: true, ExclusiveStartKey: start }),
      );
      total += out.Count ?? 0;
      start = out.LastEvaluatedKey;
    } while (start);
    return total;
  }

  /** The read is cached as it starts, so the publishes of one moment share it; a failed read is not kept. */
  catalog(): Promise<ReadonlyMap<string, EventTypeEntry>> {
    const hit = this.cached;
    if (hit && this.now() - hit.at < this.cacheMs) return hit.catalog;
    const catalog = this.readAll(false);
    if (this.cacheMs > 0) {
      const entry = { at: this.now(), catalog };
      this.cached = entry;
      catalog.catch(() => {
        if (this.cached === entry) this.cached = undefined;
      });
    }
    return catalog;
  }

  async put(
    input: EventTypeInput,
    nowIso: string,
  ): Promise<{ readonly kind: 'created' | 'replaced'; readonly entry: EventTypeEntry }> {
    const set = ['#d = :d', '#dep = :dep', '#u = :now', '#c = if_not_exists(#c, :now)'];
    const remove: string[] = [];
    const names: Record<string, string> = {
      '#d': 'description',
      '#dep': 'deprecated',
      '#u': 'updatedAt',
      '#c': 'createdAt',
      '#s': 'schemaJson',
      '#e': 'exampleJson',
    };
    const values: Record<string, unknown> = { ':d': input.description, ':dep': input.deprecated, ':now': nowIso };
    if (input.schemaJson !== undefined) {
      set.push('#s = :s');
      values[':s'] = input.schemaJson;
    } else remove.push('#s');
    if (input.exampleJson !== undefined) {
      set.push('#e = :e');
      values[':e'] = input.exampleJson;
    } else remove.push('#e');
    // One write whatever was there: the old item, if any, says whether this created or replaced it.
    const out = await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { name: input.name },
        UpdateExpression: `SET ${set.join(', ')}${remove.length ? ` REMOVE ${remove.join(', ')}` : ''}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_OLD',
      }),
    );
    this.cached = undefined;
    const old = fromItem(out.Attributes);
    return {
      kind: old ? 'replaced' : 'created',
      entry: { ...input, createdAt: old?.createdAt ?? nowIso, updatedAt: nowIso },
    };
  }

  async delete(name: string): Promise<EventTypeEntry | undefined> {
    const out = await this.db.send(
      new DeleteCommand({ TableName: this.table, Key: { name }, ReturnValues: 'ALL_OLD' }),
    );
    this.cached = undefined;
    return fromItem(out.Attributes);
  }

  /** Every entry by name, in name order (`consistent` for the API's own reads, eventually consistent for publish's). */
  private async readAll(consistent: boolean): Promise<ReadonlyMap<string, EventTypeEntry>> {
    const entries: EventTypeEntry[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.db.send(
        new ScanCommand({ TableName: this.table, ConsistentRead: consistent, ExclusiveStartKey: start }),
      );
      for (const item of out.Items ?? []) entries.push(fromItem(item)!);
      start = out.LastEvaluatedKey;
    } while (start);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return new Map(entries.map((e) => [e.name, e]));
  }
}
