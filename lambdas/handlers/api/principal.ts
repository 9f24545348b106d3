import { portalAccessOf } from '#domain/portal-session.ts';
import { ADMIN, type Principal } from '#app/access.ts';

/**
 * The principal a bearer grant's context names: the authorizer's, as API Gateway passes it in the
 * request context (values as strings), or the api's own check's (in-process-auth.ts).
 */
export function principalOf(authorizer: Record<string, unknown> | null | undefined): Principal | undefined {
  if (authorizer?.role === 'admin') return ADMIN;
  if (
    authorizer?.role === 'tenant' &&
    typeof authorizer.tenantId === 'string' &&
    typeof authorizer.keyId === 'string'
  ) {
    // A portal session (authorizer.ts) adds `portal`, its level, and `subscriptionId` when its link is limited to one.
    const limit =
      typeof authorizer.subscriptionId === 'string' && authorizer.subscriptionId !== ''
        ? { subscriptionId: authorizer.subscriptionId }
        : {};
    return {
      role: 'tenant',
      tenantId: authorizer.tenantId,
      keyId: authorizer.keyId,
      ...limit,
      // A level this version does not know (or `'true'`, cached from before levels) reads as the least.
      ...(typeof authorizer.portal === 'string' && authorizer.portal !== ''
        ? { portal: portalAccessOf(authorizer.portal) }
        : {}),
    };
  }
  return undefined;
}
