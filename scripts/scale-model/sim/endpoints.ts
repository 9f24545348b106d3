import type { AttemptResult } from '#domain/classify.ts';
import type { HttpRequest, HttpSender } from '#ports/http-sender.ts';
import type { SimTime } from './time.ts';

/** How one simulated receiver answers at a given instant. */
export type Behaviour =
  | { readonly kind: 'ok'; readonly latencyMs: number }
  | { readonly kind: 'status'; readonly status: number; readonly latencyMs: number }
  /** Holds the connection open for `ms`: past the sender's timeout it is a timeout. */
  | { readonly kind: 'hang'; readonly ms: number }
  | { readonly kind: 'refused' };

export type EndpointPlan = (host: string, nowMs: number) => Behaviour;

export interface Receipt {
  readonly eventId: string;
  readonly host: string;
  readonly atMs: number;
}

/**
 * The receivers, in place of the node-http-sender adapter: a POST waits its simulated latency and
 * answers as the scenario's plan says for that host at that instant. Every 2xx is recorded with
 * the event id from the webhook-id header, so latency and duplicates are counted from what the
 * receivers saw.
 */
export class SimEndpoints implements HttpSender {
  readonly posts = { total: 0, ok: 0, failed: 0, timedOut: 0 };
  private concurrent = 0;
  peakConcurrent = 0;
  /** When each POST began (simulated ms), in order: what a rate limit bounds. */
  readonly startTimes: number[] = [];

  constructor(
    private readonly time: SimTime,
    private readonly plan: EndpointPlan,
    private readonly onReceipt: (receipt: Receipt) => void,
  ) {}

  async post(request: HttpRequest): Promise<AttemptResult> {
    const host = new URL(request.url).hostname;
    const start = this.time.now();
    this.startTimes.push(start);
    const behaviour = this.plan(host, start);
    this.posts.total++;
    this.concurrent++;
    this.peakConcurrent = Math.max(this.peakConcurrent, this.concurrent);
    try {
      if (behaviour.kind === 'refused') {
        await this.time.sleep(1);
        this.posts.failed++;
        return { kind: 'network', durationMs: 1, message: 'connect ECONNREFUSED (simulated)' };
      }
      if (behaviour.kind === 'hang') {
        const waited = Math.min(behaviour.ms, request.timeoutMs);
        await this.time.sleep(waited);
        if (behaviour.ms >= request.timeoutMs) {
          this.posts.timedOut++;
          return {
            kind: 'timeout',
            durationMs: waited,
            message: `no response within ${request.timeoutMs} ms (simulated)`,
          };
        }
        return this.answered(request, host, 200, start);
      }
      await this.time.sleep(behaviour.latencyMs);
      return this.answered(request, host, behaviour.kind === 'ok' ? 200 : behaviour.status, start);
    } finally {
      this.concurrent--;
    }
  }

  private answered(request: HttpRequest, host: string, status: number, start: number): AttemptResult {
    const now = this.time.now();
    if (status >= 200 && status < 300) {
      this.posts.ok++;
      this.onReceipt({ eventId: request.headers['webhook-id'] ?? '', host, atMs: now });
    } else this.posts.failed++;
    return { kind: 'response', status, bodySnippet: '', durationMs: now - start };
  }
}
