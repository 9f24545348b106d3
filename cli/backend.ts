import { InvokeCommand, type InvokeCommandOutput } from '@aws-sdk/client-lambda';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { CliError, EXIT, ServiceCallError, UnreachableError } from './errors.ts';
import {
  createClient,
  HooklineApiError,
  HooklineUnreachableError,
  type AnswerOf,
  type HooklineClient,
  type RequestOf,
  type ResultOf,
} from '#client/hookline-client.ts';
import type { OperationKey } from '#handlers/api/operations.ts';
import type { Target } from './target.ts';

// biome-ignore lint/suspicious/noExplicitAny: the API's answers are printed as they come; the typed client checks their shapes.
type Json = any;

const CONNECTION_ERRORS = /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ECONNRESET|fetch failed|socket hang up/;

function unreachable(what: string, error: unknown): never {
  const e = error as Error & { cause?: { code?: string } };
  const detail = e.cause?.code ?? e.message;
  throw new UnreachableError(`cannot reach ${what}: ${detail}`, { cause: error });
}

/**
 * What the commands call. Reads and subscription management go through the HTTP API, with the
 * typed client (client/hookline-client.ts: each call names its route by the operations table's
 * key, so no path is built here); replays go through the API locally and through the replay
 * function with --aws; archive runs and restores always go through the archiver function
 * directly, with its 15 minutes (the API's routes for them run one slice within its 29 s).
 */
export class Backend {
  private client?: Promise<HooklineClient>;

  constructor(private readonly target: Target) {}

  get aws(): boolean {
    return this.target.mode === 'aws';
  }

  /** One API call: its documented answer, or the CLI error its refusal maps to. */
  async request<K extends OperationKey>(
    key: K,
    ...args: {} extends RequestOf<K> ? [RequestOf<K>?] : [RequestOf<K>]
  ): Promise<ResultOf<K>> {
    this.client ??= this.target.api().then((api) => createClient({ baseUrl: api.url, key: api.key }));
    const client = await this.client;
    try {
      return await client.request(key, ...args);
    } catch (error) {
      if (error instanceof HooklineApiError)
        throw new ServiceCallError(error.status, error.code, error.message, error.retryAfterSeconds);
      if (error instanceof HooklineUnreachableError) throw new UnreachableError(error.message, { cause: error });
      throw error;
    }
  }

  /** `request` for the answer's body alone. */
  async call<K extends OperationKey>(
    key: K,
    ...args: {} extends RequestOf<K> ? [RequestOf<K>?] : [RequestOf<K>]
  ): Promise<AnswerOf<K>> {
    return (await this.request(key, ...args)).body as AnswerOf<K>;
  }

  /** POST /v1/events with `body` as written (the payload's exact text): 202 new, 200 already published. */
  publish(body: string) {
    return this.request('POST /v1/events', { bodyText: body });
  }

  /** Sends `body` to the ingest queue as it is; the queue cannot refuse it, so the caller checks it first. */
  async sendToIngestQueue(body: string): Promise<{ queueUrl: string; messageId: string }> {
    const queue = await this.target.queue();
    try {
      const out = await queue.client.send(new SendMessageCommand({ QueueUrl: queue.queueUrl, MessageBody: body }));
      return { queueUrl: queue.queueUrl, messageId: out.MessageId! };
    } catch (error) {
      const e = error as Error & { $metadata?: { httpStatusCode?: number }; code?: string };
      if (CONNECTION_ERRORS.test(`${e.message} ${e.code ?? ''}`) || e.name === 'TimeoutError')
        unreachable(`the ingest queue ${queue.queueUrl}`, error);
      if (/NonExistentQueue|QueueDoesNotExist/.test(e.name))
        throw new ServiceCallError(404, 'queue_not_found', `queue ${queue.queueUrl} does not exist: ${e.message}`);
      if (e.$metadata?.httpStatusCode === 403 || /AccessDenied/.test(e.name))
        throw new ServiceCallError(403, 'forbidden', e.message);
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
    let out: InvokeCommandOutput;
    try {
      out = await lambda.client.send(
        new InvokeCommand({ FunctionName: name, Payload: Buffer.from(JSON.stringify(payload)) }),
      );
    } catch (error) {
      const e = error as Error & { $metadata?: { httpStatusCode?: number } };
      if (CONNECTION_ERRORS.test(`${e.message} ${(e as { code?: string }).code ?? ''}`) || e.name === 'TimeoutError')
        unreachable(`the ${fn} function (${name})`, error);
      const status = e.$metadata?.httpStatusCode;
      if (e.name === 'ResourceNotFoundException')
        throw new ServiceCallError(404, 'function_not_found', `function ${name} not found: ${e.message}`);
      if (status === 403 || e.name === 'AccessDeniedException') throw new ServiceCallError(403, 'forbidden', e.message);
      throw new CliError(`invoking ${name} failed: ${e.message}`, EXIT.failure, { cause: error });
    }
    const text = out.Payload ? Buffer.from(out.Payload).toString('utf8') : '';
    const result = text ? JSON.parse(text) : undefined;
    if (out.FunctionError)
      throw new CliError(`the ${fn} function failed: ${result?.errorMessage ?? text}`, EXIT.failure);
    if (result && typeof result === 'object' && 'error' in result && typeof result.status === 'number') {
      throw new ServiceCallError(result.status, result.error.code, result.error.message);
    }
    return result;
  }

  // Replays: the API locally, the replay function on AWS (what operators are granted there).
  replay(id: string): Promise<Json> {
    return this.aws
      ? this.invoke('replay', { deliveryId: id })
      : this.call('POST /v1/deliveries/{deliveryId}/replay', { params: { deliveryId: id } });
  }
  /** Retry now goes through the API in both modes, like pause and resume: the replay function has no such action. */
  retry(id: string): Promise<Json> {
    return this.call('POST /v1/deliveries/{deliveryId}/retry', { params: { deliveryId: id } });
  }
  replayBulk(body: Record<string, unknown>): Promise<Json> {
    return this.aws
      ? this.invoke('replay', body)
      : this.call('POST /v1/replays', { body } as RequestOf<'POST /v1/replays'>);
  }
  getReplay(id: string): Promise<Json> {
    return this.aws
      ? this.invoke('replay', { action: 'get', replayId: id })
      : this.call('GET /v1/replays/{replayId}', { params: { replayId: id } });
  }
  listReplays(limit: number, cursor?: string): Promise<Json> {
    return this.aws
      ? this.invoke('replay', { action: 'list', limit, ...(cursor ? { cursor } : {}) })
      : this.call('GET /v1/replays', { query: { limit, cursor } });
  }
  /** Continues a running replay in this call (AWS); locally the resume schedule does, so this only reads it. */
  continueReplay(id: string): Promise<Json> {
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
