import type { DashboardAssets, DashboardFileName } from '#ports/dashboard-assets.ts';
import { ok, type ApiResponse, type Route } from '../route.ts';

/**
 * The page may load its own script, style sheet and data and nothing else: no inline script or
 * style, no other origin, no plugin, no framing, no form posted anywhere. `connect-src 'self'`
 * is the API itself, which the page calls with a bearer header (never a cookie).
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** On every file: never sniffed, framed, cached or sent as a referrer (the page's URL may carry a one-time code until the page clears it). */
const COMMON_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
} as const;

const TYPES: Readonly<Record<DashboardFileName, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

async function serve(assets: DashboardAssets | undefined, name: DashboardFileName): Promise<ApiResponse> {
  const text = await assets?.file(name);
  if (text === undefined)
    return ok(
      {
        error: {
          code: 'not_found',
          message: `the dashboard's ${name} is not part of this deployment (it is built into the api function's bundle by the CDK, and in memory by npm start)`,
        },
      },
      404,
    );
  const headers =
    name === 'index.html' ? { ...COMMON_HEADERS, 'content-security-policy': DASHBOARD_CSP } : COMMON_HEADERS;
  return { status: 200, body: text, raw: { contentType: TYPES[name], headers } };
}

/** The web dashboard's static files (docs/design.md, "The dashboard"): open routes, the same for every caller. */
export const DASHBOARD_ROUTES: readonly Route[] = [
  { method: 'GET', path: '/dashboard', access: 'public', run: async (_d, req) => serve(req.dashboard, 'index.html') },
  {
    method: 'GET',
    path: '/dashboard/app.js',
    access: 'public',
    run: async (_d, req) => serve(req.dashboard, 'app.js'),
  },
  {
    method: 'GET',
    path: '/dashboard/app.css',
    access: 'public',
    run: async (_d, req) => serve(req.dashboard, 'app.css'),
  },
];
