/** A handler was started without an environment variable its function declares. */
export class MissingEnvironmentError extends Error {
  override name = 'MissingEnvironmentError';
  constructor(
    readonly variable: string,
    readonly functionName: string,
  ) {
    super(`environment variable ${variable} is required by the ${functionName} function but is not set`);
  }
}

/** An environment variable is set but cannot be used. */
export class InvalidEnvironmentError extends Error {
  override name = 'InvalidEnvironmentError';
  constructor(
    readonly variable: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(`environment variable ${variable} ${message}`, options);
  }
}
