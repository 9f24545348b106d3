import type { DeliveryMessage } from '#ports/delivery-queue.ts';

/**
 * Gathers the messages sent within `windowMs` of the first one into one `enqueue` call, of at
 * most `max`: the retries of one received batch, whose attempts end within milliseconds of each
 * other, go out as one SendMessageBatch, and the queue adapter packs those due in the same
 * second into shared messages, so they come back, and are received and deleted, together. Each
 * sender's promise settles with its call: a failed send is every gathered sender's to handle.
 * A retry waits at least a second, so the window costs it nothing that shows.
 */
export function gatheredSends(
  enqueue: (messages: readonly DeliveryMessage[]) => Promise<void>,
  windowMs: number,
  max: number,
): (message: DeliveryMessage) => Promise<void> {
  let gathering:
    | { readonly messages: DeliveryMessage[]; readonly sent: Promise<void>; readonly go: () => void }
    | undefined;
  const open = () => {
    const messages: DeliveryMessage[] = [];
    let go!: () => void;
    const due = new Promise<void>((resolve) => {
      go = resolve;
    });
    const timer = setTimeout(go, windowMs);
    const sent = due.then(() => {
      clearTimeout(timer);
      // A full gathering or its window's end: the next message starts a new one.
      if (gathering?.messages === messages) gathering = undefined;
      return enqueue(messages);
    });
    return { messages, sent, go };
  };
  return (message) => {
    gathering ??= open();
    const { messages, sent, go } = gathering;
    messages.push(message);
    if (messages.length >= max) {
      gathering = undefined;
      go();
    }
    return sent;
  };
}
