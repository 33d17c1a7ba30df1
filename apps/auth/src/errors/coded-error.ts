/**
 * The base of the errors that are not HTTP answers but carry a stable code (stores, policies,
 * crypto): the CLI and the HTTP handlers map the code to their own answer. HTTP answers use
 * AuthError (auth-error.ts) instead. The error's name is its class's name.
 */
export class CodedError<Code extends string> extends Error {
  readonly code: Code;
  constructor(code: Code, message: string) {
    super(message);
    this.name = new.target.name;
    this.code = code;
  }
}
