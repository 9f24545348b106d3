/** The line CDK writes to stderr before bundling each function (asset staging writes it unconditionally). */
const BUNDLING_LINE = /^Bundling asset \S+\.\.\.\r?\n$/;

export interface HeldBundlingLines {
  /** What was held back, in order: printed when synthesis fails, so the failing asset is named. */
  readonly lines: readonly string[];
  /** Puts stderr back as it was. */
  restore(): void;
}

/**
 * Keeps CDK's "Bundling asset …" lines off stderr, so `cdk synth --quiet` prints nothing when
 * all is well; everything else written to stderr (esbuild warnings and errors, cdk-nag) passes.
 */
export function holdBundlingLines(stream: NodeJS.WriteStream = process.stderr): HeldBundlingLines {
  const lines: string[] = [];
  const write = stream.write.bind(stream);
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (typeof chunk === 'string' && BUNDLING_LINE.test(chunk)) {
      lines.push(chunk);
      return true;
    }
    return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof stream.write;
  return { lines, restore: () => void (stream.write = write) };
}
