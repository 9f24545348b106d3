import { it } from 'node:test';
import { startLocalStack } from '#test/local-stack.ts';
import { waitFor } from '#test/wait.ts';
it('probe', async () => {
  (globalThis as any).__gateLog = [];
  const stack = await startLocalStack();
  await stack.subscribe('/limited', { eventTypes: ['burst.*'], rateLimitPerSecond: 20 });
  await stack.subscribe('/free', { eventTypes: ['burst.*'] });
  const ids: Record<string,string> = {};
  for (let start = 0; start < 200; start += 100) {
    const events = Array.from({ length: 100 }, (_, k) => ({ id: `burst-${start + k}`, type: 'burst.tick', payload: { n: start + k } }));
    const res = await stack.api.post('/v1/events/batch', { events });
    for (const it of res.body.items) ids[it.deliveryIds[0]] = it.eventId;
  }
  await waitFor('x', () => stack.receiver.distinctCount('/limited') >= 200, 90_000, 200);
  const log = (globalThis as any).__gateLog as {id:string;at:number;fresh:boolean}[];
  const arr = new Map(stack.receiver.on('/limited').map((r) => [r.webhookId, r.receivedAt]));
  const deltas = log.filter(l => ids[l.id]).map(l => arr.get(ids[l.id]!)! - l.at).sort((a,b)=>a-b);
  console.log('gate→arrival ms: n', deltas.length, 'min', deltas[0], 'p50', deltas[deltas.length>>1], 'p90', deltas[Math.floor(deltas.length*0.9)], 'max', deltas.at(-1));
  const gates = log.map(l=>l.at).sort((a,b)=>a-b); let max=0; for (let i=0,j=0;i<gates.length;i++){ while(gates[i]-gates[j]>=1000) j++; max=Math.max(max,i-j+1);} console.log('gate max/s', max, 'fresh admitted', log.filter(l=>l.fresh).length);
  await stack.stop();
});
