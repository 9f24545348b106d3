import { useRef, useState } from 'preact/hooks';
import { type EventType, useCatalog } from './catalog.ts';
import { isOperator, useSession } from './context.ts';
import { FieldError, FormError, FormField, refusalOf, type FormRefusal } from './endpoint-form.tsx';
import {
  EMPTY_EVENT_TYPE_DRAFT,
  EVENT_TYPE_FIELDS,
  eventTypeBodyText,
  eventTypeDraftOf,
  jsonText,
  unparsedField,
  type EventTypeDraft,
} from './event-type-model.ts';
import { ConfirmDialog, ErrorNote, FormActions, Loading, PageTitle, RelativeTime, Status, TableWrap } from './ui.tsx';

/** "deprecated", as a word with a colour that is never the only signal. */
export function DeprecatedBadge() {
  return <span class="badge badge-deprecated">deprecated</span>;
}

/** JSON shown as text, in a region keyboard users can scroll. */
function JsonBlock({ value, label }: { readonly value: unknown; readonly label: string }) {
  return (
    <pre class="json" role="region" tabIndex={0} aria-label={label}>
      {jsonText(value)}
    </pre>
  );
}

/**
 * Register a type (no `type`) or replace one: description, JSON Schema and example as JSON
 * text, deprecated. The API checks every value; its 400 is shown at the field it names, with
 * its own words, and nothing was stored.
 */
function EventTypeForm({
  type,
  onSaved,
  onCancel,
}: {
  readonly type?: EventType;
  readonly onSaved: (name: string, created: boolean) => void;
  readonly onCancel: () => void;
}) {
  const { client } = useSession();
  const [draft, setDraft] = useState<EventTypeDraft>(() => (type ? eventTypeDraftOf(type) : EMPTY_EVENT_TYPE_DRAFT));
  const [refusal, setRefusal] = useState<FormRefusal>();
  const [busy, setBusy] = useState(false);
  const prefix = type ? 'edit-type' : 'new-type';
  const set = (key: 'name' | 'description' | 'schema' | 'example') => (value: string) =>
    setDraft((d) => ({ ...d, [key]: value }));
  const save = async () => {
    setBusy(true);
    setRefusal(undefined);
    const name = type ? type.name : draft.name.trim();
    if (name === '') {
      // A path has no empty segment to send: the one refusal the API cannot be asked for.
      setRefusal({ error: new Error('name: is required, e.g. invoice.paid'), field: 'name' });
      setBusy(false);
      return;
    }
    try {
      const answer = await client.request('PUT /v1/event-types/{name}', {
        params: { name },
        bodyText: eventTypeBodyText(draft),
      });
      onSaved(name, answer.status === 201);
    } catch (e) {
      const r = refusalOf(e, [...EVENT_TYPE_FIELDS, 'body']);
      // The body is the fields as typed: a refusal of the body is one of the JSON texts that does not parse.
      const at = r.field === 'body' ? unparsedField(draft) : r.field;
      setRefusal(at ? { error: e, field: at } : { error: e });
    } finally {
      setBusy(false);
    }
  };
  const field = (key: 'name' | 'description' | 'schema' | 'example') => ({
    value: draft[key],
    onChange: set(key),
    refusal,
  });
  const deprecatedInvalid = refusal?.field === 'deprecated';
  return (
    <form
      class="form endpoint-form"
      noValidate
      aria-label={type ? `Edit event type ${type.name}` : 'Register an event type'}
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      {!type && (
        <FormField
          id={`${prefix}-name`}
          label="Name"
          field="name"
          monospace
          placeholder="e.g. invoice.paid"
          hint="Dot-separated words, as events are published with it. Subscriptions select it by name or by prefix (invoice.*)."
          {...field('name')}
        />
      )}
      <FormField
        id={`${prefix}-description`}
        label="Description"
        field="description"
        rows={2}
        placeholder="When it is sent, and what it means"
        {...field('description')}
      />
      <FormField
        id={`${prefix}-schema`}
        label="JSON Schema (optional)"
        field="schema"
        rows={8}
        monospace
        placeholder={'{"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}}'}
        hint="The payload's shape (the webhook's data), as a JSON Schema object."
        {...field('schema')}
      />
      <FormField
        id={`${prefix}-example`}
        label="Example payload (optional)"
        field="example"
        rows={8}
        monospace
        placeholder={'{"id": "in_1001", "total": "9.99"}'}
        hint="Any JSON. Customers see it in the portal, and test events of this type start from it."
        {...field('example')}
      />
      <div class="field">
        <label class="check" for={`${prefix}-deprecated`}>
          <input
            id={`${prefix}-deprecated`}
            type="checkbox"
            checked={draft.deprecated}
            aria-invalid={deprecatedInvalid ? 'true' : undefined}
            aria-describedby={`${prefix}-deprecated-hint${deprecatedInvalid ? ` ${prefix}-deprecated-error` : ''}`}
            onChange={(e) => {
              const deprecated = e.currentTarget.checked;
              setDraft((d) => ({ ...d, deprecated }));
            }}
          />
          Deprecated
        </label>
        <span id={`${prefix}-deprecated-hint`} class="muted small">
          Marked so in the portal and the subscription forms, for subscribers to move off it.
        </span>
        <FieldError id={`${prefix}-deprecated`} refusal={refusal} field="deprecated" />
      </div>
      <FormActions submit={type ? 'Save event type' : 'Register event type'} busy={busy} onCancel={onCancel} />
      <FormError refusal={refusal} />
    </form>
  );
}

/**
 * The catalog for the operator: every type with when it last changed, to register, edit and
 * delete. Three columns, the time under the name, so a phone shows all of them.
 */
function CatalogTable({
  types,
  onEdit,
  onDelete,
}: {
  readonly types: readonly EventType[];
  readonly onEdit: (type: EventType) => void;
  readonly onDelete: (type: EventType) => void;
}) {
  return (
    <TableWrap label="Event types">
      <table class="catalog-table">
        <caption>Registered event types, by name</caption>
        <thead>
          <tr>
            <th scope="col">Event type</th>
            <th scope="col">Description</th>
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {types.map((t) => (
            <tr key={t.name}>
              <td class="type-name">
                <code>{t.name}</code>
                {t.deprecated && (
                  <div>
                    <DeprecatedBadge />
                  </div>
                )}
                <div class="muted small">
                  updated <RelativeTime iso={t.updatedAt} />
                </div>
              </td>
              <td class="wrap">{t.description}</td>
              <td class="row-actions">
                <button type="button" aria-label={`Edit ${t.name}`} onClick={() => onEdit(t)}>
                  Edit
                </button>
                <button type="button" class="danger" aria-label={`Delete ${t.name}…`} onClick={() => onDelete(t)}>
                  Delete…
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

/** The catalog for a customer: what each type means, what it carries (its schema) and what one looks like. */
function CatalogList({ types }: { readonly types: readonly EventType[] }) {
  return (
    <ul class="catalog">
      {types.map((t) => (
        <li key={t.name} class="catalog-item">
          <h2>
            <code>{t.name}</code> {t.deprecated && <DeprecatedBadge />}
          </h2>
          <p class="wrap">{t.description}</p>
          {t.example !== null && (
            <details>
              <summary>Example payload</summary>
              <JsonBlock value={t.example} label={`Example payload of ${t.name}`} />
            </details>
          )}
          {t.schema !== null && (
            <details>
              <summary>JSON Schema</summary>
              <JsonBlock value={t.schema} label={`JSON Schema of ${t.name}`} />
            </details>
          )}
        </li>
      ))}
    </ul>
  );
}

/**
 * The event-type catalog: in the console, registered, edited and deleted (admin only: `PUT`
 * and `DELETE /v1/event-types/{name}`); in the portal, read, with each type's example and schema.
 */
export function EventTypesPage() {
  const session = useSession();
  const operator = isOperator(session);
  const [version, setVersion] = useState(0);
  const catalog = useCatalog(version);
  const [editing, setEditing] = useState<EventType | 'new'>();
  const [deleting, setDeleting] = useState<EventType>();
  const [said, setSaid] = useState('');
  const [deleteError, setDeleteError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const dialog = useRef<HTMLDialogElement>(null);
  const changed = (what: string) => {
    setSaid(what);
    setVersion((v) => v + 1);
  };
  const remove = async () => {
    if (!deleting) return;
    setBusy(true);
    setDeleteError(undefined);
    try {
      await session.client.call('DELETE /v1/event-types/{name}', { params: { name: deleting.name } });
      changed(`Deleted ${deleting.name}: it is no longer offered. Subscriptions that name it are unchanged.`);
    } catch (e) {
      setDeleteError(e);
    } finally {
      dialog.current?.close();
      setBusy(false);
    }
  };
  return (
    <>
      <PageTitle>Event types</PageTitle>
      {operator ? (
        <p>
          The event types producers publish, each with a description, an optional JSON Schema and an example. Customers
          read them in the portal, and the subscription forms and test events offer them. Register one here or with{' '}
          <code>PUT /v1/event-types/{'{name}'}</code>.
        </p>
      ) : (
        <p>
          The events you can subscribe to: what each means, an example payload and its JSON Schema. Deprecated types are
          still listed while you move off them.
        </p>
      )}
      {operator && editing === undefined && (
        <p>
          <button type="button" class="primary" onClick={() => (setEditing('new'), setSaid(''))}>
            Register an event type
          </button>
        </p>
      )}
      {operator && editing !== undefined && (
        <section class="panel" aria-labelledby="type-form-title">
          <h2 id="type-form-title">
            {editing === 'new' ? (
              'Register an event type'
            ) : (
              <>
                Edit <code>{editing.name}</code>
              </>
            )}
          </h2>
          <EventTypeForm
            key={editing === 'new' ? '' : editing.name}
            {...(editing === 'new' ? {} : { type: editing })}
            onSaved={(name, created) => {
              setEditing(undefined);
              changed(created ? `Registered ${name}.` : `Saved ${name}.`);
            }}
            onCancel={() => setEditing(undefined)}
          />
        </section>
      )}
      {said && <Status>{said}</Status>}
      {deleteError !== undefined && <ErrorNote error={deleteError} />}
      {catalog.error ? (
        <ErrorNote error={catalog.error} onRetry={catalog.reload} />
      ) : !catalog.data ? (
        <Loading what="event types" />
      ) : catalog.data.length === 0 ? (
        <p class="note">
          {operator
            ? 'No event type is registered yet. Register one above: subscriptions still take any type typed by hand.'
            : 'No event type is listed yet. Ask the team that sends you webhooks which types they publish.'}
        </p>
      ) : operator ? (
        <CatalogTable
          types={catalog.data}
          onEdit={(t) => (setEditing(t), setSaid(''))}
          onDelete={(t) => {
            setDeleting(t);
            setSaid('');
            setDeleteError(undefined);
            dialog.current?.showModal();
          }}
        />
      ) : (
        <CatalogList types={catalog.data} />
      )}
      {operator && (
        <ConfirmDialog
          dialogRef={dialog}
          id="delete-type"
          title={`Delete event type “${deleting?.name}”?`}
          confirm={`Delete “${deleting?.name}”`}
          busy={busy}
          onConfirm={() => void remove()}
        >
          It leaves the catalog: the portal and the subscription forms no longer offer it, and its events are published
          as an unregistered type from then on. Subscriptions that name it are not changed.
        </ConfirmDialog>
      )}
    </>
  );
}
