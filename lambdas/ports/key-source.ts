/** Where the API's bearer keys come from (Secrets Manager on AWS, the environment locally). */
export interface KeySource {
  adminKey(): Promise<string>;
}
