import { useState } from 'preact/hooks';
import type { AnswerOf } from '#client/hookline-client.ts';
import { HooklineApiError } from './api.ts';
import { type EventType, useCatalogChoices } from './catalog.ts';
import { isOperator, useSession } from './context.ts';
import {
  changeBody,
  createBody,
  draftOf,
  EMPTY_DRAFT,
  ENDPOINT_FIELDS,
  refusedField,
  type EndpointDraft,
  listOf,
  type EndpointLike,
} from './endpoint-model.ts';
import { coveringPattern, pickedTypes, toggleType } from './event-type-model.ts';
import { ActionError, FormActions, StateBadge } from './ui.tsx';

/**
 * A refusal the form shows beside the field the API named (`field`), or below the form when it
 * names none of the form's fields; `error` is whatever the call threw.
 */
export interface FormRefusal {
  readonly error: unknown;
  readonly field?: string;
}

/** The refusal of a call, placed at the field its 400 names when the form has that field. */
export function refusalOf<F extends string>(error: unknown, fields: readonly F[]): FormRefusal {
  const field =
    error instanceof HooklineApiError && error.status === 400 ? refusedField(error.message, fields) : undefined;
  return field ? { error, field } : { error };
}

/** The API's message for one field, announced when it appears; the field points at it with aria-describedby. */
export function FieldError({
  id,
  refusal,
  field,
}: {
  readonly id: string;
  readonly refusal?: FormRefusal;
  readonly field: string;
}) {
  if (refusal?.field !== field) return null;
  return (
    <p id={`${id}-error`} class="field-error" role="alert">
      {(refusal.error as Error).message}
    </p>
  );
}

/** The refusal below a form: anything not about one of its fields (a 409, a 403, a 429, the API down). */
export function FormError({ refusal }: { readonly refusal?: FormRefusal }) {
  if (!refusal || refusal.field) return null;
  return <ActionError error={refusal.error} />;
}

/** A labelled input or textarea of a form, with a hint and the API's refusal of it beneath. */
export function FormField(props: {
  readonly id: string;
  readonly label: string;
  /** The body field the API names in a refusal of this input. */
  readonly field: string;
  readonly value: string;
  readonly onChange: (value: string) => void;
  readonly refusal: FormRefusal | undefined;
  readonly hint?: string;
  readonly placeholder?: string;
  readonly rows?: number;
  readonly inputMode?: 'url' | 'numeric' | 'email' | 'text';
  readonly monospace?: boolean;
  /** A datalist of suggestions (inputs only). */
  readonly list?: string;
}) {
  const invalid = props.refusal?.field === props.field;
  const described = [props.hint ? `${props.id}-hint` : '', invalid ? `${props.id}-error` : '']
    .filter(Boolean)
    .join(' ');
  const common = {
    id: props.id,
    value: props.value,
    placeholder: props.placeholder,
    autoComplete: 'off',
    spellcheck: false,
    'aria-invalid': invalid ? ('true' as const) : undefined,
    'aria-describedby': described || undefined,
    class: props.monospace ? 'mono' : undefined,
  };
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.hint && (
        <span id={`${props.id}-hint`} class="muted small">
          {props.hint}
        </span>
      )}
      {props.rows ? (
        <textarea {...common} rows={props.rows} onInput={(e) => props.onChange(e.currentTarget.value)} />
      ) : (
        <input
          {...common}
          inputMode={props.inputMode}
          list={props.list}
          onInput={(e) => props.onChange(e.currentTarget.value)}
        />
      )}
      <FieldError id={props.id} refusal={props.refusal} field={props.field} />
    </div>
  );
}

/**
 * The catalog's types as checkboxes under an event-types field: ticking one adds its name as a
 * line of the field, unticking takes it out, and whatever else was typed (`*`, `prefix.*`, a
 * type not registered) stays. A type a pattern already selects says which.
 */
function CatalogPicks({
  id,
  catalog,
  value,
  onChange,
}: {
  readonly id: string;
  readonly catalog: readonly EventType[];
  readonly value: string;
  readonly onChange: (value: string) => void;
}) {
  const picked = pickedTypes(value);
  const patterns = listOf(value);
  return (
    <fieldset class="field catalog-picks" aria-describedby={`${id}-hint`}>
      <legend>Pick from the catalog</legend>
      <span id={`${id}-hint`} class="muted small">
        Tick a registered type to add it above; type * or a prefix.* there by hand.
      </span>
      <ul>
        {catalog.map((t, i) => {
          const covered = coveringPattern(patterns, t.name);
          return (
            <li key={t.name}>
              <label class="check">
                <input
                  type="checkbox"
                  checked={picked.has(t.name)}
                  aria-describedby={`${id}-${i}-about`}
                  onChange={(e) => onChange(toggleType(value, t.name, e.currentTarget.checked))}
                />
                <span class="pick-name">
                  <code>{t.name}</code> {t.deprecated && <StateBadge state="deprecated" />}
                </span>
              </label>{' '}
              <span id={`${id}-${i}-about`} class="muted small">
                {t.description}
                {covered && ` (already selected by ${covered})`}
              </span>
            </li>
          );
        })}
      </ul>
    </fieldset>
  );
}

type Created = AnswerOf<'POST /v1/subscriptions'>;
type Changed = AnswerOf<'PATCH /v1/subscriptions/{subscriptionId}'>;

/**
 * The "New endpoint" form (no `endpoint`) or the "Edit" form of one: URL, name, event types,
 * custom headers, rate limit and contact emails (and, in the console, the tenant a new one is
 * for; a portal session's is always its own). The API checks every value; its 400 is shown at
 * the field it names, with its own words, and nothing was stored.
 */
export function EndpointForm({
  endpoint,
  onSaved,
  onCancel,
}: {
  readonly endpoint?: EndpointLike;
  readonly onSaved: (saved: Created | Changed) => void;
  readonly onCancel: () => void;
}) {
  const session = useSession();
  const catalog = useCatalogChoices();
  const [draft, setDraft] = useState<EndpointDraft>(() => (endpoint ? draftOf(endpoint) : EMPTY_DRAFT));
  const [refusal, setRefusal] = useState<FormRefusal>();
  const [busy, setBusy] = useState(false);
  const set = (key: keyof EndpointDraft) => (value: string) => setDraft((d) => ({ ...d, [key]: value }));
  const prefix = endpoint ? 'edit' : 'new';
  const save = async () => {
    setBusy(true);
    setRefusal(undefined);
    try {
      onSaved(
        endpoint
          ? await session.client.call('PATCH /v1/subscriptions/{subscriptionId}', {
              params: { subscriptionId: endpoint.id },
              bodyText: JSON.stringify(changeBody(endpoint, draft)),
            })
          : await session.client.call('POST /v1/subscriptions', { bodyText: JSON.stringify(createBody(draft)) }),
      );
    } catch (e) {
      setRefusal(refusalOf(e, ENDPOINT_FIELDS));
    } finally {
      setBusy(false);
    }
  };
  const field = (key: keyof EndpointDraft) => ({ value: draft[key], onChange: set(key), refusal });
  return (
    <form
      class="form endpoint-form"
      noValidate
      aria-label={endpoint ? 'Edit endpoint' : 'New endpoint'}
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <FormField
        id={`${prefix}-url`}
        label="Endpoint URL"
        field="url"
        inputMode="url"
        placeholder="your endpoint's https URL"
        hint="Where your webhooks are POSTed."
        {...field('url')}
      />
      <FormField
        id={`${prefix}-description`}
        label="Name (optional)"
        field="description"
        placeholder="e.g. Orders endpoint"
        {...field('description')}
      />
      <FormField
        id={`${prefix}-event-types`}
        label="Event types"
        field="eventTypes"
        rows={3}
        monospace
        placeholder="* (every event)"
        hint="One per line: an exact type (invoice.paid), a prefix (invoice.*) or * for every event."
        {...field('eventTypes')}
      />
      {catalog.length > 0 && (
        <CatalogPicks
          id={`${prefix}-catalog`}
          catalog={catalog}
          value={draft.eventTypes}
          onChange={set('eventTypes')}
        />
      )}
      <FormField
        id={`${prefix}-headers`}
        label="Custom headers (optional)"
        field="headers"
        rows={3}
        monospace
        placeholder="X-Team: billing"
        hint="One per line, Name: value. Sent with every webhook."
        {...field('headers')}
      />
      <FormField
        id={`${prefix}-rate-limit`}
        label="Rate limit per second (optional)"
        field="rateLimitPerSecond"
        inputMode="numeric"
        placeholder="no limit"
        {...field('rateLimit')}
      />
      <FormField
        id={`${prefix}-contact-emails`}
        label="Contact emails (optional)"
        field="contactEmails"
        rows={2}
        placeholder="ops@example.com"
        hint="Who is told when this endpoint keeps failing; one per line."
        {...field('contactEmails')}
      />
      {!endpoint && isOperator(session) && (
        <FormField
          id="new-tenant"
          label="Tenant (optional)"
          field="tenantId"
          placeholder="none: the producer's own"
          {...field('tenantId')}
        />
      )}
      <FormActions submit={endpoint ? 'Save changes' : 'Create endpoint'} busy={busy} onCancel={onCancel} />
      <FormError refusal={refusal} />
    </form>
  );
}
