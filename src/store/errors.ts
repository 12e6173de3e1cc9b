/** The store could not be opened or reached: one line, naming the setting to look at, never a password. */
export class StoreError extends Error {
  override readonly name = 'StoreError';
  /** True when the store did not answer (a database down or out of reach: a restart may help). */
  constructor(
    message: string,
    readonly transient = false,
  ) {
    super(message);
  }
}
