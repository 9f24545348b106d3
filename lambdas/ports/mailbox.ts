/** One notice email as the local mail catcher kept it. */
export interface CaughtMessage {
  readonly id: string;
  readonly from: string;
  readonly to: readonly string[];
  readonly subject: string;
  readonly text: string;
  readonly receivedAt: string;
}

/**
 * Notice emails kept where the deployment can read them back: only the local runtime's mail
 * catcher. On AWS mail goes to SES and nothing is kept, so there is no mailbox there.
 */
export interface Mailbox {
  /** The newest `limit` messages, newest first. */
  list(limit: number): Promise<readonly CaughtMessage[]>;
}
