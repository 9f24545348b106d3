/** Polls `probe` until it returns a truthy value or `timeoutMs` passes (then throws with `what`). */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 20_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`,
      );
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
