import { formatDuration } from '#domain/notices.ts';
import type {
  AttemptRef,
  AutoPausedEvent,
  DisabledEvent,
  EventRef,
  ExpiringEvent,
  FailingEvent,
  LostSummaryEvent,
  OperationalEventData,
  RecoveredEvent,
} from '#app/notices/operational-events.ts';

/** A notice email's content, the same in both parts: plain text and HTML. */
export interface RenderedEmail {
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

/**
 * One notice as a list of blocks, rendered twice (text, HTML) so the two parts can never say
 * different things. Every value from outside (URLs, event ids and types, receivers' errors) is
 * escaped in the HTML part; the text part carries it as it is.
 */
type Block =
  | { readonly kind: 'p'; readonly text: string }
  | { readonly kind: 'list'; readonly title: string; readonly items: readonly string[] }
  | { readonly kind: 'link'; readonly text: string; readonly href: string };

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
/** A header-safe subject: no line breaks (a URL or description cannot add a header). */
const oneLine = (s: string) => s.replace(/[\r\n\t]+/g, ' ').slice(0, 200);

function render(subject: string, blocks: readonly Block[]): RenderedEmail {
  const text = blocks
    .map((b) =>
      b.kind === 'p'
        ? b.text
        : b.kind === 'link'
          ? `${b.text}: ${b.href}`
          : `${b.title}\n${b.items.map((i) => `  - ${i}`).join('\n')}`,
    )
    .join('\n\n');
  const html = [
    '<!doctype html><html><body style="font-family:sans-serif;line-height:1.4">',
    ...blocks.map((b) =>
      b.kind === 'p'
        ? `<p>${escapeHtml(b.text)}</p>`
        : b.kind === 'link'
          ? `<p><a href="${escapeHtml(b.href)}">${escapeHtml(b.text)}</a></p>`
          : `<p>${escapeHtml(b.title)}</p><ul>${b.items.map((i) => `<li><code>${escapeHtml(i)}</code></li>`).join('')}</ul>`,
    ),
    '<p style="color:#666;font-size:smaller">Sent by Hookline, the webhook service of this producer.</p>',
    '</body></html>',
  ].join('\n');
  return {
    subject: oneLine(subject),
    text: `${text}\n\n-- \nSent by Hookline, the webhook service of this producer.\n`,
    html,
  };
}

/** "503" for an answer, the error text for no answer. */
const outcomeOf = (a: Pick<AttemptRef, 'status' | 'error'>) =>
  a.status !== null ? String(a.status) : (a.error ?? 'no answer');

/** "503 (3 times), timeout: no response within 15000 ms": the newest outcomes, a run of the same one counted once. */
function attemptsSentence(attempts: readonly AttemptRef[]): string {
  if (attempts.length === 0) return 'No attempt has been recorded yet.';
  const runs: { outcome: string; times: number }[] = [];
  for (const outcome of attempts.map(outcomeOf)) {
    const last = runs.at(-1);
    if (last?.outcome === outcome) last.times++;
    else runs.push({ outcome, times: 1 });
  }
  return `The most recent attempts returned ${runs.map((r) => (r.times > 1 ? `${r.outcome} (${r.times} times)` : r.outcome)).join(', ')}.`;
}

const eventLine = (e: EventRef) =>
  `${e.eventId} ${e.eventType ?? '(type unknown)'} at ${e.createdAt}: ${e.state}, ${e.attempts} attempt${e.attempts === 1 ? '' : 's'}${e.lastStatus !== null ? `, last ${e.lastStatus}` : ''}`;

function eventsBlock(title: string, events: readonly EventRef[]): Block {
  return { kind: 'list', title, items: events.length > 0 ? events.map(eventLine) : ['(none)'] };
}

const subjectOf = (url: string) => oneLine(url);

function failing(d: FailingEvent, nowMs: number): RenderedEmail {
  const duration = formatDuration(d.failingForSeconds * 1000);
  const retrying = d.retryingUntil
    ? `We will continue retrying for ${formatDuration(Date.parse(d.retryingUntil) - nowMs)} (until ${d.retryingUntil}, when the oldest waiting event reaches its retry deadline).`
    : 'Nothing is waiting to be retried right now; new events will be tried as they come.';
  return render(
    `${d.kind === 'still_failing' ? 'Still failing' : 'Failing'}: your webhook endpoint ${subjectOf(d.subscription.url)} (${duration})`,
    [
      {
        kind: 'p',
        text: `Your webhook endpoint ${d.subscription.url} has been failing for ${duration} (since ${d.failingSince}).`,
      },
      { kind: 'p', text: attemptsSentence(d.recentAttempts) },
      { kind: 'p', text: retrying },
      {
        kind: 'p',
        text: 'If your endpoint is down, please fix it: events are kept and retried until their deadline, and nothing is lost before then.',
      },
      eventsBlock(`Last ${d.recentEvents.length} events:`, d.recentEvents),
      { kind: 'link', text: "The subscription's dead letters", href: d.deadLettersUrl },
      {
        kind: 'p',
        text: `Subscription ${d.subscription.id}${d.subscription.description ? ` (${d.subscription.description})` : ''}.`,
      },
    ],
  );
}

function expiring(d: ExpiringEvent, nowMs: number): RenderedEmail {
  const left = formatDuration(Date.parse(d.expiresAt) - nowMs);
  return render(`Events will expire in ${left}: your webhook endpoint ${subjectOf(d.subscription.url)}`, [
    {
      kind: 'p',
      text: `Your webhook endpoint ${d.subscription.url} has been failing for ${formatDuration(d.failingForSeconds * 1000)} (since ${d.failingSince}).`,
    },
    {
      kind: 'p',
      text: `In ${left}, at ${d.expiresAt}, the oldest event still being retried${d.oldestPending.eventId ? ` (${d.oldestPending.eventId})` : ''} reaches its retry deadline and will no longer be sent; events after it follow at their own deadlines.`,
    },
    { kind: 'p', text: attemptsSentence(d.recentAttempts) },
    { kind: 'p', text: 'Fix the endpoint before then and every waiting event is still delivered.' },
    eventsBlock(`Last ${d.recentEvents.length} events:`, d.recentEvents),
    { kind: 'link', text: "The subscription's dead letters", href: d.deadLettersUrl },
  ]);
}

function lost(d: LostSummaryEvent): RenderedEmail {
  const total = d.expired + d.failed;
  return render(
    `${total} event${total === 1 ? ' was' : 's were'} not delivered: your webhook endpoint ${subjectOf(d.subscription.url)}`,
    [
      { kind: 'p', text: `Your webhook endpoint ${d.subscription.url} has been failing since ${d.failingSince}.` },
      {
        kind: 'p',
        text: `${d.expired} deliver${d.expired === 1 ? 'y' : 'ies'} expired (retried until the deadline) and ${d.failed} failed (refused with a permanent error)${d.truncated ? ', at least' : ''}. They are kept as dead letters and can be replayed once the endpoint works again.`,
      },
      {
        kind: 'list',
        title: `${d.truncated ? `The first ${d.events.length}` : 'The'} events not delivered:`,
        items: d.events.map(
          (e) =>
            `${e.eventId} ${e.eventType ?? '(type unknown)'}: ${e.state} at ${e.deadLetteredAt}${e.lastStatus !== null ? `, last ${e.lastStatus}` : e.lastError ? `, ${e.lastError}` : ''}`,
        ),
      },
      {
        kind: 'link',
        text: d.truncated ? 'All of them, and replay' : 'Dead letters, and replay',
        href: d.deadLettersUrl,
      },
    ],
  );
}

function recovered(d: RecoveredEvent): RenderedEmail {
  return render(`Recovered: your webhook endpoint ${subjectOf(d.subscription.url)}`, [
    {
      kind: 'p',
      text: `Your webhook endpoint ${d.subscription.url} answered 2xx again at ${d.recoveredAt}, after failing for ${formatDuration(d.failedForSeconds * 1000)} (since ${d.failingSince}).`,
    },
    {
      kind: 'p',
      text: 'Waiting events are delivered at their next retry. Anything that was dead-lettered meanwhile is kept and can be replayed.',
    },
    { kind: 'link', text: "The subscription's dead letters", href: d.deadLettersUrl },
  ]);
}

function autoPaused(d: AutoPausedEvent): RenderedEmail {
  return render(`Paused: your webhook subscription to ${subjectOf(d.subscription.url)}`, [
    {
      kind: 'p',
      text: `Your webhook subscription ${d.subscription.id} to ${d.subscription.url} was paused at ${d.pausedAt}.`,
    },
    { kind: 'p', text: d.reason },
    {
      kind: 'p',
      text: 'New events are kept while it is paused. Fix the endpoint, then resume the subscription: everything that waited is delivered.',
    },
  ]);
}

function disabled(d: DisabledEvent): RenderedEmail {
  return render(`Disabled: your webhook subscription to ${subjectOf(d.subscription.url)}`, [
    {
      kind: 'p',
      text: `Your webhook subscription ${d.subscription.id} to ${d.subscription.url} was disabled at ${d.disabledAt}: ${d.reason}.`,
    },
    {
      kind: 'p',
      text: 'Events are no longer sent to it. If the endpoint should receive them again, resume the subscription.',
    },
  ]);
}

/** The email of a notice, from the same payload its operational webhook carries; undefined for a kind that is never emailed. */
export function renderNoticeEmail(data: OperationalEventData, nowMs: number): RenderedEmail | undefined {
  switch (data.kind) {
    case 'failing':
    case 'still_failing':
      return failing(data, nowMs);
    case 'expiring':
      return expiring(data, nowMs);
    case 'lost':
      return lost(data);
    case 'recovered':
      return recovered(data);
    case 'auto_paused':
      return autoPaused(data);
    case 'disabled':
      return disabled(data);
    case 'replay_completed':
      return undefined;
  }
}
