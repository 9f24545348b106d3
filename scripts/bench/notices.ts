import { listCaughtMail } from '#adapters/file-mail-catcher.ts';
import { METRICS, TABLES } from '#config/topology.ts';
import { table } from './benchmarks-file.ts';
import { startBenchStack } from './bench-stack.ts';
import type { CallUsage } from './sdk-meter.ts';
import { fmt, sleep } from './stats.ts';

/** The bookkeeping budget of failure notices (the target): notices-table write units per delivery. */
export const NOTICE_WRU_TARGET = 0.05;

/** Retries every second until a 12 s deadline: a whole streak (failing, still failing, expiring, lost) in seconds. */
const FAILING_POLICY = { initialDelaySeconds: 1, multiplier: 1, maxDelaySeconds: 1, jitter: 0, deadlineSeconds: 12 };
const NOTICE_ENV = {
  HOOKLINE_NOTICE_FIRST_SECONDS: '2',
  HOOKLINE_NOTICE_SECOND_SECONDS: '4',
  HOOKLINE_NOTICE_BEFORE_EXPIRY_SECONDS: '4',
  HOOKLINE_NOTICE_LOST_AFTER_SECONDS: '60',
  HOOKLINE_NOTICE_SUPPORT_EMAIL: 'support@producer.test',
};
/** How often the notifier runs in the scenario: far more often than the 5 minutes on AWS, so its reads are over-counted, never its writes. */
const NOTIFIER_EVERY_MS = 250;

export interface NoticeRun {
  readonly deliveries: number;
  readonly notices: number;
  readonly runs: number;
  /** Write units on the notices table (each write at least one: a refused conditional write is billed too). */
  readonly noticeWriteUnits: number;
  readonly noticeWrites: Readonly<Record<string, number>>;
  readonly noticeReadUnits: number;
}

const isNotices = (key: string) => key.endsWith(` ${TABLES.notices.localName}`);

/**
 * One subscription whose endpoint answers 503 to everything, `deliveries` events published at
 * once, the notifier running every 250 ms through the whole streak until the lost summary is
 * out; the notices table's writes (the bookkeeping) divided by the deliveries. An operational
 * subscription receives the webhooks, and the mail catcher the emails, so every channel is on.
 */
export async function measureNotices(deliveries: number): Promise<NoticeRun> {
  // Operational webhooks (ids `ntc_…`) are received; everything else fails.
  const stack = await startBenchStack({
    meter: true,
    answer: (id) => ({ status: id.startsWith('ntc_') ? 200 : 503 }),
    env: NOTICE_ENV,
    scheduleIntervalMs: { notifier: 3_600_000 },
  });
  try {
    const [failing] = await stack.subscribe(1, 'bench.notice', FAILING_POLICY);
    const ops = await stack.api.post('/v1/subscriptions', {
      url: `${stack.receiver.url}/ops`,
      eventTypes: ['hookline.subscription.*'],
    });
    if (ops.status !== 201) throw new Error(`operational subscription: ${ops.status}`);
    await stack.api.patch(`/v1/subscriptions/${failing}`, { contactEmails: ['customer@example.test'] });
    stack.sdk.reset();
    await stack.publishHttp(deliveries, 16, 'bench.notice');
    let runs = 0;
    const lost = () =>
      listCaughtMail(stack.runtime.mailDir).some((m) => m.headers['X-Hookline-Notice']?.endsWith('#lost'));
    const deadline = Date.now() + 120_000;
    while (!lost()) {
      if (Date.now() > deadline) throw new Error('no lost summary within 120 s');
      await stack.runtime.runSchedule('notifier');
      runs++;
      await sleep(NOTIFIER_EVERY_MS);
    }
    await stack.waitCount(METRICS.deadLettered, deliveries, 30_000);
    await sleep(1000);
    const usage = stack.sdk.reset();
    const calls = Object.entries(usage.calls).filter(([k]) => k.startsWith('DynamoDB '));
    const writesOn = (list: [string, CallUsage][]) =>
      list.filter(([k]) => /DynamoDB (PutItem|UpdateItem|DeleteItem|BatchWriteItem) /.test(k));
    const noticeWrites = writesOn(calls.filter(([k]) => isNotices(k)));
    return {
      deliveries,
      notices: listCaughtMail(stack.runtime.mailDir).length,
      runs,
      noticeWriteUnits: noticeWrites.reduce((n, [, c]) => n + Math.max(c.writeUnits, c.count) + c.indexWriteUnits, 0),
      noticeWrites: Object.fromEntries(noticeWrites.map(([k, c]) => [k.split(' ')[1]!, c.count])),
      noticeReadUnits: calls.filter(([k]) => isNotices(k)).reduce((n, [, c]) => n + c.readUnits, 0),
    };
  } finally {
    await stack.stop();
  }
}

export function renderNotices(runs: readonly NoticeRun[]): string {
  const r = runs[0]!;
  const perDelivery = r.noticeWriteUnits / r.deliveries;
  return [
    '### Failure notices: bookkeeping writes per delivery',
    '',
    `One subscription whose endpoint answers 503 to everything; ${r.deliveries} events published at once, retried every second until a 12 s deadline; ` +
      `notices after 2 s and 4 s of failing, 4 s before the oldest deadline, and the lost summary once all had expired (the issue's 1 h / 24 h / 6 h, in seconds); ` +
      `email to a contact and the support address (the mail catcher) and an operational subscription for the webhooks. The notifier ran ${r.runs} times (every ${NOTIFIER_EVERY_MS} ms, ` +
      `against every 5 minutes on AWS: its reads here are far above AWS's, its writes are not, since it writes only when a streak starts or ends or a notice is decided or sent).`,
    '',
    table(
      ['figure', 'value', `target ≤ ${NOTICE_WRU_TARGET}`],
      [
        ['notices sent', String(r.notices), ''],
        [
          'notices-table writes',
          Object.entries(r.noticeWrites)
            .map(([op, n]) => `${op} ${n}`)
            .join(', '),
          '',
        ],
        ['notices-table write units', fmt(r.noticeWriteUnits, 0), ''],
        ['write units per delivery', fmt(perDelivery, 4), perDelivery <= NOTICE_WRU_TARGET ? 'met' : '**not met**'],
        [`notices-table read units (${r.runs} runs)`, fmt(r.noticeReadUnits, 1), ''],
      ],
    ),
    '',
    `A streak costs a fixed handful of one-unit writes (the streak's put, each notice's decide and sent), whatever its size, so the figure is that handful over the deliveries the streak spans: ` +
      `${fmt(r.noticeWriteUnits, 0)} units over ${r.deliveries} deliveries here, at or under ${NOTICE_WRU_TARGET} from ${Math.ceil(r.noticeWriteUnits / NOTICE_WRU_TARGET)} deliveries per streak. ` +
      'The send path writes nothing for notices. The operational webhooks themselves are ordinary deliveries to the operational subscription (their publish and delivery writes are those of any delivery, not bookkeeping).',
  ].join('\n');
}
