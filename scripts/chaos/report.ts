import { CHAOS_DYNAMODB_LOCAL_HEADING, CHAOS_HEADING } from '../bench/areas.ts';
import { table } from '../bench/benchmarks-file.ts';
import type { ChaosOptions, ChaosReport } from './run-chaos.ts';

/** The chaos run's section of BENCHMARKS.md (the machine, command, commit and date are added by benchmarks-file.ts). */
export function renderChaos(r: ChaosReport, options: ChaosOptions): string {
  const pct = (n: number) => `${(n * 100).toFixed(2)} %`;
  return [
    options.dynamodbEndpoint ? CHAOS_DYNAMODB_LOCAL_HEADING : CHAOS_HEADING,
    '',
    `${r.events} events fanned out to ${options.fanOut} endpoints on one loopback receiver that fails at random ` +
      `(500, 503 + Retry-After, timeouts past the ${options.senderTimeoutMs} ms attempt timeout, connection resets, slow answers, ` +
      `200 with a 10 MB body, 302 redirects, rare 422), while the local runtime (\`local/main.ts\` as a child process) was ` +
      `SIGKILLed and restarted every ${options.killEveryMs[0] / 1000}-${options.killEveryMs[1] / 1000} s during publishing ` +
      `and the delivery queue was purged once. Retry policy: \`${JSON.stringify(options.retryPolicy)}\`; sweeper every 1 s, grace ${options.sweepGraceSeconds} s. ` +
      'The producer retries each publish with the same event id until it is accepted. ' +
      (options.dynamodbEndpoint
        ? "The runtime's DynamoDB is Amazon's DynamoDB Local, a process of its own that the kills do not touch (SQS and S3 stay on the embedded fauxqs)."
        : "The runtime's DynamoDB is the embedded dynalite, killed with it."),
    '',
    table(
      ['figure', 'value'],
      [
        [
          'accepted events',
          `${r.accepted} / ${r.events} (${r.publishRetries} publish retries while the runtime was down)`,
        ],
        ['deliveries (events × endpoints)', r.deliveries],
        ['delivered', r.delivered],
        [
          'dead-lettered (failed / expired), each with its attempt history',
          `${r.failed + r.expired} (${r.failed} / ${r.expired})`,
        ],
        ['**lost**', `**${r.lost}**${r.lostSamples.length ? ` (${r.lostSamples.join('; ')})` : ''}`],
        [
          'duplicates received (2xx beyond the first per endpoint and webhook-id)',
          `${r.duplicates} (${pct(r.duplicateRate)} of delivered)`,
        ],
        // The kills come every few seconds of publishing, so a slower machine takes more of them: per kill, runs compare across machines.
        ['duplicates per SIGKILL', r.kills ? (r.duplicates / r.kills).toFixed(1) : '-'],
        [
          'duplicates by cause: answered, then killed before the outcome was written / killed while the receiver held the request (answered to a client that was gone) / **no kill explains it** (the engine sending twice: expected 0)',
          `${r.duplicateCauses.killedBeforeRecord} / ${r.duplicateCauses.answeredAfterKill} / **${r.duplicateCauses.unexplained}**${r.duplicateCauses.unexplainedSamples.length ? ` (${r.duplicateCauses.unexplainedSamples.join('; ')})` : ''}`,
        ],
        [
          'requests the receiver saw that no attempt record shows (killed between POST and record)',
          r.unrecordedAttempts,
        ],
        [
          'receiver requests / invalid signatures / redirects followed',
          `${r.receiverRequests} / ${r.unverified} / ${r.redirectsFollowed}`,
        ],
        [
          'receiver behaviour mix',
          Object.entries(r.behaviours)
            .map(([k, v]) => `${k} ${v}`)
            .join(', '),
        ],
        [
          'dead letters read back through the API / without an attempt log',
          `${r.deadLettersChecked} / ${r.deadLettersWithoutLog}`,
        ],
        ['SIGKILLs / queue purged', `${r.kills} / ${r.purged ? 'yes' : 'no'}`],
        [
          'peak memory: runtime process (max over incarnations) / harness',
          `${r.peakRuntimeRssMb} MB / ${r.peakHarnessRssMb} MB RSS`,
        ],
        [
          'time: publishing / draining / total',
          `${r.publishSeconds.toFixed(0)} s / ${r.drainSeconds.toFixed(0)} s / ${r.totalSeconds.toFixed(0)} s`,
        ],
      ],
    ),
  ].join('\n');
}
