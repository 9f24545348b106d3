/** Resolves a hostname to its addresses (used to refuse private targets when a subscription is created). */
export interface HostResolver {
  resolve(hostname: string): Promise<readonly string[]>;
}
