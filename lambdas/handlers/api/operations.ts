import { z } from 'zod';
import { deadLetterQuery, deliveryListQuery } from '#app/deliveries/delivery-request.ts';
import { eventListQuery, subscriptionEventsQuery } from '#app/events/event-request.ts';
import { publishBatch, publishEvent } from '#app/publish/publish-request.ts';
import { putEventTypeBody } from '#app/event-types/event-type-request.ts';
import { archiveRunBody, restoreBody } from '#app/archive/archive-request.ts';
import { mailQuery } from '#app/notices/mail-request.ts';
import { bulkReplayBody } from '#app/replay/replay-request.ts';
import {
  deliveryId,
  eventId,
  eventType,
  keyId,
  pageQuery,
  portalSessionId,
  replayId,
  subscriptionId,
  tenantId,
} from '#app/schema/common.ts';
import * as R from '#app/schema/responses.ts';
import {
  CREATE_SUBSCRIPTION_SCHEMA,
  PAUSE_SCHEMA,
  ROTATE_SECRET_SCHEMA,
  SUBSCRIPTION_LIST_QUERY,
  TEST_EVENT_SCHEMA,
  UPDATE_SUBSCRIPTION_SCHEMA,
} from '#app/subscriptions/subscription-request.ts';
import { subscriptionStatsQuery } from '#app/subscriptions/subscription-stats-request.ts';
import { mintKeyBody } from '#app/tenants/tenant-request.ts';
import { exchangePortalCodeBody, mintPortalSessionBody } from '#app/portal/portal-request.ts';
import type { PathParameter } from './route.ts';

/**
 * What each route of the HTTP API takes and answers, keyed `METHOD /path/template` exactly as
 * ROUTES (router.ts) spells it: the OpenAPI document is built from the two (openapi.ts), the
 * typed client (client/) calls routes through this table, and the integration tests check
 * every answer against it (test/support/api-client.ts). A unit test keeps its keys and ROUTES'
 * the same set. Nothing here runs a route: it imports schemas only, so a browser can load it.
 */

/** One answer a route gives: its JSON body's schema. */
export interface Answer {
  readonly description: string;
  readonly schema: z.ZodType;
  /** The body's media type when it is not JSON (the dashboard's files). */
  readonly mediaType?: string;
}

export interface Operation {
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly tags: readonly string[];
  /** The query string (each parameter at most once). */
  readonly query?: z.ZodObject;
  /** The JSON body; `optional`: it may be left out (or blank), and then reads as `{}`. */
  readonly body?: { readonly schema: z.ZodType; readonly optional?: boolean };
  /** The successful answers by status. */
  readonly responses: Readonly<Record<number, Answer>>;
  /** Refusals this route gives beyond the ones every route of its kind gives (openapi.ts: `commonErrors`). */
  readonly errors?: readonly number[];
}

/** What each path parameter may be (the router's PATH_PARAMETERS decide what reaches a route at all). */
export const PATH_PARAMETER_SCHEMAS = {
  subscriptionId,
  deliveryId,
  replayId,
  keyId,
  sessionId: portalSessionId,
  eventId,
  tenantId,
  name: eventType,
} as const satisfies Record<PathParameter, z.ZodType>;

/** The schemas the document names as components (`#/components/schemas/<name>`); every operation's body and answers are among them. */
export const REQUEST_COMPONENTS = {
  CreateSubscriptionRequest: CREATE_SUBSCRIPTION_SCHEMA,
  UpdateSubscriptionRequest: UPDATE_SUBSCRIPTION_SCHEMA,
  RotateSecretRequest: ROTATE_SECRET_SCHEMA,
  PauseRequest: PAUSE_SCHEMA,
  TestEventRequest: TEST_EVENT_SCHEMA,
  PublishRequest: publishEvent,
  PublishBatchRequest: publishBatch,
  BulkReplayRequest: bulkReplayBody,
  ArchiveRunRequest: archiveRunBody,
  RestoreRequest: restoreBody,
  MintKeyRequest: mintKeyBody,
  MintPortalSessionRequest: mintPortalSessionBody,
  ExchangePortalCodeRequest: exchangePortalCodeBody,
  PutEventTypeRequest: putEventTypeBody,
} as const;

const subscriptionPage = R.page(R.subscription);
const deliveryPage = R.page(R.delivery);
const attemptPage = R.page(R.attempt);
const replayPage = R.page(R.replay);
const tenantKeyList = R.page(R.tenantKey);
const eventPage = R.page(R.eventSummary);
const subscriptionEventPage = R.page(R.subscriptionEvent);
const eventTypePage = R.page(R.eventType);
/** The document itself: an OpenAPI 3.1 object (validated against the specification in the unit tests). */
const openApiDocumentSchema = z.looseObject({ openapi: z.string(), info: z.looseObject({}), paths: z.looseObject({}) });

export const RESPONSE_COMPONENTS = {
  Error: R.errorBody,
  Health: R.health,
  OpenApiDocument: openApiDocumentSchema,
  RetryPolicy: R.retryPolicy,
  Subscription: R.subscription,
  CreatedSubscription: R.createdSubscription,
  ResumedSubscription: R.resumedSubscription,
  DeletedSubscription: R.deletedSubscription,
  SubscriptionPage: subscriptionPage,
  SubscriptionSecrets: R.subscriptionSecrets,
  RotatedSecret: R.rotatedSecret,
  TestEvent: R.testEvent,
  SubscriptionStats: R.subscriptionStats,
  DeliveryPolicy: R.deliveryPolicy,
  Published: R.published,
  PublishedBatch: R.publishedBatch,
  EventDetail: R.eventDetail,
  EventSummary: R.eventSummary,
  EventPage: eventPage,
  SubscriptionEvent: R.subscriptionEvent,
  SubscriptionEventPage: subscriptionEventPage,
  EventType: R.eventType,
  EventTypePage: eventTypePage,
  Delivery: R.delivery,
  DeliveryPage: deliveryPage,
  DeliveryDetail: R.deliveryDetail,
  Attempt: R.attempt,
  AttemptPage: attemptPage,
  BulkReplay: R.replay,
  BulkReplayPage: replayPage,
  ArchiveReport: R.archiveReport,
  RestoreReport: R.restoreReport,
  CaughtMail: R.caughtMail,
  CaughtMailList: R.caughtMailList,
  TenantKey: R.tenantKey,
  TenantKeyList: tenantKeyList,
  MintedKey: R.mintedKey,
  PortalSession: R.portalSession,
  MintedPortalSession: R.mintedPortalSession,
  PortalSessionToken: R.portalSessionToken,
  DashboardFile: R.dashboardFile,
} as const;

/** Keeps each answer's own schema type, which the typed client reads its result types from. */
const answer = <S extends z.ZodType>(schema: S, description: string) => ({ schema, description }) as const;
/** One of the dashboard's files: text of `mediaType`. */
const file = (mediaType: string, description: string) => ({ schema: R.dashboardFile, description, mediaType }) as const;

/** `GET /v1/subscriptions`: a page, optionally of one tenant's. */

export const OPERATIONS = {
  'GET /health': {
    operationId: 'getHealth',
    summary: 'Liveness',
    tags: ['Meta'],
    responses: { 200: answer(R.health, 'the API answers') },
  },
  'GET /openapi.json': {
    operationId: 'getOpenApiDocument',
    summary: 'This document',
    tags: ['Meta'],
    responses: { 200: answer(openApiDocumentSchema, 'the OpenAPI 3.1 document of this API') },
  },

  'POST /v1/subscriptions': {
    operationId: 'createSubscription',
    summary: 'Subscribe an endpoint',
    tags: ['Subscriptions'],
    description:
      "Checks the URL against the target rules and answers with the signing secret, the one time it is shown (v1). eventTypes: '*', exact types, or 'prefix.*'; default ['*']. A manage portal session creates for its own tenant only (another tenantId is a 403), and not when its link is limited to one subscription.",
    body: { schema: CREATE_SUBSCRIPTION_SCHEMA },
    responses: { 201: answer(R.createdSubscription, 'created') },
  },
  'GET /v1/subscriptions': {
    operationId: 'listSubscriptions',
    summary: 'List subscriptions',
    tags: ['Subscriptions'],
    description:
      "A tenant key sees its own tenant's only, whatever tenantId it asks for. failing=true reads the same pages as the whole listing and keeps the failing ones: page on while there is a nextCursor.",
    query: SUBSCRIPTION_LIST_QUERY,
    responses: { 200: answer(subscriptionPage, 'a page of subscriptions') },
  },
  'GET /v1/subscriptions/{subscriptionId}': {
    operationId: 'getSubscription',
    summary: 'Read a subscription',
    tags: ['Subscriptions'],
    responses: { 200: answer(R.subscription, 'the subscription (never its secret)') },
  },
  'PATCH /v1/subscriptions/{subscriptionId}': {
    operationId: 'updateSubscription',
    summary: 'Change a subscription',
    tags: ['Subscriptions'],
    description: 'At least one field; null removes an optional one. A new URL is checked against the target rules.',
    body: { schema: UPDATE_SUBSCRIPTION_SCHEMA },
    responses: { 200: answer(R.subscription, 'the subscription as changed') },
    errors: [409],
  },
  'DELETE /v1/subscriptions/{subscriptionId}': {
    operationId: 'deleteSubscription',
    summary: 'Delete a subscription',
    tags: ['Subscriptions'],
    description:
      'Its state becomes deleted (final); its waiting deliveries are dead-lettered. Deleting it again changes nothing.',
    responses: { 200: answer(R.deletedSubscription, 'deleted') },
  },
  'POST /v1/subscriptions/{subscriptionId}/rotate-secret': {
    operationId: 'rotateSubscriptionSecret',
    summary: 'Rotate the signing secret',
    tags: ['Subscriptions'],
    description:
      'The new secret (fresh, or the one given) signs at once; the old ones keep signing beside it for overlapSeconds.',
    body: { schema: ROTATE_SECRET_SCHEMA, optional: true },
    responses: { 200: answer(R.rotatedSecret, 'the secrets signing now, the new one first') },
    errors: [409],
  },
  'GET /v1/subscriptions/{subscriptionId}/secret': {
    operationId: 'getSubscriptionSecrets',
    summary: 'Read the signing secrets',
    tags: ['Subscriptions'],
    responses: { 200: answer(R.subscriptionSecrets, 'the secrets signing now, newest first') },
    errors: [409],
  },
  'POST /v1/subscriptions/{subscriptionId}/test': {
    operationId: 'sendTestEvent',
    summary: 'Send a test event',
    tags: ['Subscriptions'],
    description:
      'Publishes a hookline.test event to this subscription alone, or, with a body, an event of a type it receives with an example payload (another type is a 400 naming type). A tenant counts it with its replays and Retry nows.',
    body: { schema: TEST_EVENT_SCHEMA, optional: true },
    responses: { 202: answer(R.testEvent, 'published; its delivery is on its way') },
    errors: [409],
  },
  'GET /v1/delivery-policy': {
    operationId: 'getDeliveryPolicy',
    summary: 'The delivery contract in figures',
    tags: ['Subscriptions'],
    description:
      "This deployment's default retry policy (a subscription's own `retryPolicy` overrides it), the tenant resend limit and how long dead letters stay: what the portal's \"How delivery works\" states. Any key, and portal sessions of both levels, may read it.",
    responses: { 200: answer(R.deliveryPolicy, 'the figures') },
  },
  'GET /v1/subscriptions/{subscriptionId}/stats': {
    operationId: 'getSubscriptionStats',
    summary: 'Delivery health over a window',
    tags: ['Subscriptions'],
    description:
      'Worked out when asked, from the deliveries and attempts Hookline keeps anyway (nothing is counted while sending), at most `limits.deliveries` of them: `sampled` says when that bound left some out. `series` splits the window into 24 to 48 equal buckets for a chart: 24 h into hours, 168 h into six hours.',
    query: subscriptionStatsQuery,
    responses: {
      200: answer(
        R.subscriptionStats,
        'outcomes, success rate, latency and the last failure over [now - windowHours, now], and the same in equal buckets',
      ),
    },
  },
  'POST /v1/subscriptions/{subscriptionId}/pause': {
    operationId: 'pauseSubscription',
    summary: 'Pause deliveries',
    tags: ['Subscriptions'],
    description: 'Events are still accepted and stored; nothing is sent until resume.',
    body: { schema: PAUSE_SCHEMA, optional: true },
    responses: { 200: answer(R.subscription, 'paused') },
    errors: [409],
  },
  'POST /v1/subscriptions/{subscriptionId}/resume': {
    operationId: 'resumeSubscription',
    summary: 'Resume deliveries',
    tags: ['Subscriptions'],
    description: 'Every waiting delivery becomes due again, spread over a short window.',
    responses: { 200: answer(R.resumedSubscription, 'active again') },
    errors: [409],
  },

  'POST /v1/events': {
    operationId: 'publishEvent',
    summary: 'Publish an event',
    tags: ['Events'],
    description:
      'Fans the event out to the subscriptions of its audience whose event types match: its tenant\'s (`tenantId`), those without a tenant (none), or every tenant\'s (`audience: "all"`, the admin key only), narrowed to `subscriptionIds` when given. A tenant key publishes for its own tenant only (403 otherwise). The same id again publishes nothing new and answers 200 with the same deliveries. Where the deployment checks events against the event-type catalog (HOOKLINE_EVENT_TYPE_CHECK), an unregistered type or a payload its schema refuses is answered with `warnings` (warn) or refused, 400 naming type or payload (refuse); a deprecated type always with a warning.',
    body: { schema: publishEvent },
    // A publish that stalled past the sweeper's settle time stores nothing and asks to be sent again.
    errors: [503],
    responses: {
      202: answer(R.published, 'accepted: one delivery per matching subscription'),
      200: answer(R.published, 'published before under this id: the same deliveries, nothing new sent'),
    },
  },
  'POST /v1/events/batch': {
    operationId: 'publishEventBatch',
    summary: 'Publish up to 100 events',
    tags: ['Events'],
    description:
      'The same rules per event; one bad event refuses the whole batch, naming it (events[3].type, events[1].subscriptionIds[0], events[2].payload under the refuse check); warnings are per item.',
    body: { schema: publishBatch },
    errors: [503],
    responses: { 200: answer(R.publishedBatch, 'one result per event, in order') },
  },
  'GET /v1/events': {
    operationId: 'listEvents',
    summary: 'List published events',
    tags: ['Events'],
    description: 'Newest first; optionally of one type, for one tenant, or created at or after `since`.',
    query: eventListQuery,
    responses: { 200: answer(eventPage, 'a page of events') },
  },
  'GET /v1/events/{eventId}': {
    operationId: 'getEvent',
    summary: 'Read an event',
    tags: ['Events'],
    description:
      'With its payload and its delivery per subscription; a tenant key sees an event through its own deliveries only.',
    responses: { 200: answer(R.eventDetail, 'the event') },
  },
  'GET /v1/subscriptions/{subscriptionId}/events': {
    operationId: 'listSubscriptionEvents',
    summary: "A subscription's events, for reconciliation",
    tags: ['Events'],
    description: "Pass an item's cursor (or the page's nextCursor) as `after` to continue after it.",
    query: subscriptionEventsQuery,
    responses: { 200: answer(subscriptionEventPage, 'a page of the events sent to this subscription') },
  },

  'GET /v1/event-types': {
    operationId: 'listEventTypes',
    summary: 'List the event-type catalog',
    tags: ['Event types'],
    description:
      'Every registered type, in name order: what producers may publish and subscriptions may pick (any key, and portal sessions of both levels, may read it).',
    query: pageQuery,
    responses: { 200: answer(eventTypePage, 'a page of event types') },
  },
  'GET /v1/event-types/{name}': {
    operationId: 'getEventType',
    summary: 'Read an event type',
    tags: ['Event types'],
    responses: { 200: answer(R.eventType, 'the registered type') },
  },
  'PUT /v1/event-types/{name}': {
    operationId: 'putEventType',
    summary: 'Register or replace an event type',
    tags: ['Event types'],
    description:
      "The type whole: a description, optionally a JSON Schema (draft 2020-12, or draft-07 with its $schema; it must compile) and an example (which must match the schema). The name is one type (not a pattern) and not Hookline's own (hookline.…). " +
      "Whether publish checks events against it is the deployment's setting (HOOKLINE_EVENT_TYPE_CHECK: allow, the default; warn; refuse). 409 when a new type would pass the catalog's 500.",
    body: { schema: putEventTypeBody },
    responses: {
      201: answer(R.eventType, 'registered'),
      200: answer(R.eventType, 'replaced (createdAt kept)'),
    },
    errors: [409],
  },
  'DELETE /v1/event-types/{name}': {
    operationId: 'deleteEventType',
    summary: 'Delete an event type',
    tags: ['Event types'],
    description:
      'Events of the type are then unregistered ones (refused or warned about when the deployment checks them).',
    responses: { 200: answer(R.eventType, 'deleted: the type as it was') },
  },

  'GET /v1/deliveries': {
    operationId: 'listDeliveries',
    summary: "List a subscription's deliveries",
    tags: ['Deliveries'],
    description:
      'Newest first (by creation), optionally narrowed by state, event type and creation time (`since`, `until`, both included); every filter given applies, and a cursor is passed back with the same filters.',
    query: deliveryListQuery,
    responses: { 200: answer(deliveryPage, 'a page of deliveries') },
    // A tenant's (or portal session's) subscriptionId that is not its own: like one that does not exist.
    errors: [404],
  },
  'GET /v1/deliveries/{deliveryId}': {
    operationId: 'getDelivery',
    summary: 'Read a delivery',
    tags: ['Deliveries'],
    description: 'With its body, headers and latest 50 attempts.',
    responses: { 200: answer(R.deliveryDetail, 'the delivery') },
  },
  'GET /v1/deliveries/{deliveryId}/attempts': {
    operationId: 'listDeliveryAttempts',
    summary: "Page through a delivery's attempts",
    tags: ['Deliveries'],
    description: "Pages go back in time (each page oldest first); start from the delivery's attemptLogNextCursor.",
    query: pageQuery,
    responses: { 200: answer(attemptPage, 'a page of attempts') },
  },
  'POST /v1/deliveries/{deliveryId}/replay': {
    operationId: 'replayDelivery',
    summary: 'Replay a delivery',
    tags: ['Deliveries'],
    description: 'A failed, expired or delivered delivery is sent again (attempts restart, a fresh deadline).',
    responses: { 202: answer(R.delivery, 'pending again') },
    errors: [409],
  },
  'POST /v1/deliveries/{deliveryId}/retry': {
    operationId: 'retryDeliveryNow',
    summary: 'Retry a waiting delivery now',
    tags: ['Deliveries'],
    description:
      'A pending delivery waiting out its backoff is attempted at once (attempts restart, a fresh deadline); a tenant counts it with its replays. 409 when there is nothing to hurry: finished (replay it instead), not attempted yet, due now, or its subscription paused, disabled or deleted.',
    responses: { 202: answer(R.delivery, 'due now: its next attempt is on its way') },
    errors: [409],
  },
  'GET /v1/dead-letters': {
    operationId: 'listDeadLetters',
    summary: 'List dead letters',
    tags: ['Deliveries'],
    description: 'Failed and expired deliveries, newest first, overall (admin) or of one subscription.',
    query: deadLetterQuery,
    responses: { 200: answer(deliveryPage, 'a page of dead letters') },
    errors: [404],
  },

  'POST /v1/replays': {
    operationId: 'startBulkReplay',
    summary: 'Replay many deliveries',
    tags: ['Replays'],
    description: 'Every matching delivery, re-attempts spread over a window; leaves an audit record.',
    body: { schema: bulkReplayBody },
    responses: {
      200: answer(R.replay, 'finished within the request'),
      202: answer(R.replay, 'running: it continues on the replay schedule'),
    },
  },
  'GET /v1/replays': {
    operationId: 'listBulkReplays',
    summary: 'The bulk replay audit trail',
    tags: ['Replays'],
    query: pageQuery,
    responses: { 200: answer(replayPage, 'a page of bulk replays, newest first') },
  },
  'GET /v1/replays/{replayId}': {
    operationId: 'getBulkReplay',
    summary: 'Read a bulk replay',
    tags: ['Replays'],
    responses: { 200: answer(R.replay, 'the audit record') },
  },

  'POST /v1/archive-runs': {
    operationId: 'runArchive',
    summary: 'Run one archive slice now',
    tags: ['Archive'],
    description:
      "What the daily schedule does, for at most maxObjects new archive objects (the archiver's default when absent), run by the archiver function and answered with its report. " +
      "kind 'partial': more is archivable, run again; 'busy': another run holds the lock, try later. Long backlogs: `hookline archive run`.",
    body: { schema: archiveRunBody, optional: true },
    responses: { 200: answer(R.archiveReport, "the slice's report") },
    errors: [503],
  },
  'POST /v1/restores': {
    operationId: 'restoreArchive',
    summary: 'Restore archived deliveries',
    tags: ['Archive'],
    description:
      "Every archived delivery created from `from` to `to` (UTC days, at most the archiver's range), optionally of one subscription, put back for the restore hold; run by the archiver function.",
    body: { schema: restoreBody },
    responses: { 200: answer(R.restoreReport, 'what was restored') },
    errors: [503],
  },
  'GET /v1/mail': {
    operationId: 'listCaughtMail',
    summary: 'Notice emails the local mail catcher kept',
    tags: ['Notices'],
    description:
      'Local runtime only: newest first. On AWS (SES) or with an SMTP server nothing is kept: kept is false, with a note, and no items.',
    query: mailQuery,
    responses: { 200: answer(R.caughtMailList, 'the caught messages') },
  },

  'POST /v1/tenants/{tenantId}/keys': {
    operationId: 'mintTenantKey',
    summary: 'Mint a tenant key',
    tags: ['Tenants'],
    description: "A key that sees only this tenant's subscriptions and deliveries; shown once.",
    body: { schema: mintKeyBody, optional: true },
    responses: { 201: answer(R.mintedKey, 'minted') },
  },
  'GET /v1/tenants/{tenantId}/keys': {
    operationId: 'listTenantKeys',
    summary: "List a tenant's keys",
    tags: ['Tenants'],
    responses: {
      200: answer(tenantKeyList, 'every key, oldest first, revoked and expired ones included (never the key)'),
    },
  },
  'DELETE /v1/tenants/{tenantId}/keys/{keyId}': {
    operationId: 'revokeTenantKey',
    summary: 'Revoke a tenant key',
    tags: ['Tenants'],
    responses: { 200: answer(R.tenantKey, 'revoked') },
  },

  'POST /v1/tenants/{tenantId}/portal-sessions': {
    operationId: 'mintPortalSession',
    summary: 'Mint a customer portal link',
    tags: ['Portal'],
    description:
      "A link to the dashboard that shows this tenant's subscriptions (or one, with subscriptionId) and their deliveries, for expiresInSeconds (default 3600, at most 86400), at an access level: view (the default) or manage (the tenant's own endpoint self-service: create, change, delete, rotate). " +
      'It carries a one-time code in its fragment (#portal=…), which the page trades for a session token (POST /v1/portal-sessions/exchange); the link works once. Shown once.',
    body: { schema: mintPortalSessionBody, optional: true },
    responses: { 201: answer(R.mintedPortalSession, 'minted: hand url to the customer') },
  },
  'DELETE /v1/tenants/{tenantId}/portal-sessions/{sessionId}': {
    operationId: 'revokePortalSession',
    summary: 'Revoke a customer portal link',
    tags: ['Portal'],
    description:
      'The link, and the session opened with it, are refused from then on (on AWS within the 30 s authorizer cache). Revoking again keeps the first time.',
    responses: { 200: answer(R.portalSession, 'revoked') },
  },
  'POST /v1/portal-sessions/exchange': {
    operationId: 'exchangePortalCode',
    summary: "Trade a portal link's one-time code for a session",
    tags: ['Portal'],
    description:
      'No key: the code is the credential, and it works once. The session token answered is sent as Authorization: Bearer and ends with the link (expiresAt) or its revocation; ' +
      'it sees the tenant (or the one subscription) the link was minted for, on the routes whose x-hookline-portal lists its access level. An unknown, used, revoked or expired code is a 401 saying which.',
    body: { schema: exchangePortalCodeBody },
    responses: { 200: answer(R.portalSessionToken, 'the session token') },
    errors: [400, 401, 413],
  },

  'GET /dashboard': {
    operationId: 'getDashboard',
    summary: 'The web dashboard',
    tags: ['Dashboard'],
    description:
      'The operator console (enter the admin key) and the customer portal (open a portal link). Served with a Content-Security-Policy that allows this origin only, no inline script.',
    responses: { 200: file('text/html', 'the page') },
    errors: [404],
  },
  'GET /dashboard/app.js': {
    operationId: 'getDashboardScript',
    summary: "The web dashboard's script",
    tags: ['Dashboard'],
    responses: { 200: file('text/javascript', 'the bundled script') },
    errors: [404],
  },
  'GET /dashboard/app.css': {
    operationId: 'getDashboardStyles',
    summary: "The web dashboard's style sheet",
    tags: ['Dashboard'],
    responses: { 200: file('text/css', 'the style sheet') },
    errors: [404],
  },
} as const satisfies Record<string, Operation>;

export type Operations = typeof OPERATIONS;
export type OperationKey = keyof Operations;
