import { PageTitle } from './ui.tsx';

/** The delivery contract in plain words (README.md, "The delivery contract", is the full text). */
export function ContractText() {
  return (
    <ul class="contract">
      <li>
        <strong>Every event arrives at least once.</strong> It may arrive twice (after a retry or a resend): use the{' '}
        <code>webhook-id</code> header, which never changes, to ignore repeats.
      </li>
      <li>
        <strong>Failures are retried for 72 hours</strong>, waiting longer each time (10 s, doubling up to 1 h). A 2xx
        answer means delivered; timeouts, 408, 425, 429 and 5xx are tried again; any other 4xx stops at once.
      </li>
      <li>
        <strong>What could not be delivered is kept</strong> as a dead letter for 90 days, with every attempt, so you
        can resend it here once your endpoint is fixed (up to 100 resends a minute per endpoint).
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
