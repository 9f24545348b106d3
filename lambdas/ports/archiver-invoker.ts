/**
 * The archiver function, as another function reaches it: the api runs an archive slice or a
 * restore for the operator console through this, so the archive bucket stays the archiver's
 * alone (only it is granted S3). On AWS a synchronous Lambda Invoke; locally the runtime's own
 * archiver handler.
 */
export interface ArchiverInvoker {
  /** The archiver's answer to `payload` as it gave it: a report, or `{status, error}` when it refused. */
  invoke(payload: ArchiverPayload): Promise<unknown>;
}

export type ArchiverPayload =
  | { readonly action: 'archive'; readonly maxObjects?: number }
  | { readonly action: 'restore'; readonly from: string; readonly to: string; readonly subscriptionId?: string };
