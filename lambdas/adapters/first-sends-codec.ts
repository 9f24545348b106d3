import type { EventRecord, FirstSend } from '#domain/types.ts';

/**
 * The event row's `firstSends` in few bytes (attribute `fs`): a subscription id is 26
 * characters and "deadlineSeconds" 15 more, so the map as it is would put an event published to
 * ten subscriptions on a policy of their own past 1 KB (2 write units, and its storage for 34
 * days). Written as `<place>:<deadline>[:a]` per subscription that differs, by its place in
 * `subscriptionIds`, joined by `;`, or as `*:<deadline>[:a]` when every one differs alike (one
 * policy for all): "*:60" for ten subscriptions where the map took about 400 bytes.
 */
export function encodeFirstSends(event: Pick<EventRecord, 'subscriptionIds' | 'firstSends'>): string | undefined {
  const sends = event.firstSends;
  if (!sends || Object.keys(sends).length === 0) return undefined;
  const parts = event.subscriptionIds.map((id) => (sends[id] ? part(sends[id]) : undefined));
  const first = parts[0];
  if (first !== undefined && parts.every((p) => p === first)) return `*:${first}`;
  return parts.flatMap((p, i) => (p === undefined ? [] : [`${i}:${p}`])).join(';');
}

/** The `firstSends` an encoded `fs` holds, by subscription id; undefined when there is none. */
export function decodeFirstSends(
  encoded: string | undefined,
  subscriptionIds: readonly string[],
): Readonly<Record<string, FirstSend>> | undefined {
  if (!encoded) return undefined;
  const sends: Record<string, FirstSend> = {};
  for (const entry of encoded.split(';')) {
    const [place, deadline, alone] = entry.split(':');
    const send: FirstSend = {
      ...(deadline ? { deadlineSeconds: Number(deadline) } : {}),
      ...(alone === 'a' ? { alone: true as const } : {}),
    };
    const ids = place === '*' ? subscriptionIds : [subscriptionIds[Number(place)]];
    for (const id of ids) if (id !== undefined) sends[id] = send;
  }
  return sends;
}

const part = (send: FirstSend): string => `${send.deadlineSeconds ?? ''}${send.alone ? ':a' : ''}`;
