import { scriptVariables } from '#local/script-variables.ts';
import { exportLine } from '#local/shell-export.ts';
import type { Context } from './commands.ts';

/**
 * `hookline env`: where producers and scripts reach Hookline, as `export` lines for
 * `eval "$(npx hookline env)"` (or one JSON object of the same variables with --json). The
 * admin key only with --with-key: these lines tend to end up in scripts and CI logs.
 */
export async function environment(ctx: Context, o: { withKey?: boolean }) {
  const endpoints = await ctx.backend.endpoints();
  const variables = scriptVariables({ ...endpoints, ...(o.withKey ? { adminKey: await ctx.backend.adminKey() } : {}) });
  ctx.out.result(Object.fromEntries(variables), () => variables.map((v) => exportLine([v])).join('\n'));
}
