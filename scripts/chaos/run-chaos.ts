import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { GetQueueUrlCommand, PurgeQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { QUEUES, TABLES } from '#config/topology.ts';
import { attemptLog } from '#domain/attempt-log.ts';
import type { Delivery } from '#domain/types.ts';
import { apiClient } from '#test/api-client.ts';
import { ChaosReceiver, type Behaviour } from './chaos-receiver.ts';
import { duplicateCauses, type DuplicateCauses } from './duplicates.ts';
import { seededRandom } from './random.ts';
import { RuntimeProcess, type RuntimeEndpoints } from './runtime-process.ts';
import { freePortBlock } from '#test/main-process.ts';
import { DUMMY_CREDENTIALS } from '../dynamodb-local.ts';

export interface ChaosOptions {
  readonly events: number;
  /** Offered publish rate, events per second. */
  readonly publishRate: number;
  /** Subscriptions every event fans out to. */
  readonly fanOut: number;
  /** SIGKILL the runtime after a random uptime in [min, max] ms, while publishing lasts. */
  readonly killEveryMs: readonly [number, number];
  readonly maxKills: number;
  /** Purge the delivery queue once, right after this restart (1 = after the first kill). */
  readonly purgeAfterKill: number;
  readonly drainTimeoutMs: number;
  readonly seed: number;
  readonly senderTimeoutMs: number;
  readonly retryPolicy: Readonly<Record<string, number>>;
  /** How long past due a pending delivery waits before the sweeper re-enqueues it (heals the purge and kills). */
  readonly sweepGraceSeconds: number;
  readonly behaviours?: Readonly<Record<Behaviour, number>>;
  readonly log?: (line: string) => void;
  /** Keep the data folder when something was lost, to examine it (its path is logged). */
  readonly keepDataOnLoss?: boolean;
  /** The runtime's log level (default ERROR). */
  readonly logLevel?: string;
  /**
   * An external DynamoDB for the runtime (DynamoDB Local): it outlives every SIGKILL, unlike the
   * embedded dynalite, which dies with the runtime between a write's item and its index entries.
   */
  readonly dynamodbEndpoint?: string;
}

export interface ChaosReport {
  readonly events: number;
  readonly accepted: number;
  readonly publishRetries: number;
  readonly deliveries: number;
  readonly delivered: number;
  readonly failed: number;
  readonly expired: number;
  /** Accepted deliveries not delivered or dead-lettered with history at the end (must be 0). */
  readonly lost: number;
  readonly lostSamples: readonly string[];
  readonly receiverRequests: number;
  readonly behaviours: Readonly<Record<string, number>>;
  /** 2xx answers beyond the first for the same (endpoint, webhook-id): what receivers dedupe. */
  readonly duplicates: number;
  readonly duplicateRate: number;
  /** What kept each duplicated answer's outcome from being written: a kill, or nothing found (expected 0). */
  readonly duplicateCauses: DuplicateCauses;
  /** Requests whose signature standardwebhooks refused (must be 0). */
  readonly unverified: number;
  readonly redirectsFollowed: number;
  /** Requests the receiver saw that no attempt record shows (a kill between POST and record). */
  readonly unrecordedAttempts: number;
  /** Dead letters whose attempt log was read through the API, and how many of those were empty. */
  readonly deadLettersChecked: number;
  readonly deadLettersWithoutLog: number;
  readonly kills: number;
  readonly purged: boolean;
  readonly peakRuntimeRssMb: number;
  readonly peakHarnessRssMb: number;
  readonly publishSeconds: number;
  readonly drainSeconds: number;
  readonly totalSeconds: number;
}

const TERMINAL = new Set(['delivered', 'failed', 'expired']);
const LOCAL = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
/** How long after a 2xx answer a kill still explains its duplicate (duplicates.ts). */
const RECORD_WINDOW_MS = 1000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function scanAll(
  db: DynamoDBClient,
  table: string,
  projection: string,
): Promise<Record<string, AttributeValue>[]> {
  const items: Record<string, AttributeValue>[] = [];
  let start: Record<string, AttributeValue> | undefined;
  const names = Object.fromEntries(projection.split(',').map((n) => [`#${n}`, n]));
  do {
    const out = await db.send(
      new ScanCommand({
        TableName: table,
        ProjectionExpression: Object.keys(names).join(','),
        ExpressionAttributeNames: names,
        ExclusiveStartKey: start,
        ConsistentRead: true,
      }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

async function purgeDeliveryQueue(endpoints: RuntimeEndpoints): Promise<void> {
  const sqs = new SQSClient({ ...LOCAL, endpoint: endpoints.sqs });
  try {
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: QUEUES.delivery.localName }));
    await sqs.send(new PurgeQueueCommand({ QueueUrl }));
  } finally {
    sqs.destroy();
  }
}

/** One POST /v1/events with a bounded wait; undefined when the runtime did not accept it. */
async function publishOnce(apiUrl: string, key: string, body: unknown): Promise<string[] | undefined> {
  try {
    const res = await fetch(`${apiUrl}/v1/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(5000),
    });
    const json = (await res.json()) as { deliveryIds?: string[] };
    return res.status === 202 || res.status === 200 ? json.deliveryIds : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Publishes `events` events (each retried with the same id until accepted, as a producer
 * would) to a runtime that is SIGKILLed and restarted every few seconds, purges the delivery
 * queue once, then waits until every accepted delivery is terminal and accounts for each.
 */
export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const log = options.log ?? (() => {});
  const started = Date.now();
  const random = seededRandom(options.seed);
  const dataDir = mkdtempSync(join(tmpdir(), 'hookline-chaos-'));
  const adminKey = `hk_admin_chaos_${randomBytes(12).toString('hex')}`;
  const receiver = await new ChaosReceiver({
    random,
    senderTimeoutMs: options.senderTimeoutMs,
    ...(options.behaviours ? { behaviours: options.behaviours } : {}),
  }).start();
  const runtime = new RuntimeProcess({
    // The runtime listens on PORT to PORT+3 (API, DynamoDB, SQS/S3, Invoke), the same at every restart.
    PORT: String(await freePortBlock(4)),
    HOOKLINE_DATA_DIR: dataDir,
    HOOKLINE_ADMIN_KEY: adminKey,
    HOOKLINE_DEFAULT_RETRY_POLICY: JSON.stringify(options.retryPolicy),
    HOOKLINE_SENDER_TIMEOUT_MS: String(options.senderTimeoutMs),
    HOOKLINE_SWEEP_GRACE_SECONDS: String(options.sweepGraceSeconds),
    HOOKLINE_SWEEP_INTERVAL_MS: '1000',
    HOOKLINE_LOG_LEVEL: options.logLevel ?? 'ERROR',
    ...(options.dynamodbEndpoint
      ? { ...DUMMY_CREDENTIALS, AWS_REGION: 'us-east-1', AWS_ENDPOINT_URL_DYNAMODB: options.dynamodbEndpoint }
      : {}),
  });
  let db: DynamoDBClient | undefined;
  let keep = false;
  try {
    let endpoints = await runtime.start();
    const api = apiClient(endpoints.api, adminKey);
    const pathOf = new Map<string, string>();
    for (let i = 0; i < options.fanOut; i++) {
      const path = `/endpoint-${i}`;
      const res = await api.post('/v1/subscriptions', {
        url: `${receiver.url}${path}`,
        eventTypes: ['chaos.*'],
        description: 'chaos run',
      });
      if (res.status !== 201) throw new Error(`subscribe failed: ${res.status} ${JSON.stringify(res.body)}`);
      receiver.expectSecret(path, res.body.secret);
      pathOf.set(res.body.id, path);
    }

    // Publishing: paced at the offered rate, each event retried with its id until accepted.
    const accepted = new Map<string, string[]>();
    let publishRetries = 0;
    let publishing = true;
    const publishStarted = Date.now();
    const publishDeadline = publishStarted + (options.events / options.publishRate) * 1000 * 3 + 60_000;
    const publishOne = async (i: number) => {
      const body = { id: `chaos-${i}`, type: 'chaos.event', payload: { n: i, pad: 'p'.repeat(200) } };
      await sleep(Math.max(0, publishStarted + (i / options.publishRate) * 1000 - Date.now()));
      for (let tries = 0; Date.now() < publishDeadline; tries++) {
        const ids = await publishOnce(endpoints.api, adminKey, body);
        if (ids) return void accepted.set(body.id, ids);
        publishRetries++;
        await sleep(100 + Math.min(1000, 50 * tries));
      }
    };
    let next = 0;
    const workers = Array.from({ length: Math.max(4, Math.ceil(options.publishRate / 10)) }, async () => {
      while (next < options.events) await publishOne(next++);
    });
    const publishDone = Promise.all(workers).then(() => {
      publishing = false;
    });

    // Chaos: SIGKILL and restart every few seconds while publishing lasts; purge once.
    const killedAt: number[] = [];
    let purged = false;
    while (publishing && killedAt.length < options.maxKills) {
      const [min, max] = options.killEveryMs;
      await Promise.race([sleep(min + random() * (max - min)), publishDone]);
      if (!publishing) break;
      killedAt.push(Date.now());
      await runtime.kill();
      const kills = killedAt.length;
      endpoints = await runtime.start();
      log(`kill ${kills}: restarted (accepted ${accepted.size}/${options.events}, receiver saw ${receiver.requests})`);
      if (kills === options.purgeAfterKill) {
        await purgeDeliveryQueue(endpoints);
        purged = true;
        log('delivery queue purged');
      }
    }
    await publishDone;
    const publishSeconds = (Date.now() - publishStarted) / 1000;
    log(
      `published: ${accepted.size}/${options.events} accepted in ${publishSeconds.toFixed(1)} s after ${killedAt.length} kills`,
    );

    // Drain: the runtime now runs undisturbed until every accepted delivery is terminal.
    db = new DynamoDBClient({ ...LOCAL, endpoint: endpoints.dynamodb });
    const expected = [...accepted.values()].flat();
    const drainStarted = Date.now();
    let states = new Map<string, Record<string, AttributeValue>>();
    for (;;) {
      const items = await scanAll(
        db,
        TABLES.deliveries.localName,
        'id,subscriptionId,eventId,state,attempts,nextAttemptAt,leaseUntil,updatedAt,lastError,firstAttempt,lastAttempt,earlierAttempts',
      );
      states = new Map(items.map((item) => [item.id!.S!, item]));
      const open = expected.filter((id) => !TERMINAL.has(states.get(id)?.state?.S ?? ''));
      if (open.length === 0 || Date.now() - drainStarted > options.drainTimeoutMs) break;
      log(`draining: ${open.length} deliveries not yet terminal`);
      await sleep(2000);
    }
    const drainSeconds = (Date.now() - drainStarted) / 1000;

    // Accounting: every accepted delivery must be delivered (and acknowledged) or dead-lettered with history.
    /** Each delivery's logged attempt numbers: the attempts rows' (a row's inline ones are added below). */
    const attemptsOf = new Map<string, Set<string>>();
    for (const a of await scanAll(db, TABLES.attempts.localName, 'deliveryId,seq')) {
      const seqs = attemptsOf.get(a.deliveryId!.S!) ?? new Set<string>();
      attemptsOf.set(a.deliveryId!.S!, seqs.add(a.seq!.N!));
    }
    const count = { delivered: 0, failed: 0, expired: 0 };
    const lost: string[] = [];
    let unrecordedAttempts = 0;
    const deadLetters: string[] = [];
    /** Which delivery an (endpoint, webhook-id) key is, so a duplicate no kill explains names the row to look up. */
    const deliveryOf = new Map<string, string>();
    for (const id of expected) {
      const item = states.get(id);
      const state = item?.state?.S;
      if (!item || !state || !TERMINAL.has(state)) {
        const f = (name: string) => item?.[name]?.S ?? item?.[name]?.N ?? '-';
        lost.push(
          `${id}: ${state ?? 'missing'} (attempts ${f('attempts')}, next ${f('nextAttemptAt')}, lease ${f('leaseUntil')}, updated ${f('updatedAt')}, last error ${f('lastError').slice(0, 80)})`,
        );
        continue;
      }
      const key = `${pathOf.get(item.subscriptionId!.S!)} ${item.eventId!.S!}`;
      deliveryOf.set(key, id);
      // The whole log: attempts rows plus the attempts a row holds inline, each number once (domain/attempt-log.ts).
      const seqs = new Set(attemptsOf.get(id));
      for (const a of attemptLog(unmarshall(item) as Delivery, [])) seqs.add(String(a.seq));
      const recorded = seqs.size;
      unrecordedAttempts += Math.max(0, (receiver.received.get(key) ?? 0) - recorded);
      if (state === 'delivered' && !receiver.answers.has(key))
        lost.push(`${id}: delivered but never acknowledged by the receiver`);
      else if (state !== 'delivered' && recorded === 0) lost.push(`${id}: ${state} without attempt history`);
      else count[state as keyof typeof count]++;
      if (state !== 'delivered') deadLetters.push(id);
    }
    // Dead letters as an operator sees them: through the API, with their attempt log.
    const checked = deadLetters.slice(0, 200);
    let withoutLog = 0;
    for (const id of checked) {
      const res = await api.get(`/v1/deliveries/${id}`);
      if (res.status !== 200 || !Array.isArray(res.body.attemptLog) || res.body.attemptLog.length === 0) withoutLog++;
    }
    const duplicates = [...receiver.answers.values()].reduce((sum, list) => sum + list.length - 1, 0);
    if (lost.length > 0) {
      log(`lost deliveries; the runtime's last output:\n${runtime.output()}`);
      keep = options.keepDataOnLoss ?? false;
      if (keep) log(`data kept in ${dataDir}`);
    }
    // An unexplained duplicate's attempt log, read while the runtime still answers: which attempt was not recorded tells why.
    for (const sample of duplicateCauses(
      receiver.answers,
      killedAt,
      RECORD_WINDOW_MS,
      (key) => `${key} (${deliveryOf.get(key) ?? 'no row'})`,
    ).unexplainedSamples) {
      const id = /\((dlv_[^)]+)\)/.exec(sample)?.[1];
      const res = id ? await api.get(`/v1/deliveries/${id}`) : undefined;
      const attempts = (res?.body?.attemptLog ?? []) as Array<{
        seq: number;
        startedAt: string;
        status?: number;
        error?: string;
      }>;
      log(
        `unexplained duplicate ${sample}; attempts recorded: ${attempts.map((a) => `#${a.seq} ${a.startedAt} ${a.status ?? a.error}`).join(', ') || 'none'}`,
      );
    }
    await runtime.stop();
    return {
      events: options.events,
      accepted: accepted.size,
      publishRetries,
      deliveries: expected.length,
      ...count,
      lost: lost.length,
      lostSamples: lost.slice(0, 10),
      receiverRequests: receiver.requests,
      behaviours: { ...receiver.byBehaviour },
      duplicates,
      duplicateRate: count.delivered ? duplicates / count.delivered : 0,
      duplicateCauses: duplicateCauses(
        receiver.answers,
        killedAt,
        RECORD_WINDOW_MS,
        (key) => `${key} (${deliveryOf.get(key) ?? 'no row'})`,
      ),
      unverified: receiver.unverified,
      redirectsFollowed: receiver.redirectsFollowed,
      unrecordedAttempts,
      deadLettersChecked: checked.length,
      deadLettersWithoutLog: withoutLog,
      kills: killedAt.length,
      purged,
      peakRuntimeRssMb: Math.round(runtime.peakRssKb / 1024),
      peakHarnessRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
      publishSeconds,
      drainSeconds,
      totalSeconds: (Date.now() - started) / 1000,
    };
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- runtime output ---\n${runtime.output()}`, { cause: error });
  } finally {
    db?.destroy();
    await runtime.stop().catch(() => undefined);
    await receiver.stop();
    if (!keep) rmSync(dataDir, { recursive: true, force: true });
  }
}
