import { InvokeCommand } from '@aws-sdk/client-lambda';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { CliError, EXIT, ServiceCallError, UnreachableError } from './errors.ts';
import type { Target } from './target.ts';

type Json = any;

const CONNECTION_ERRORS = /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ECONNRESET|fetch failed|socket hang up/;

function unreachable(what: string, error: unknown): never {
  const e = error as Error & { cause?: { code?: string } };
  const detail = e.cause?.code ?? e.message;
  throw new UnreachableError(`cannot reach ${what}: ${detail}`, { cause: error });
}

/**
 * What the commands call. Reads and subscription management go through the HTTP API; replays
 * go through the API locally and through the replay function with --aws; archive runs and
 * restores always go through the archiver function (the API has no such routes).
 */
export class Backend {
  constructor(private readonly target: Target) {}

  get aws(): boolean {
    return this.target.mode === 'aws';
  }

  async http(method: string, path: string, body?: unknown): Promise<Json> {
    return (await this.request(method, path, body === undefined ? undefined : JSON.stringify(body))).body;
  }

  /** One API call with `text` as the body exactly; the status with the parsed answer, or the error it maps to. */
  private async request(method: string, path: string, text?: string): Promise<{ status: number; body: Json }> {
    const api = await this.target.api();
    let res: Response;
    try {
      res = await fetch(`${api.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${api.key}`, ...(text !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(text !== undefined ? { body: text } : {}),
      });
    } catch (error) {
      unreachable(`the Hookline API at ${api.url}`, error);
    }
    const answer = await res.text();
    let parsed: Json;
    try {
      parsed = answer ? JSON.parse(answer) : undefined;
    } catch {
      parsed = undefined;
    }
    if (res.status >= 400) {
      const retryAfter = res.headers.get('retry-after');
      throw new ServiceCallError(
        res.status,
        parsed?.error?.code ?? (parsed?.message ? 'aws_error' : 'error'),
        parsed?.error?.message ?? parsed?.message ?? `HTTP ${res.status}`,
        retryAfter ? Number(retryAfter) : undefined,
      );
    }
    return { status: res.status, body: parsed };
  }

  /** POST /v1/events with `body` as written (the payload's exact text): 202 new, 200 already published. */
  publish(body: string) {
    return this.request('POST', '/v1/events', body);
  }

  /** Sends `body` to the ingest queue as it is; the queue cannot refuse it, so the caller checks it first. */
  async sendToIngestQueue(body: string): Promise<{ queueUrl: string; messageId: string }> {
    const queue = await this.target.queue();
    try {
      const out = await queue.client.send(new SendMessageCommand({ QueueUrl: queue.queueUrl, MessageBody: body }));
      return { queueUrl: queue.queueUrl, messageId: out.MessageId! };
    } catch (error) {
      const e = error as Error & { $metadata?: { httpStatusCode?: number }; code?: string };
      if (CONNECTION_ERRORS.test(`${e.message} ${e.code ?? ''}`) || e.name === 'TimeoutError') unreachable(`the ingest queue ${queue.queueUrl}`, error);
      if (/NonExistentQueue|QueueDoesNotExist/.test(e.name)) throw new ServiceCallError(404, 'queue_not_found', `queue ${queue.queueUrl} does not exist: ${e.message}`);
      if (e.$metadata?.httpStatusCode === 403 || /AccessDenied/.test(e.name)) throw new ServiceCallError(403, 'forbidden', e.message);
      throw new CliError(`sending to ${queue.queueUrl} failed: ${e.message}`, EXIT.failure, { cause: error });
    } finally {
      queue.client.destroy();
    }
  }

  /** Where producers reach Hookline (`hookline env`), and the key when asked for. */
  endpoints() {
    return this.target.endpoints();
  }
  async adminKey(): Promise<string> {
    return (await this.target.api()).key;
  }

  async invoke(fn: 'replay' | 'archiver', payload: unknown): Promise<Json> {
    const lambda = await this.target.lambda();
    const name = fn === 'replay' ? lambda.replayFunction : lambda.archiverFunction;
    let out;
    try {
      out = await lambda.client.send(new InvokeCommand({ FunctionName: name, Payload: Buffer.from(JSON.stringify(payload)) }));
    } catch (error) {
      const e = error as Error & { $metadata?: { httpStatusCode?: number } };
      if (CONNECTION_ERRORS.test(`${e.message} ${(e as { code?: string }).code ?? ''}`) || e.name === 'TimeoutError') unreachable(`the ${fn} function (${name})`, error);
      const status = e.$metadata?.httpStatusCode;
      if (e.name === 'ResourceNotFoundException') throw new ServiceCallError(404, 'function_not_found', `function ${name} not found: ${e.message}`);
      if (status === 403 || e.name === 'AccessDeniedException') throw new ServiceCallError(403, 'forbidden', e.message);
      throw new CliError(`invoking ${name} failed: ${e.message}`, EXIT.failure, { cause: error });
    }
    const text = out.Payload ? Buffer.from(out.Payload).toString('utf8') : '';
    const result = text ? JSON.parse(text) : undefined;
    if (out.FunctionError) throw new CliError(`the ${fn} function failed: ${result?.errorMessage ?? text}`, EXIT.failure);
    if (result && typeof result === 'object' && 'error' in result && typeof result.status === 'number') {
      throw new ServiceCallError(result.status, result.error.code, result.error.message);
    }
    return result;
  }

  // Subscriptions, deliveries and dead letters: the HTTP API in both modes.
  listSubscriptions(query: URLSearchParams) {
    return this.http('GET', `/v1/subscriptions?${query}`);
  }
  createSubscription(body: unknown) {
    return this.http('POST', '/v1/subscriptions', body);
  }
  pause(id: string, reason?: string) {
    return this.http('POST', `/v1/subscriptions/${encodeURIComponent(id)}/pause`, reason ? { reason } : undefined);
  }
  resume(id: string) {
    return this.http('POST', `/v1/subscriptions/${encodeURIComponent(id)}/resume`);
  }
  deadLetters(query: URLSearchParams) {
    return this.http('GET', `/v1/dead-letters?${query}`);
  }
  delivery(id: string) {
    return this.http('GET', `/v1/deliveries/${encodeURIComponent(id)}`);
  }
  mintTenantKey(tenantId: string) {
    return this.http('POST', `/v1/tenants/${encodeURIComponent(tenantId)}/keys`);
  }

  // Replays: the API locally, the replay function on AWS (what operators are granted there).
  replay(id: string) {
    return this.aws ? this.invoke('replay', { deliveryId: id }) : this.http('POST', `/v1/deliveries/${encodeURIComponent(id)}/replay`);
  }
  replayBulk(body: Record<string, unknown>) {
    return this.aws ? this.invoke('replay', body) : this.http('POST', '/v1/replays', body);
  }
  getReplay(id: string) {
    return this.aws ? this.invoke('replay', { action: 'get', replayId: id }) : this.http('GET', `/v1/replays/${encodeURIComponent(id)}`);
  }
  listReplays(limit: number, cursor?: string) {
    return this.aws
      ? this.invoke('replay', { action: 'list', limit, ...(cursor ? { cursor } : {}) })
      : this.http('GET', `/v1/replays?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
  }
  /** Continues a running replay in this call (AWS); locally the resume schedule does, so this only reads it. */
  continueReplay(id: string) {
    return this.aws ? this.invoke('replay', { action: 'resume', replayId: id }) : this.getReplay(id);
  }

  // The archiver function, in both modes.
  archive(maxObjects: number) {
    return this.invoke('archiver', { action: 'archive', maxObjects });
  }
  restore(from: string, to: string, subscriptionId?: string) {
    return this.invoke('archiver', { action: 'restore', from, to, ...(subscriptionId ? { subscriptionId } : {}) });
  }
}
