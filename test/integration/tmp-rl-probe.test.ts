// @ts-nocheck
import { it } from 'node:test';
import { startLocalStack } from '#test/local-stack.ts';
import { waitFor } from '#test/wait.ts';
import { NodeHttpSender } from '#adapters/node-http-sender.ts';
import { DynamoDbSendRateCounters } from '#adapters/dynamodb-send-rate-counters.ts';
const posts = new Map();
const orig = NodeHttpSender.prototype.post;
NodeHttpSender.prototype.post = function (req) { if (req.url.endsWith('/limited')) posts.set(String(req.headers['webhook-id']), Date.now()); return orig.call(this, req); };
const calls = { count: 0, takeTurn: 0 };
for (const op of ['count', 'takeTurn']) { const o = DynamoDbSendRateCounters.prototype[op]; DynamoDbSendRateCounters.prototype[op] = function (...a) { calls[op]++; return o.apply(this, a); }; }
import { SqsDeliveryQueue } from '#adapters/sqs-delivery-queue.ts';
const delays: number[] = []; const ro = SqsDeliveryQueue.prototype.retryLater; SqsDeliveryQueue.prototype.retryLater = function (h, d) { delays.push(d); return ro.call(this, h, d); };
const mx = (ts) => { const g=[...ts].sort((a,b)=>a-b); let m=0; for (let i=0,j=0;i<g.length;i++){ while(g[i]-g[j]>=1000) j++; m=Math.max(m,i-j+1);} return m; };
it('probe', async () => {
  const N = Number(process.env.N ?? 200);
  const stack = await startLocalStack();
  await stack.subscribe('/limited', { eventTypes: ['burst.*'], rateLimitPerSecond: 20, retryPolicy: { initialDelaySeconds: 1, multiplier: 1, maxDelaySeconds: 1, jitter: 0, deadlineSeconds: 3600 } });
  await stack.subscribe('/free', { eventTypes: ['burst.*'] });
  const t0 = Date.now();
  for (let start = 0; start < N; start += 100) {
    const events = Array.from({ length: 100 }, (_, k) => ({ id: `burst-${start + k}`, type: 'burst.tick', payload: { n: start + k } }));
    await stack.api.post('/v1/events/batch', { events });
  }
  const tick = setInterval(() => { const h = {}; for (const d of delays.splice(0)) h[d] = (h[d] ?? 0) + 1; console.log(`t=${((Date.now()-t0)/1000).toFixed(0)} limited=${stack.receiver.distinctCount('/limited')} free=${stack.receiver.distinctCount('/free')} counts=${calls.count} turns=${calls.takeTurn} delays=${JSON.stringify(h)}`); }, 5000);
  await waitFor('x', () => stack.receiver.distinctCount('/limited') >= N, 300_000, 200);
  const arr = stack.receiver.on('/limited').map((r) => r.receivedAt);
  const free = stack.receiver.on('/free').map((r) => r.receivedAt);
  console.log(`N ${N} post max/s ${mx([...posts.values()])} arrival max/s ${mx(arr)} drain ${((Math.max(...arr) - t0)/1000).toFixed(1)} s free done ${((Math.max(...free) - t0)/1000).toFixed(1)} s counts/delivery ${(calls.count/N).toFixed(2)} turns/delivery ${(calls.takeTurn/N).toFixed(2)} requests ${arr.length}`);
  clearInterval(tick);
  await stack.stop();
});
