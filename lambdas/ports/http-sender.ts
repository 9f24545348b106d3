import type { AttemptResult } from '#domain/classify.ts';

export interface HttpRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly timeoutMs: number;
}

/** POSTs once: never follows redirects, reads at most 512 bytes of the response, never throws. */
export interface HttpSender {
  post(request: HttpRequest): Promise<AttemptResult>;
}
