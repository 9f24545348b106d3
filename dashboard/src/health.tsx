import type { AnswerOf } from '#client/hookline-client.ts';
import { failingNow } from '#domain/failing-now.ts';
import { useSession } from './context.ts';
import { href } from './route.ts';
import { useState } from 'preact/hooks';
import { HealthCharts } from './health-chart.tsx';
import { HEALTH_CHART_WINDOWS, windowName } from './health-chart-model.ts';
import { ErrorNote, Loading, ms, percent, Time } from './ui.tsx';
import { useAsync } from './use-async.ts';

export type Stats = AnswerOf<'GET /v1/subscriptions/{subscriptionId}/stats'>;

/** A subscription's last 24 h, worked out by the API from what it keeps anyway (no write per delivery). */
export function useStats(subscriptionId: string) {
  const { client } = useSession();
  return useAsync(() => statsOf(client, subscriptionId, 24), [subscriptionId]);
}

const statsOf = (client: ReturnType<typeof useSession>['client'], subscriptionId: string, windowHours: number) =>
  client.call('GET /v1/subscriptions/{subscriptionId}/stats', { params: { subscriptionId }, query: { windowHours } });

const failureText = (f: NonNullable<Stats['lastFailure']>) =>
  f.status !== null ? `HTTP ${f.status}` : (f.error ?? 'failed');

/**
 * The success rate is over deliveries that finished; while every one is still being retried there
 * is none to count, and a bare "–" read as "nothing wrong". Say what there is instead.
 */
function successText(s: Stats): string {
  if (s.successRate !== null) return percent(s.successRate);
  const open = s.open.pending + s.open.inFlight;
  if (open === 0) return 'no deliveries';
  return s.failingSince ? `none finished: ${open} still failing` : `none finished yet (${open} on the way)`;
}

/**
 * "failing" with since when, whatever the subscription's own state: an active badge over an
 * endpoint that fails every attempt misleads, so this one stands beside it.
 */
export function FailingBadge({ stats }: { readonly stats: Stats | undefined }) {
  if (!stats?.failingSince) return null;
  return (
    <span class="failing">
      <span class="badge badge-failing">failing</span> <span class="muted">since</span>{' '}
      <Time iso={stats.failingSince} />
    </span>
  );
}

/** The health columns of a subscriptions table row. */
export function HealthCells({ subscriptionId }: { readonly subscriptionId: string }) {
  const stats = useStats(subscriptionId);
  if (stats.error) return <td colSpan={4}>health unavailable</td>;
  const s = stats.data;
  if (!s)
    return (
      <td colSpan={4} class="muted">
        loading…
      </td>
    );
  return (
    <>
      <td>{successText(s)}</td>
      <td>
        {ms(s.latencyMs.average)} / {ms(s.latencyMs.p95)}
      </td>
      <td>
        {s.lastFailure ? (
          <>
            <a href={href(['deliveries', s.lastFailure.deliveryId])}>{failureText(s.lastFailure)}</a>{' '}
            <Time iso={s.lastFailure.at} />
          </>
        ) : (
          <span class="muted">none</span>
        )}
      </td>
      <td>{s.failingSince ? <FailingBadge stats={s} /> : <span class="muted">not failing</span>}</td>
    </>
  );
}

/**
 * The health panel of one subscription: the page's own stats (its last 24 h, also behind the
 * badge beside its state), or another window's, read when the toggle asks for it and again
 * whenever the page reloads its own.
 */
export function HealthPanel({ stats }: { readonly stats: Stats }) {
  const { client } = useSession();
  const [hours, setHours] = useState<number>(stats.window.hours);
  const other = useAsync(
    () => (hours === stats.window.hours ? Promise.resolve(stats) : statsOf(client, stats.subscriptionId, hours)),
    [stats, hours],
  );
  const shown = hours === stats.window.hours ? stats : other.data?.window.hours === hours ? other.data : undefined;
  return (
    <section aria-labelledby="health-title" class="panel">
      <div class="panel-head">
        <h2 id="health-title">Health, last {windowName(hours)}</h2>
        <div class="segmented" role="group" aria-label="Health window">
          {HEALTH_CHART_WINDOWS.map((w) => (
            <button key={w.hours} type="button" aria-pressed={hours === w.hours} onClick={() => setHours(w.hours)}>
              {w.label}
            </button>
          ))}
        </div>
      </div>
      {shown ? (
        <HealthFigures stats={shown} />
      ) : other.error ? (
        <ErrorNote error={other.error} onRetry={other.reload} />
      ) : (
        <Loading what={`the last ${windowName(hours)}`} />
      )}
    </section>
  );
}

function HealthFigures({ stats }: { readonly stats: Stats }) {
  const s = stats;
  // The console's Failing now list reads the same rule, so the two cannot disagree.
  const deadLettering = failingNow(s);
  return (
    <>
      <dl class="stats">
        <div>
          <dt>Success rate</dt>
          <dd>{successText(s)}</dd>
        </div>
        <div>
          <dt>Finished</dt>
          <dd>
            {s.finished.delivered} delivered, {s.finished.failed} failed, {s.finished.expired} expired
          </dd>
        </div>
        <div>
          <dt>Waiting now</dt>
          <dd>
            {s.open.pending} pending, {s.open.inFlight} in flight
          </dd>
        </div>
        <div>
          <dt>Latency (average / p95)</dt>
          <dd>
            {ms(s.latencyMs.average)} / {ms(s.latencyMs.p95)} over {s.latencyMs.attempts} attempts
          </dd>
        </div>
        {s.slowLaneUntil && (
          <div>
            <dt>Slow lane</dt>
            <dd>
              answers slowly: its deliveries go through the slow lane, apart from other endpoints', until{' '}
              <Time iso={s.slowLaneUntil} />
            </dd>
          </div>
        )}
        <div>
          <dt>Last failure</dt>
          <dd>
            {s.lastFailure ? (
              <>
                <a href={href(['deliveries', s.lastFailure.deliveryId])}>{failureText(s.lastFailure)}</a> at{' '}
                <Time iso={s.lastFailure.at} />
              </>
            ) : (
              'none'
            )}
          </dd>
        </div>
        <div>
          <dt>Failing since</dt>
          <dd>{s.failingSince ? <FailingBadge stats={s} /> : 'not failing'}</dd>
        </div>
        <div>
          <dt>Dead-lettering</dt>
          <dd>
            {deadLettering ? (
              <>
                {deadLettering.deadLetters} in a row since <Time iso={deadLettering.since} />
              </>
            ) : (
              'no'
            )}
          </dd>
        </div>
      </dl>
      {s.sampled && (
        <p class="muted">Worked out from the newest {s.examined} deliveries: older ones in the window were left out.</p>
      )}
      <HealthCharts stats={s} />
    </>
  );
}
