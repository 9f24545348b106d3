import { archiveRunBody, restoreBody } from '#app/archive/archive-request.ts';
import { parseOptionalBody, parseBody, parseQuery } from '#app/parse.ts';
import { MAIL_DEFAULT_LIMIT, mailQuery } from '#app/notices/mail-request.ts';
import type { ArchiverInvoker, ArchiverPayload } from '#ports/archiver-invoker.ts';
import { ok, type ApiResponse, type Route } from '../route.ts';

/** Where mail is not kept, the console says so instead of showing an empty inbox as if nothing was sent. */
export const MAIL_NOT_KEPT =
  'Notice emails are not kept here: on AWS they go out through SES (see its sending statistics), and a local runtime with HOOKLINE_SMTP_URL hands them to that server.';

/**
 * The archiver's answer as the API's: its report with 200, or its refusal (`{status, error}`,
 * handlers/invocation.ts) with the same status and error body, so a bad day range reads the
 * same whichever way it was asked.
 */
async function viaArchiver(archiver: ArchiverInvoker, payload: ArchiverPayload): Promise<ApiResponse> {
  const result = await archiver.invoke(payload);
  if (
    result &&
    typeof result === 'object' &&
    'error' in result &&
    typeof (result as { status?: unknown }).status === 'number'
  ) {
    const { status, error } = result as { status: number; error: unknown };
    return { status, body: { error } };
  }
  return ok(result);
}

/**
 * Operator jobs the console runs: one archive slice and a restore, through the archiver
 * function (which alone may touch the archive bucket), and the local runtime's caught notice emails.
 */
export const OPERATOR_ROUTES: readonly Route[] = [
  {
    method: 'POST',
    path: '/v1/archive-runs',
    access: 'admin',
    // One slice of at most maxObjects (the archiver's default when absent): a 'partial' report asks the console to run again.
    run: async (deps, req) =>
      viaArchiver(deps.archiver, { action: 'archive', ...parseOptionalBody(req.body, archiveRunBody) }),
  },
  {
    method: 'POST',
    path: '/v1/restores',
    access: 'admin',
    // Checked here too (the same schema the archiver applies), so a bad range is refused before any invocation.
    run: async (deps, req) => viaArchiver(deps.archiver, { action: 'restore', ...parseBody(req.body, restoreBody) }),
  },
  {
    method: 'GET',
    path: '/v1/mail',
    access: 'admin',
    run: async (_deps, req) => {
      const { limit: n } = parseQuery(mailQuery, req.query);
      if (!req.mailbox) return ok({ kept: false, note: MAIL_NOT_KEPT, items: [] });
      return ok({ kept: true, items: await req.mailbox.list(n ?? MAIL_DEFAULT_LIMIT) });
    },
  },
];
