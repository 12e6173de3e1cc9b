/** The store could not be opened or reached: one line, naming the setting to look at, never a password. */
export class StoreError extends Error {
  override readonly name = 'StoreError';
}
