import { useEffect, useRef, useState } from 'preact/hooks';
import type { AnswerOf } from '#client/hookline-client.ts';
import { useCatalogChoices } from './catalog.ts';
import { mayManage, useSession } from './context.ts';
import { EndpointForm, FieldError, FormError, FormField, refusalOf, type FormRefusal } from './endpoint-form.tsx';
import {
  DEFAULT_ROTATION_OVERLAP_SECONDS,
  examplePayload,
  OVERLAP_CHOICES,
  overlapUntil,
  TEST_EVENT_TYPE,
  testEventBodyText,
} from './endpoint-model.ts';
import { catalogExample, testTypeChoices } from './event-type-model.ts';
import { href } from './route.ts';
import { ConfirmDialog, CopyButton, Status, Time } from './ui.tsx';

type Subscription = AnswerOf<'GET /v1/subscriptions/{subscriptionId}'>;

/** What a person calls an endpoint: its name, else its URL. */
export const endpointName = (s: Pick<Subscription, 'description' | 'url'>) => s.description ?? s.url;

/**
 * Rotate the signing secret: the new one signs at once, the old one keeps verifying for the
 * chosen overlap, and the answer says until when, so the receiver can be moved over in time.
 */
export function RotateSecret({ subscriptionId }: { readonly subscriptionId: string }) {
  const { client } = useSession();
  const [overlap, setOverlap] = useState(DEFAULT_ROTATION_OVERLAP_SECONDS);
  const [rotated, setRotated] = useState<AnswerOf<'POST /v1/subscriptions/{subscriptionId}/rotate-secret'>>();
  const [refusal, setRefusal] = useState<FormRefusal>();
  const [busy, setBusy] = useState(false);
  const rotate = async () => {
    setBusy(true);
    setRefusal(undefined);
    try {
      setRotated(
        await client.call('POST /v1/subscriptions/{subscriptionId}/rotate-secret', {
          params: { subscriptionId },
          body: { overlapSeconds: overlap },
        }),
      );
    } catch (e) {
      setRefusal(refusalOf(e, ['overlapSeconds']));
    } finally {
      setBusy(false);
    }
  };
  const until = rotated && overlapUntil(rotated);
  const fresh = rotated?.secret ?? rotated?.publicKey;
  return (
    <div class="subpanel">
      <h3 id="rotate-title">Rotate the secret</h3>
      <form
        class="inline-form"
        aria-labelledby="rotate-title"
        onSubmit={(e) => {
          e.preventDefault();
          void rotate();
        }}
      >
        <label for="rotate-overlap">Old secret keeps verifying for</label>
        <select
          id="rotate-overlap"
          value={String(overlap)}
          aria-invalid={refusal?.field === 'overlapSeconds' ? 'true' : undefined}
          aria-describedby={refusal?.field === 'overlapSeconds' ? 'rotate-overlap-error' : undefined}
          onChange={(e) => setOverlap(Number(e.currentTarget.value))}
        >
          {OVERLAP_CHOICES.map(([seconds, text]) => (
            <option key={seconds} value={String(seconds)}>
              {text}
            </option>
          ))}
        </select>
        <button type="submit" disabled={busy}>
          Rotate secret
        </button>
      </form>
      <FieldError id="rotate-overlap" refusal={refusal} field="overlapSeconds" />
      <FormError refusal={refusal} />
      {rotated && fresh && (
        <div role="status" class="note">
          <p>
            New secret, signing now: <code class="secret">{fresh}</code>{' '}
            <CopyButton text={fresh} label="Copy new secret" />
          </p>
          <p class="overlap">
            {until ? (
              <>
                The old secret still verifies until <Time iso={until} />: move your receiver to the new one before then.
              </>
            ) : (
              'The old secret no longer verifies: only the new one signs.'
            )}
          </p>
        </div>
      )}
    </div>
  );
}

/** Delete, after a confirmation that names the endpoint: final, and its waiting deliveries are dead-lettered. */
export function DeleteEndpoint({
  subscription,
  onDeleted,
}: {
  readonly subscription: Subscription;
  readonly onDeleted: () => void;
}) {
  const { client } = useSession();
  const dialog = useRef<HTMLDialogElement>(null);
  const [refusal, setRefusal] = useState<FormRefusal>();
  const [busy, setBusy] = useState(false);
  const name = endpointName(subscription);
  const remove = async () => {
    setBusy(true);
    setRefusal(undefined);
    try {
      await client.call('DELETE /v1/subscriptions/{subscriptionId}', { params: { subscriptionId: subscription.id } });
      dialog.current?.close();
      onDeleted();
    } catch (e) {
      dialog.current?.close();
      setRefusal({ error: e });
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="subpanel">
      <h3>Delete</h3>
      <p>Stops every delivery to this endpoint for good; waiting deliveries become dead letters.</p>
      <button type="button" class="danger" onClick={() => dialog.current?.showModal()}>
        Delete endpoint…
      </button>
      <FormError refusal={refusal} />
      <ConfirmDialog
        dialogRef={dialog}
        id="delete"
        title={`Delete endpoint “${name}”?`}
        confirm={`Delete “${name}”`}
        busy={busy}
        onConfirm={() => void remove()}
      >
        {subscription.url} will receive nothing more, and its waiting deliveries become dead letters. This cannot be
        undone.
      </ConfirmDialog>
    </div>
  );
}

/**
 * Send a test event: the test type, or a type the endpoint receives (the catalog's, when it has
 * any), with an example payload the person may edit: the registered type's own example, else a
 * made-up one. The API says whether the endpoint receives the type and whether the payload is
 * JSON; the answer links to the delivery.
 */
export function TestEventForm({ subscription }: { readonly subscription: Subscription }) {
  const { client } = useSession();
  const catalog = useCatalogChoices();
  const exampleOf = (value: string) => {
    const chosen = value.trim() || TEST_EVENT_TYPE;
    return catalogExample(catalog, chosen) ?? examplePayload(chosen, subscription.id);
  };
  const [type, setType] = useState(TEST_EVENT_TYPE);
  const [payload, setPayload] = useState(() => examplePayload(TEST_EVENT_TYPE, subscription.id));
  // An example follows the type until the person edits it; then it is theirs.
  const [edited, setEdited] = useState(false);
  const [sent, setSent] = useState<string>();
  const [refusal, setRefusal] = useState<FormRefusal>();
  const [busy, setBusy] = useState(false);
  // The catalog may arrive after a type was chosen: its example then replaces the made-up one, unless edited.
  useEffect(() => {
    if (!edited) setPayload(exampleOf(type));
  }, [catalog]);
  const chooseType = (value: string) => {
    setType(value);
    if (!edited) setPayload(exampleOf(value));
  };
  const send = async () => {
    setBusy(true);
    setRefusal(undefined);
    setSent(undefined);
    try {
      const answer = await client.call('POST /v1/subscriptions/{subscriptionId}/test', {
        params: { subscriptionId: subscription.id },
        bodyText: testEventBodyText(type, payload),
      });
      setSent(answer.deliveryId);
    } catch (e) {
      const r = refusalOf(e, ['type', 'payload', 'body']);
      // The body is the type and the payload as typed: a refusal of the body is one of the payload's text.
      setRefusal(r.field === 'body' ? { ...r, field: 'payload' } : r);
    } finally {
      setBusy(false);
    }
  };
  const suggestions = testTypeChoices(subscription, catalog);
  const described = new Map(
    catalog.map((t) => [t.name, t.deprecated ? `${t.description} (deprecated)` : t.description]),
  );
  return (
    <section class="panel" aria-labelledby="test-title">
      <h2 id="test-title">Send a test event</h2>
      <form
        class="form endpoint-form"
        noValidate
        aria-labelledby="test-title"
        onSubmit={(e) => {
          e.preventDefault();
          void send();
        }}
      >
        <FormField
          id="test-type"
          label="Event type"
          field="type"
          value={type}
          onChange={chooseType}
          refusal={refusal}
          hint={`${TEST_EVENT_TYPE} always arrives; any other must be one this endpoint receives (${subscription.eventTypes.join(', ')}).`}
          list="test-type-suggestions"
        />
        <datalist id="test-type-suggestions">
          {suggestions.map((t) => (
            <option key={t} value={t} label={described.get(t)} />
          ))}
        </datalist>
        <FormField
          id="test-payload"
          label="Payload (JSON)"
          field="payload"
          rows={8}
          monospace
          value={payload}
          onChange={(value) => {
            setPayload(value);
            setEdited(true);
          }}
          refusal={refusal}
          hint="Sent as the webhook's data, exactly as written."
        />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            Send test event
          </button>
          <button
            type="button"
            onClick={() => {
              setPayload(exampleOf(type));
              setEdited(false);
            }}
          >
            Reset the example
          </button>
        </div>
        <FormError refusal={refusal} />
      </form>
      {sent && (
        <Status>
          Sent: <a href={href(['deliveries', sent])}>follow delivery {sent}</a>
        </Status>
      )}
    </section>
  );
}

/**
 * An endpoint's self-service, for the operator and a portal session with access "manage" (none
 * for a view session, nor for a deleted endpoint): its settings and the Edit form, secret
 * rotation, deletion.
 */
export function ManageEndpoint({
  subscription,
  onChanged,
}: {
  readonly subscription: Subscription;
  readonly onChanged: () => void;
}) {
  const session = useSession();
  const [editing, setEditing] = useState(false);
  const [said, setSaid] = useState('');
  if (!mayManage(session) || subscription.state === 'deleted') return null;
  const headers = Object.entries(subscription.headers);
  return (
    <section class="panel" aria-labelledby="manage-title">
      <h2 id="manage-title">Endpoint settings</h2>
      {editing ? (
        <EndpointForm
          endpoint={subscription}
          onSaved={() => {
            setEditing(false);
            setSaid('Saved: the next deliveries use these settings.');
            onChanged();
          }}
          onCancel={() => setEditing(false)}
        />
      ) : (
        <>
          <dl class="facts">
            <div>
              <dt>Custom headers</dt>
              <dd>
                {headers.length === 0 ? (
                  <span class="muted">none</span>
                ) : (
                  headers.map(([name, value]) => (
                    <div key={name}>
                      <code>
                        {name}: {value}
                      </code>
                    </div>
                  ))
                )}
              </dd>
            </div>
            <div>
              <dt>Rate limit</dt>
              <dd>
                {subscription.rateLimitPerSecond === null ? (
                  <span class="muted">none</span>
                ) : (
                  `${subscription.rateLimitPerSecond} a second`
                )}
              </dd>
            </div>
            <div>
              <dt>Contact emails</dt>
              <dd>
                {subscription.contactEmails.length === 0 ? (
                  <span class="muted">none</span>
                ) : (
                  subscription.contactEmails.join(', ')
                )}
              </dd>
            </div>
          </dl>
          <p>
            <button type="button" onClick={() => (setEditing(true), setSaid(''))}>
              Edit endpoint
            </button>
          </p>
        </>
      )}
      {said && <Status>{said}</Status>}
      <RotateSecret subscriptionId={subscription.id} />
      <DeleteEndpoint subscription={subscription} onDeleted={onChanged} />
    </section>
  );
}
