import { decodePathSegment, parseTenantId } from '#app/parse.ts';
import { parseMintKeyBody } from '#app/tenants/tenant-request.ts';
import { listTenantKeys, mintTenantKey, revokeTenantKey, tenantKeyView } from '#app/tenants/tenants.ts';
import { listed, ok, type Params, type Route } from '../route.ts';

const tenantOf = (p: Params) => parseTenantId(decodePathSegment(p.tenantId!, 'tenantId'));

/** Tenant keys: mint, list, revoke (the admin's). */
export const TENANT_ROUTES: readonly Route[] = [
  {
    method: 'POST',
    path: '/v1/tenants/{tenantId}/keys',
    access: 'admin',
    run: async (deps, req, p) => ok(await mintTenantKey(deps, tenantOf(p), parseMintKeyBody(req.body)), 201),
  },
  {
    method: 'GET',
    path: '/v1/tenants/{tenantId}/keys',
    access: 'admin',
    run: async (deps, _r, p) => listed({ items: await listTenantKeys(deps, tenantOf(p)) }, tenantKeyView),
  },
  {
    method: 'DELETE',
    path: '/v1/tenants/{tenantId}/keys/{keyId}',
    access: 'admin',
    run: async (deps, _r, p) => ok(tenantKeyView(await revokeTenantKey(deps, tenantOf(p), p.keyId!))),
  },
];
