import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { AttemptResult } from '#domain/classify.ts';
import { DEFAULT_PORT_RANGES, formatPorts, isAllowedPort, targetPort, type PortRanges } from '#domain/target-ports.ts';
import { isForbiddenAddress } from '#domain/targets.ts';
import { RESPONSE_SNIPPET_BYTES, capUtf8 } from '#domain/types.ts';
import type { HttpRequest, HttpSender } from '#ports/http-sender.ts';
import { ForbiddenAddressError } from './errors.ts';

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
      if (bad) return callback(new ForbiddenAddressError(`${hostname} resolves to ${bad.address}, a private or metadata address`), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      const first = list[0]!;
      callback(null, first.address, first.family);
    });
  };
}

/** POSTs with node:http(s) over keep-alive agents; redirects are returned, never followed. */
export class NodeHttpSender implements HttpSender {
  private readonly lookup: LookupFunction;
  private readonly httpAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  private readonly httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 64 });

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
  }

  post(request: HttpRequest): Promise<AttemptResult> {
    const started = this.clock();
    const elapsed = () => this.clock() - started;
    return new Promise<AttemptResult>((resolve) => {
      let settled = false;
      const finish = (result: AttemptResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      let url: URL;
      try {
        url = new URL(request.url);
      } catch {
        return resolve({ kind: 'forbidden_target', durationMs: 0, message: 'url is not valid' });
      }
      const ports = this.options.allowedPorts ?? DEFAULT_PORT_RANGES;
      const port = targetPort(url);
      if (!isAllowedPort(port, ports)) {
        return resolve({ kind: 'forbidden_target', durationMs: 0, message: `port ${port} is not allowed (allowed ports: ${formatPorts(ports)})` });
      }
      if (!this.options.allowPrivate) {
        const host = url.hostname.replace(/^\[|\]$/g, '');
        if (/^[\d.]+$|:/.test(host) && isForbiddenAddress(host)) {
          return resolve({ kind: 'forbidden_target', durationMs: 0, message: `${host} is a private or metadata address` });
        }
      }
      const isHttps = url.protocol === 'https:';
      const body = Buffer.from(request.body, 'utf8');
      const req = (isHttps ? https : http).request(url, {
        method: 'POST',
        agent: isHttps ? this.httpsAgent : this.httpAgent,
        lookup: this.lookup,
        headers: { ...request.headers, 'content-length': String(body.length), ...(this.options.userAgent ? { 'user-agent': this.options.userAgent } : {}) },
      });
      // Set once the status line and headers are in: from then on the attempt is that response.
      let responded: (() => void) | undefined;
      const timer = setTimeout(() => {
        // A body still trickling in does not undo a status already received: a 2xx is delivered
        // (retrying it would deliver twice), any other status is judged as it is.
        if (responded) responded();
        else finish({ kind: 'timeout', durationMs: elapsed(), message: `no response within ${request.timeoutMs} ms` });
        req.destroy();
      }, request.timeoutMs);
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => {
          const retryAfter = res.headers['retry-after'];
          finish({
            kind: 'response',
            status: res.statusCode ?? 0,
            ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
            bodySnippet: capUtf8(Buffer.concat(chunks).toString('utf8'), RESPONSE_SNIPPET_BYTES),
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
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (error instanceof ForbiddenAddressError) return finish({ kind: 'forbidden_target', durationMs: elapsed(), message: error.message });
        const code = error.code ?? '';
        const kind = TLS_CODES.test(code) || TLS_CODES.test(error.message) ? 'tls' : 'network';
        finish({ kind, durationMs: elapsed(), message: `${code ? `${code}: ` : ''}${error.message}`.slice(0, 300) });
      });
      req.end(body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
