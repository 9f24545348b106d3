import { audienceOf, describeAudience, inAudience } from '#domain/audience.ts';
import { resolveTargets, routeTargetOf, takesType, typeSegments, type RouteTarget } from '#domain/routing.ts';
import type { Subscription } from '#domain/types.ts';
import type { Deps } from '#app/deps.ts';
import { ValidationError } from '#app/errors.ts';
import type { PublishRequest } from '#app/publish/publish-request.ts';

/** The subscriptions an event goes to, or why it is refused (nothing of it is stored then). */
export type AudiencePlan =
  | { readonly kind: 'targets'; readonly targets: readonly RouteTarget[] }
  | { readonly kind: 'refused'; readonly error: ValidationError };

/**
 * Who an event reaches: the subscriptions of its audience whose state takes deliveries and whose
 * event types select its type, from the routing index (two key lookups); narrowed to the ones it
 * names when it names some (`subscriptionIds`, each read by id), where an id outside the audience
 * refuses the event, naming it (an unknown id, a deleted subscription and another tenant's read
 * alike, so the refusal tells nothing of other tenants). `only`: a test event's one subscription.
 */
export async function audienceTargets(
  deps: Pick<Deps, 'routes' | 'subscriptions'>,
  request: PublishRequest,
  only?: Subscription,
): Promise<AudiencePlan> {
  if (only)
    return {
      kind: 'targets',
      targets: [routeTargetOf(only)].filter((t) => takesType(t, request.type)),
    };
  const audience = audienceOf(request);
  if (!request.subscriptionIds)
    return {
      kind: 'targets',
      targets: resolveTargets(await deps.routes.lookup(audience, typeSegments(request.type)), audience, request.type),
    };
  const named = await Promise.all(request.subscriptionIds.map((id) => deps.subscriptions.getCached(id)));
  const outside = named.findIndex((s) => !s || s.state === 'deleted' || !inAudience(audience, s));
  if (outside >= 0) {
    const id = request.subscriptionIds[outside]!;
    return {
      kind: 'refused',
      error: new ValidationError(
        `subscriptionIds[${outside}]`,
        `${id} is not a subscription of this event's audience (${describeAudience(audience)})`,
      ),
    };
  }
  const targets = named.map((s) => routeTargetOf(s!)).filter((t) => takesType(t, request.type));
  return { kind: 'targets', targets };
}
