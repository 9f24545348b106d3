import { useSession } from './context.ts';
import { retryWords, spanWords } from './contract-model.ts';
import { ErrorNote, Loading, PageTitle } from './ui.tsx';
import { useAsync } from './use-async.ts';

/**
 * The delivery contract in plain words (README.md, "The delivery contract", is the full text),
 * with this deployment's own figures (`GET /v1/delivery-policy`), not the defaults it shipped with.
 */
export function ContractText() {
  const { client } = useSession();
  const policy = useAsync(() => client.call('GET /v1/delivery-policy'), []);
  if (policy.error) return <ErrorNote error={policy.error} onRetry={policy.reload} />;
  if (!policy.data) return <Loading what="the delivery contract" />;
  const { retryPolicy, customerReplayLimit, deadLetterRetentionDays } = policy.data;
  return (
    <ul class="contract">
      <li>
        <strong>Every event arrives at least once.</strong> It may arrive twice (after a retry or a resend): use the{' '}
        <code>webhook-id</code> header, which never changes, to ignore repeats.
      </li>
      <li>
        <strong>Failures are retried {retryWords(retryPolicy)}</strong>, unless an endpoint has its own retry policy
        (its page says so). A 2xx answer means delivered; timeouts, 408, 425, 429 and 5xx are tried again; any other 4xx
        stops at once.
      </li>
      <li>
        <strong>What could not be delivered is kept</strong> as a dead letter for{' '}
        {spanWords(deadLetterRetentionDays * 86_400)}, with every attempt, so you can resend it here once your endpoint
        is fixed (up to {customerReplayLimit.limit} resends per {spanWords(customerReplayLimit.windowSeconds)} per
        endpoint).
      </li>
      <li>
        <strong>Every request is signed</strong> (Standard Webhooks): verify <code>webhook-signature</code> with your
        signing secret before trusting the body.
      </li>
      <li>
        <strong>Pausing loses nothing</strong>: events wait while an endpoint is paused and are sent when it resumes.
      </li>
    </ul>
  );
}

export function ContractPage() {
  return (
    <>
      <PageTitle>How delivery works</PageTitle>
      <ContractText />
    </>
  );
}
