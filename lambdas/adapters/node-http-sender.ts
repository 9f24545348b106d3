import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { urlToHttpOptions } from 'node:url';
import type { AttemptResult } from '#domain/classify.ts';
import { DEFAULT_PORT_RANGES, formatPorts, isAllowedPort, targetPort, type PortRanges } from '#domain/target-ports.ts';
import { isForbiddenAddress } from '#domain/targets.ts';
import { RESPONSE_SNIPPET_BYTES, capUtf8 } from '#domain/types.ts';
import type { HttpRequest, HttpSender } from '#ports/http-sender.ts';
import { ForbiddenAddressError } from './errors.ts';
import { setBounded } from '#domain/bounded-map.ts';

/** How a kept-alive socket closed under a request shows: reset, or written to after the close. */
const STALE_SOCKET_CODES = new Set(['ECONNRESET', 'EPIPE']);

const TLS_CODES = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|HOSTNAME_MISMATCH/i;

/**
 * Checks the address the socket will really connect to, so a hostname that resolves (or
 * re-resolves, DNS rebinding) to a private or metadata address is refused at send time.
 */
function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as unknown as LookupAddress[];
      const bad = allowPrivate ? undefined : list.find((a) => isForbiddenAddress(a.address));
      if (bad)
        return callback(
          new ForbiddenAddressError(`${hostname} resolves to ${bad.address}, a private or metadata address`),
          '',
          0,
        );
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      const first = list[0]!;
      callback(null, first.address, first.family);
    });
  };
}

/** A URL as checked once: refused (why), or the request options every POST to it starts from. */
type Target =
  | { readonly refused: string }
  | {
      readonly refused?: undefined;
      readonly https: boolean;
      readonly host: string;
      readonly options: http.RequestOptions;
    };

/** Distinct URLs whose check is kept; the oldest goes first. */
const MAX_TARGETS = 1000;

/**
 * POSTs with node:http(s) over keep-alive agents; redirects are returned, never followed.
 * Per attempt it does little more than a raw keep-alive POST: the URL's checks are cached, the
 * headers go to node:http as one list, the body as the string it is.
 */
export class NodeHttpSender implements HttpSender {
  private readonly lookup: LookupFunction;
  private readonly httpAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  private readonly httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 64 });
  private readonly targets = new Map<string, Target>();
  /** Header names this sender sets itself, whatever the caller passes. */
  private readonly own: ReadonlySet<string>;

  constructor(
    private readonly options: {
      readonly allowPrivate: boolean;
      readonly userAgent?: string;
      /** Destination ports (HOOKLINE_ALLOWED_PORTS), checked again here because a stored URL may predate the setting. */
      readonly allowedPorts?: PortRanges;
    },
    private readonly clock: () => number = Date.now,
  ) {
    this.lookup = guardedLookup(options.allowPrivate);
    this.own = new Set(['host', 'content-length', ...(options.userAgent ? ['user-agent'] : [])]);
  }

  /**
   * The checks below depend on the URL's text and this sender's fixed options only, never on
   * DNS, so their verdict can be kept for good. A hostname's addresses are not part of it: they
   * are checked by `guardedLookup` on every new connection.
   */
  private target(raw: string): Target {
    const known = this.targets.get(raw);
    if (known) return known;
    const target = this.check(raw);
    setBounded(this.targets, raw, target, MAX_TARGETS);
    return target;
  }

  private check(raw: string): Target {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return { refused: 'url is not valid' };
    }
    const ports = this.options.allowedPorts ?? DEFAULT_PORT_RANGES;
    const port = targetPort(url);
    if (!isAllowedPort(port, ports))
      return { refused: `port ${port} is not allowed (allowed ports: ${formatPorts(ports)})` };
    if (!this.options.allowPrivate) {
      const host = url.hostname.replace(/^\[|\]$/g, '');
      if (/^[\d.]+$|:/.test(host) && isForbiddenAddress(host))
        return { refused: `${host} is a private or metadata address` };
    }
    const isHttps = url.protocol === 'https:';
    // What http.request(url) would derive from the URL, derived once.
    return {
      https: isHttps,
      host: url.host,
      options: {
        ...urlToHttpOptions(url),
        method: 'POST',
        agent: isHttps ? this.httpsAgent : this.httpAgent,
        lookup: this.lookup,
      },
    };
  }

  post(request: HttpRequest): Promise<AttemptResult> {
    const started = this.clock();
    const elapsed = () => this.clock() - started;
    return new Promise<AttemptResult>((resolve) => {
      const target = this.target(request.url);
      if (target.refused !== undefined)
        return resolve({ kind: 'forbidden_target', durationMs: 0, message: target.refused });
      let settled = false;
      const finish = (result: AttemptResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      // As a flat list node:http validates and writes as it is (no per-header setHeader); so Host is
      // given here (URL.host: brackets kept, a default port left out, as node:http writes it), and
      // the names this sender owns replace any a caller passed.
      const headers: string[] = ['host', target.host];
      for (const name in request.headers)
        if (!this.own.has(name.toLowerCase())) headers.push(name, request.headers[name]!);
      headers.push('content-length', String(Buffer.byteLength(request.body)));
      if (this.options.userAgent) headers.push('user-agent', this.options.userAgent);
      // Set once the status line and headers are in: from then on the attempt is that response.
      let responded: (() => void) | undefined;
      let req: http.ClientRequest;
      const timer = setTimeout(() => {
        // A body still trickling in does not undo a status already received: a 2xx is delivered
        // (retrying it would deliver twice), any other status is judged as it is.
        if (responded) responded();
        else finish({ kind: 'timeout', durationMs: elapsed(), message: `no response within ${request.timeoutMs} ms` });
        req.destroy();
      }, request.timeoutMs);
      const send = (isRetry: boolean) => {
        req = (target.https ? https : http).request({ ...target.options, headers });
        req.on('response', (res) => onResponse(res));
        req.on('error', (error: NodeJS.ErrnoException) => {
          if (error instanceof ForbiddenAddressError)
            return finish({ kind: 'forbidden_target', durationMs: elapsed(), message: error.message });
          const code = error.code ?? '';
          // A kept-alive socket the receiver closed (its idle timeout) as this POST went out on it:
          // nothing of the response came, and the receiver most likely read nothing. Sent once
          // more on a new socket, inside the same timeout, rather than spending an attempt on a
          // race the receiver did not choose. At worst a repeat, which webhook-id dedupes.
          if (!isRetry && !responded && !settled && req.reusedSocket && STALE_SOCKET_CODES.has(code)) return send(true);
          const kind = TLS_CODES.test(code) || TLS_CODES.test(error.message) ? 'tls' : 'network';
          finish({ kind, durationMs: elapsed(), message: `${code ? `${code}: ` : ''}${error.message}`.slice(0, 300) });
        });
        // A string body goes out in one write with the header, as a raw POST's does.
        req.end(request.body, 'utf8');
      };
      const onResponse = (res: http.IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        // Most receivers answer with no body or one chunk: no concatenation then.
        const text = () =>
          chunks.length === 0
            ? ''
            : chunks.length === 1
              ? chunks[0]!.toString('utf8')
              : Buffer.concat(chunks).toString('utf8');
        const done = () => {
          const retryAfter = res.headers['retry-after'];
          finish({
            kind: 'response',
            status: res.statusCode ?? 0,
            ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
            bodySnippet: capUtf8(text(), RESPONSE_SNIPPET_BYTES),
            durationMs: elapsed(),
          });
        };
        responded = done;
        res.on('data', (chunk: Buffer) => {
          if (size < RESPONSE_SNIPPET_BYTES) chunks.push(chunk.subarray(0, RESPONSE_SNIPPET_BYTES - size));
          size += chunk.length;
          // A receiver's status is known; reading a huge body would only cost time and memory.
          if (size >= RESPONSE_SNIPPET_BYTES) {
            done();
            res.destroy();
          }
        });
        res.on('end', done);
        res.on('error', done);
      };
      send(false);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
