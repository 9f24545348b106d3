/** When the current call must checkpoint and leave the rest to the resume schedule (a Lambda's remaining time). */
export interface Budget {
  readonly deadlineMs: number;
}
