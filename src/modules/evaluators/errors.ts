/**
 * Failures an evaluator reports as a result with status "error" (never as an HTTP error):
 * the runner turns each into `error_type` (the `type` below), `details` (the message) and
 * `traceback`.
 */
export class EvaluatorError extends Error {
  constructor(
    readonly type: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = type;
  }
}

/** A provider variable (OPENAI_API_KEY, AZURE_CONTENT_SAFETY_KEY, ...) is not set. */
export class MissingConfigurationError extends EvaluatorError {
  constructor(readonly variable: string, why: string) {
    super('MissingConfiguration', `${variable} is not set: ${why}. Set it in the environment of the Spyglass server and restart it.`);
  }
}

/** The provider answered an HTTP error, or could not be reached. */
export class ProviderError extends EvaluatorError {
  constructor(message: string, readonly statusCode?: number, options?: { cause?: unknown }) {
    super('ProviderError', message, options);
  }
}

/** The provider answered 2xx with something the evaluator cannot use (no tool call, bad arguments). */
export class InvalidProviderResponseError extends EvaluatorError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('InvalidProviderResponse', message, options);
  }
}
