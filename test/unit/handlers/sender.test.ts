import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { STAGE_RETRY_SECONDS } from '#app/redelivery/settle.ts';
import { MAX_WAIT_LINK_SECONDS } from '#config/topology.ts';
import type { AttemptResult } from '#domain/classify.ts';
import { ATTEMPT_LOG_MESSAGE, createSenderHandler } from '#handlers/sender.ts';
import { aDelivery, aSubscription, fakeDeps } from '#test/fakes.ts';

const context = {
  getRemainingTimeInMillis: () => 60_000,
  awsRequestId: 'r',
  functionName: 'sender',
} as unknown as Context;
const NOW = '2024-05-01T12:00:00.000Z';

const record = (messageId: string, body: string): SQSRecord =>
  ({ messageId, receiptHandle: `rh-${messageId}`, body }) as SQSRecord;
/** A due message: the sender reads the row (a replay's, the sweeper's, a drain's). */
const message = (deliveryId: string) => JSON.stringify({ v: 2, k: 'due', deliveryId, subscriptionId: 'sub_1' });
/** One message carrying several due deliveries, as the queue adapter packs them. */
const pack = (deliveryIds: readonly string[]) =>
  JSON.stringify({ pack: deliveryIds.map((deliveryId) => ({ v: 2, k: 'due', deliveryId, subscriptionId: 'sub_1' })) });

/** A logger whose error, info and debug lines are kept, so the test can tell a planned retry from a failure; INFO records keep their attributes. */
function recordingLogger() {
  const logger = new Logger({ logLevel: 'SILENT' });
  const lines = {
    error: [] as string[],
    debug: [] as string[],
    info: [] as Array<{ message: string; attributes: unknown }>,
  };
  logger.error = (...args: unknown[]) => void lines.error.push(String(args[0]));
  logger.debug = (...args: unknown[]) => void lines.debug.push(String(args[0]));
  logger.info = (...args: unknown[]) => void lines.info.push({ message: String(args[0]), attributes: args[1] });
  return { logger, lines };
}

/** One delivery per status; the event id (the webhook-id header) names the delivery so the scripted sender knows which is which. */
function senderWorld(statusById: Record<string, number>) {
  const deps = fakeDeps();
  deps.subscriptions.items.set('sub_1', aSubscription({ id: 'sub_1' }));
  for (const id of Object.keys(statusById)) {
    const eventId = `evt_${id}`;
    deps.deliveries.put(aDelivery({ id, eventId, url: `https://hooks.example.com/${id}` }));
    deps.events.items.set(eventId, {
      id: eventId,
      type: 't',
      body: '{}',
      subscriptionIds: ['sub_1'],
      deliveryIds: [id],
      createdAt: NOW,
    });
  }
  const http = {
    post: async ({ headers }: { headers: Record<string, string> }): Promise<AttemptResult> => ({
      kind: 'response',
      status: statusById[headers['webhook-id']!.replace(/^evt_/, '')]!,
      bodySnippet: '',
      durationMs: 5,
    }),
  };
  return { ...deps, http, attemptTimeoutMs: 15_000 };
}

/** The delivery's row says its next attempt is 30 s away: the sender waits it out in flight. */
function notDueFor30s(deps: ReturnType<typeof senderWorld>, id: string) {
  deps.deliveries.put(
    aDelivery({ id, eventId: `evt_${id}`, nextAttemptAt: new Date(deps.clock.now() + 30_000).toISOString() }),
  );
}

describe('sender handler', () => {
  it('reports as batch item failures exactly the records that are not done, logging a retry at DEBUG and a failure at ERROR', async () => {
    const deps = senderWorld({ dlv_ok: 200, dlv_busy: 503, dlv_wait: 200 });
    notDueFor30s(deps, 'dlv_wait');
    const { logger, lines } = recordingLogger();
    const handler = createSenderHandler(deps, { logger });
    const event: SQSEvent = {
      Records: [
        record('m-ok', message('dlv_ok')),
        record('m-busy', message('dlv_busy')),
        record('m-wait', message('dlv_wait')),
        record('m-junk', 'not json'),
        record('m-nofield', '{"deliveryId":"dlv_x"}'),
      ],
    };

    const response = await handler(event, context);

    assert.deepEqual(response, {
      batchItemFailures: [{ itemIdentifier: 'm-wait' }, { itemIdentifier: 'm-junk' }, { itemIdentifier: 'm-nofield' }],
    });
    assert.equal(deps.deliveries.items.get('dlv_ok')!.state, 'delivered');
    assert.equal(deps.deliveries.items.get('dlv_busy')!.state, 'pending');
    assert.deepEqual(
      deps.queue.retries,
      [{ receiptHandle: 'rh-m-wait', delaySeconds: 30 }],
      'a delivery not due yet waits in flight',
    );
    assert.deepEqual(
      deps.queue.messages().map((m) => [m.deliveryId, m.delaySeconds]),
      [['dlv_busy', 10]],
      'a planned retry goes as a message of its own',
    );
    assert.ok(lines.debug.includes('delivery dlv_busy will be retried in 10 s'), lines.debug.join('\n'));
    assert.deepEqual(lines.error, ['delivery message unreadable', 'delivery message unreadable']);
  });

  it('sends a slow subscription’s deliveries from the main lane on to the slow lane, and attempts those the slow lane brings', async () => {
    const deps = senderWorld({ dlv_main: 200, dlv_slow: 200 });
    const slowUntil = new Date(deps.clock.now() + 600_000).toISOString();
    deps.subscriptions.items.set('sub_1', aSubscription({ id: 'sub_1', slowUntil }));
    const { logger } = recordingLogger();
    const handler = createSenderHandler(deps, { logger });
    const from = (arn: string, id: string, deliveryId: string) => ({
      ...record(id, message(deliveryId)),
      eventSourceARN: arn,
    });

    const main = await handler({ Records: [from(deps.queue.arn, 'm-main', 'dlv_main')] }, context);
    const slow = await handler({ Records: [from(deps.slowLane.arn, 'm-slow', 'dlv_slow')] }, context);

    // Both records are finished with: the first moved on, the second delivered.
    assert.deepEqual(main, { batchItemFailures: [] });
    assert.deepEqual(slow, { batchItemFailures: [] });
    assert.deepEqual(
      deps.slowLane.messages().map((m) => m.deliveryId),
      ['dlv_main'],
    );
    assert.equal(deps.deliveries.items.get('dlv_main')!.state, 'pending', 'not attempted in the main lane');
    assert.equal(deps.deliveries.items.get('dlv_slow')!.state, 'delivered');
  });

  it('a wait in flight changes the visibility on the queue its record came from', async () => {
    const deps = senderWorld({ dlv_wait: 200 });
    notDueFor30s(deps, 'dlv_wait');
    const { logger } = recordingLogger();
    const response = await createSenderHandler(deps, { logger })(
      { Records: [{ ...record('m-wait', message('dlv_wait')), eventSourceARN: deps.slowLane.arn }] },
      context,
    );
    assert.deepEqual(response, { batchItemFailures: [{ itemIdentifier: 'm-wait' }] });
    assert.deepEqual(deps.slowLane.retries, [{ receiptHandle: 'rh-m-wait', delaySeconds: 30 }]);
    assert.deepEqual(deps.queue.retries, []);
  });

  it("a slow-lane delivery's next message stays in the slow lane: a planned retry and a long wait, nothing sent through the main lane", async () => {
    const deps = { ...senderWorld({ dlv_retry: 503, dlv_wait: 200 }), inFlightWaitSeconds: 5 };
    notDueFor30s(deps, 'dlv_wait');
    const { logger } = recordingLogger();
    const fromSlowLane = (id: string, deliveryId: string) => ({
      ...record(id, message(deliveryId)),
      eventSourceARN: deps.slowLane.arn,
    });

    const response = await createSenderHandler(deps, { logger })(
      { Records: [fromSlowLane('m-retry', 'dlv_retry'), fromSlowLane('m-wait', 'dlv_wait')] },
      context,
    );

    assert.deepEqual(response, { batchItemFailures: [] });
    assert.deepEqual(deps.queue.messages(), [], 'nothing through the main lane');
    assert.deepEqual(
      deps.slowLane
        .messages()
        .map((m) => [m.kind, m.deliveryId])
        .sort(),
      [
        ['due', 'dlv_wait'],
        ['retry', 'dlv_retry'],
      ],
    );
  });

  it('the planned retries of one batch go out as one enqueue, each carrying its body and the row as written', async () => {
    const deps = senderWorld({ dlv_a: 503, dlv_b: 500, dlv_c: 200 });
    const { logger } = recordingLogger();

    const response = await createSenderHandler(deps, { logger })(
      { Records: [record('m-a', message('dlv_a')), record('m-b', message('dlv_b')), record('m-c', message('dlv_c'))] },
      context,
    );

    assert.deepEqual(response, { batchItemFailures: [] });
    assert.equal(deps.queue.enqueued.length, 1, 'one send for both retries');
    const sent = [...deps.queue.enqueued[0]!].sort((x, y) => x.deliveryId.localeCompare(y.deliveryId));
    assert.deepEqual(
      sent.map((m) => (m.kind === 'retry' ? [m.deliveryId, m.body, m.attemptSeq, m.nextAttemptAt, m.delaySeconds] : m)),
      ['dlv_a', 'dlv_b'].map((id) => {
        const row = deps.deliveries.items.get(id)!;
        return [id, '{}', row.attemptSeq, row.nextAttemptAt, 10];
      }),
    );
  });

  it('a stage error is a batch item failure, logged at ERROR, and the message comes back after STAGE_RETRY_SECONDS', async () => {
    const deps = senderWorld({ dlv_ok: 200 });
    deps.deliveries.get = async () => {
      throw new Error('throttled');
    };
    const { logger, lines } = recordingLogger();

    const response = await createSenderHandler(deps, { logger })(
      { Records: [record('m-1', message('dlv_ok'))] },
      context,
    );

    assert.deepEqual(response, { batchItemFailures: [{ itemIdentifier: 'm-1' }] });
    assert.deepEqual(deps.queue.retries, [{ receiptHandle: 'rh-m-1', delaySeconds: STAGE_RETRY_SECONDS }]);
    assert.deepEqual(lines.error, ['delivery message failed']);
  });

  it('logs one INFO record per attempt with what the attempt was and led to, and none for a message that made no attempt', async () => {
    const deps = senderWorld({ dlv_ok: 200, dlv_busy: 503, dlv_gone: 400 });
    const { logger, lines } = recordingLogger();
    const event: SQSEvent = {
      Records: [
        record('m-ok', message('dlv_ok')),
        record('m-busy', message('dlv_busy')),
        record('m-gone', message('dlv_gone')),
        record('m-junk', 'not json'),
      ],
    };

    await createSenderHandler(deps, { logger })(event, context);

    const common = { subscriptionId: 'sub_1', eventType: 't', host: 'hooks.example.com', attempt: 1, durationMs: 5 };
    // Each record is also an EMF document: one DeliveryAttempts count, dimension service only.
    for (const line of lines.info) {
      const {
        _aws: emf,
        DeliveryAttempts: count,
        ...fields
      } = line.attributes as {
        _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] };
        DeliveryAttempts: number;
      };
      assert.equal(count, 1);
      assert.deepEqual(emf.CloudWatchMetrics, [
        { Namespace: 'Hookline', Dimensions: [['service']], Metrics: [{ Name: 'DeliveryAttempts', Unit: 'Count' }] },
      ]);
      line.attributes = fields;
    }
    const byDelivery = Object.fromEntries(
      lines.info.map((line) => [(line.attributes as { deliveryId: string }).deliveryId, line]),
    );
    assert.deepEqual(
      lines.info.map((line) => line.message),
      [ATTEMPT_LOG_MESSAGE, ATTEMPT_LOG_MESSAGE, ATTEMPT_LOG_MESSAGE],
    );
    assert.deepEqual(byDelivery.dlv_ok!.attributes, {
      deliveryId: 'dlv_ok',
      ...common,
      status: 200,
      outcome: 'succeed',
      state: 'delivered',
    });
    assert.deepEqual(byDelivery.dlv_busy!.attributes, {
      deliveryId: 'dlv_busy',
      ...common,
      status: 503,
      outcome: 'retry',
      state: 'pending',
      retryInSeconds: 10,
    });
    assert.deepEqual(byDelivery.dlv_gone!.attributes, {
      deliveryId: 'dlv_gone',
      ...common,
      status: 400,
      outcome: 'fail_permanently',
      state: 'failed',
    });
  });

  it('an all-done batch reports no failures', async () => {
    const deps = senderWorld({ dlv_a: 200, dlv_b: 204 });
    const { logger, lines } = recordingLogger();

    const response = await createSenderHandler(deps, { logger })(
      { Records: [record('m-a', message('dlv_a')), record('m-b', message('dlv_b'))] },
      context,
    );

    assert.deepEqual(response, { batchItemFailures: [] });
    assert.deepEqual(lines.error, []);
  });

  it('a pack: each delivery attempted; one that is not done leaves as a message of its own, and the pack is finished', async () => {
    const deps = senderWorld({ dlv_ok: 200, dlv_busy: 503, dlv_gone: 400 });
    const { logger } = recordingLogger();
    const body = pack(['dlv_ok', 'dlv_busy', 'dlv_gone']);

    const response = await createSenderHandler(deps, { logger })({ Records: [record('m-pack', body)] }, context);

    assert.deepEqual(response, { batchItemFailures: [] }, 'the pack is deleted');
    assert.deepEqual(
      ['dlv_ok', 'dlv_busy', 'dlv_gone'].map((id) => deps.deliveries.items.get(id)!.state),
      ['delivered', 'pending', 'failed'],
    );
    assert.deepEqual(deps.queue.retries, [], "the pack's visibility is not the retry's");
    assert.deepEqual(
      deps.queue.messages().map((m) => ({
        kind: m.kind,
        deliveryId: m.deliveryId,
        delaySeconds: m.delaySeconds,
        attemptSeq: m.kind === 'retry' ? m.attemptSeq : undefined,
      })),
      [{ kind: 'retry', deliveryId: 'dlv_busy', delaySeconds: 10, attemptSeq: 1 }],
    );
  });

  it('a pack whose retry cannot be handed over (SQS refuses the send) is kept whole; the others are settled already', async () => {
    const deps = senderWorld({ dlv_ok: 200, dlv_busy: 503 });
    deps.queue.enqueue = async () => {
      throw new Error('SQS unreachable');
    };
    const { logger, lines } = recordingLogger();

    const response = await createSenderHandler(deps, { logger })(
      { Records: [record('m-pack', pack(['dlv_ok', 'dlv_busy']))] },
      context,
    );

    assert.deepEqual(response, { batchItemFailures: [{ itemIdentifier: 'm-pack' }] });
    assert.equal(deps.deliveries.items.get('dlv_ok')!.state, 'delivered');
    assert.deepEqual(lines.error, ['delivery message failed']);
  });

  it('a stage error in a pack is handed over after STAGE_RETRY_SECONDS as a message of its own, its row to be read first', async () => {
    const deps = senderWorld({ dlv_ok: 200, dlv_stuck: 200 });
    const write = deps.deliveries.write.bind(deps.deliveries);
    deps.deliveries.write = async (action, row, expect) => {
      if (row.id === 'dlv_stuck') throw new Error('throttled');
      return write(action, row, expect);
    };
    const { logger } = recordingLogger();

    const response = await createSenderHandler(deps, { logger })(
      { Records: [record('m-pack', pack(['dlv_ok', 'dlv_stuck']))] },
      context,
    );

    assert.deepEqual(response, { batchItemFailures: [] });
    assert.deepEqual(deps.queue.messages(), [
      {
        kind: 'due',
        deliveryId: 'dlv_stuck',
        subscriptionId: 'sub_1',
        reread: true,
        delaySeconds: STAGE_RETRY_SECONDS,
      },
    ]);
  });

  it('a wait longer than the in-flight bound: the delivery leaves its message as a delayed one of its own, and the record is finished', async () => {
    const deps = { ...senderWorld({ dlv_wait: 200 }), inFlightWaitSeconds: 5 };
    notDueFor30s(deps, 'dlv_wait');
    const { logger } = recordingLogger();

    const response = await createSenderHandler(deps, { logger })(
      { Records: [record('m-wait', message('dlv_wait'))] },
      context,
    );

    assert.deepEqual(response, { batchItemFailures: [] });
    assert.deepEqual(deps.queue.retries, []);
    assert.deepEqual(deps.queue.messages(), [
      { kind: 'due', deliveryId: 'dlv_wait', subscriptionId: 'sub_1', delaySeconds: 30 },
    ]);
    assert.equal(deps.deliveries.items.get('dlv_wait')!.state, 'pending');
  });

  it("a link of a long wait's chain is sent on, nothing read, until its notBefore has come", async () => {
    const deps = senderWorld({ dlv_later: 200 });
    const untouched = () => {
      throw new Error('read before its time');
    };
    deps.deliveries.get = untouched;
    deps.deliveries.write = untouched;
    deps.subscriptions.get = untouched;
    deps.subscriptions.getCached = untouched;
    const notBefore = new Date(deps.clock.now() + 2000 * 1000).toISOString();
    const { logger } = recordingLogger();

    const response = await createSenderHandler(deps, { logger })(
      {
        Records: [
          record(
            'm-later',
            JSON.stringify({ v: 2, k: 'due', deliveryId: 'dlv_later', subscriptionId: 'sub_1', notBefore }),
          ),
        ],
      },
      context,
    );

    assert.deepEqual(response, { batchItemFailures: [] });
    assert.deepEqual(deps.queue.messages(), [
      { kind: 'due', deliveryId: 'dlv_later', subscriptionId: 'sub_1', delaySeconds: MAX_WAIT_LINK_SECONDS, notBefore },
    ]);
  });
});
