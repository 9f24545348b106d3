import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { explain, HooklineApiError } from './api.ts';
import { useSession } from './context.ts';
import { relativeTime } from './relative-time.ts';

const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** A time in the viewer's own zone, the exact ISO instant on hover (and for screen readers, in `datetime`). */
export function Time({ iso }: { readonly iso: string | null | undefined }) {
  if (!iso) return <span class="muted">–</span>;
  const at = new Date(iso);
  return (
    <time dateTime={iso} title={iso}>
      {Number.isNaN(at.getTime()) ? iso : DATE_TIME.format(at)}
    </time>
  );
}

const ABSOLUTE = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'long' });

/** Every relative time on the page moves on together, on one timer that runs only while one is shown. */
const ticking = new Set<(nowMs: number) => void>();
let ticker: ReturnType<typeof setInterval> | undefined;

function useNow(): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    ticking.add(setNow);
    ticker ??= setInterval(() => {
      const at = Date.now();
      for (const set of ticking) set(at);
    }, 15_000);
    return () => {
      ticking.delete(setNow);
      if (ticking.size === 0) {
        clearInterval(ticker);
        ticker = undefined;
      }
    };
  }, []);
  return now;
}

/** An instant as the viewer reads it: their own zone, to the second, with the zone named. */
export function absoluteTime(iso: string): string {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : ABSOLUTE.format(at);
}

/**
 * A time in a list, as how long ago it was ("3 min ago", relative-time.ts), kept current; the
 * absolute time, in the viewer's own zone, on hover, and the exact instant in `datetime`.
 */
export function RelativeTime({ iso }: { readonly iso: string | null | undefined }) {
  const now = useNow();
  if (!iso) return <span class="muted">–</span>;
  const said = relativeTime(iso, now);
  if (said === undefined) return <time dateTime={iso}>{iso}</time>;
  return (
    <time dateTime={iso} title={absoluteTime(iso)}>
      {said}
    </time>
  );
}

export const percent = (rate: number | null | undefined) =>
  rate === null || rate === undefined ? '–' : `${(rate * 100).toFixed(rate === 1 || rate === 0 ? 0 : 1)} %`;
export const ms = (value: number | null | undefined) =>
  value === null || value === undefined ? '–' : `${Math.round(value)} ms`;

/** A state as a word with a colour that is never the only signal. */
export function StateBadge({ state }: { readonly state: string }) {
  return <span class={`badge badge-${state.replace('_', '-')}`}>{state.replace('_', ' ')}</span>;
}

/** A page's heading: focused on arrival, so a screen reader announces the new page and keyboard users start there. */
export function PageTitle({ children }: { readonly children: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}

/** An error with what to do next; a refused session (401) ends it, so the person sees the sign-in or link page. */
export function ErrorNote({ error, onRetry }: { readonly error: unknown; readonly onRetry?: () => void }) {
  const session = useSession();
  const { what, next, status } = explain(error);
  useEffect(() => {
    if (status === 401) session.end(what);
  }, [status]);
  return (
    <div class="note note-error" role="alert">
      <p>
        <strong>{what}</strong>
      </p>
      <p>{next}</p>
      {onRetry && (
        <button type="button" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Loading({ what }: { readonly what: string }) {
  return (
    <p class="muted" role="status">
      Loading {what}…
    </p>
  );
}

/** A labelled one-line text input (ids, tenants, types): not autocompleted, its value handed to `onChange` as typed. */
export function TextField(props: {
  readonly id: string;
  readonly label: string;
  readonly value: string;
  readonly onChange: (value: string) => void;
  readonly placeholder?: string;
  readonly required?: boolean;
}) {
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        required={props.required}
        value={props.value}
        onInput={(e) => props.onChange(e.currentTarget.value)}
        placeholder={props.placeholder}
        autoComplete="off"
      />
    </>
  );
}

/** A wide table that scrolls sideways on a phone; focusable, so keyboard users can scroll it too. */
export function TableWrap({ label, children }: { readonly label: string; readonly children: ComponentChildren }) {
  return (
    <div class="table-wrap" role="region" aria-label={`${label} table`} tabIndex={0}>
      {children}
    </div>
  );
}

/** Copies text, saying so in a live region (and how to copy by hand where the browser refuses). */
export function CopyButton({ text, label }: { readonly text: string; readonly label: string }) {
  const [said, setSaid] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setSaid('Copied.');
    } catch {
      setSaid('This browser refused to copy: select the text and press Ctrl+C (⌘C).');
    }
  };
  return (
    <span class="copy">
      <button type="button" onClick={copy}>
        {label}
      </button>
      <span role="status" class="muted">
        {said}
      </span>
    </span>
  );
}

/** A status line announced politely; errors from an action go through ActionError instead. */
export function Status({ children }: { readonly children: ComponentChildren }) {
  return (
    <p role="status" class="note">
      {children}
    </p>
  );
}

/** An action's refusal: a 429 says when to try again; anything else what to do. */
export function ActionError({ error }: { readonly error: unknown }) {
  if (error === undefined) return null;
  if (error instanceof HooklineApiError && error.status === 429) {
    const when = error.retryAfterSeconds ? new Date(Date.now() + error.retryAfterSeconds * 1000) : undefined;
    return (
      <div class="note note-error" role="alert">
        <p>
          <strong>Limit reached.</strong> {error.message}
        </p>
        <p>
          {when ? (
            <>
              Try again in {error.retryAfterSeconds} s, at <Time iso={when.toISOString()} />.
            </>
          ) : (
            'Try again in a minute.'
          )}
        </p>
      </div>
    );
  }
  return <ErrorNote error={error} />;
}

/** A JSON body pretty-printed when it is JSON, as it is otherwise. */
export function pretty(text: string | null): string {
  if (text === null) return '';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/**
 * A confirmation for something that cannot be undone: a modal `<dialog>` (opened by the caller
 * through `dialogRef`) with its title and text as its accessible name and description, "Keep it"
 * and the danger button that says what it does.
 */
export function ConfirmDialog(props: {
  readonly dialogRef: { readonly current: HTMLDialogElement | null };
  readonly id: string;
  readonly title: ComponentChildren;
  readonly children: ComponentChildren;
  readonly confirm: ComponentChildren;
  readonly busy: boolean;
  readonly onConfirm: () => void;
}) {
  return (
    <dialog ref={props.dialogRef} aria-labelledby={`${props.id}-title`} aria-describedby={`${props.id}-text`}>
      <h2 id={`${props.id}-title`}>{props.title}</h2>
      <p id={`${props.id}-text`} class="wrap">
        {props.children}
      </p>
      <div class="actions">
        <button type="button" onClick={() => props.dialogRef.current?.close()}>
          Keep it
        </button>
        <button type="button" class="danger" disabled={props.busy} onClick={props.onConfirm}>
          {props.confirm}
        </button>
      </div>
    </dialog>
  );
}

/** A form's submit and Cancel buttons. */
export function FormActions(props: { readonly submit: string; readonly busy: boolean; readonly onCancel: () => void }) {
  return (
    <div class="actions">
      <button type="submit" class="primary" disabled={props.busy}>
        {props.submit}
      </button>
      <button type="button" onClick={props.onCancel}>
        Cancel
      </button>
    </div>
  );
}
