import { EVERY_TENANT } from '#domain/audience.ts';
import type { Principal } from '#app/access.ts';
import { ForbiddenError } from '#app/errors.ts';
import type { PublishRequest } from '#app/publish/publish-request.ts';

/**
 * What a caller may publish. The admin key (and the ingest queue, which only the producer's IAM
 * principals reach) publishes for any tenant, for none, or to every tenant. A tenant key
 * publishes for its own tenant only: its requests are for that tenant when they name none, and
 * another tenant or every tenant is a ForbiddenError (403), with nothing stored.
 */
export function scopePublish(principal: Principal, request: PublishRequest): PublishRequest {
  if (principal.role === 'admin') return request;
  if (request.audience)
    throw new ForbiddenError(
      `audience "${EVERY_TENANT}" reaches every tenant and needs the admin key; a key of tenant ${principal.tenantId} publishes to that tenant alone`,
    );
  if (request.tenantId !== undefined && request.tenantId !== principal.tenantId) {
    throw new ForbiddenError(
      `a key of tenant ${principal.tenantId} publishes for that tenant only, not for tenant ${request.tenantId}`,
    );
  }
  return { ...request, tenantId: principal.tenantId };
}
