import { UispNotFoundError } from './uisp/errors.js';

/** Bad input from a person: names the field so the front end can show it beside that field. */
export class InputError extends Error {
  override readonly name = 'InputError';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** Turns UISP's 404 for something a person named into an InputError on that field. */
export async function notFoundAsInputError<T>(lookup: Promise<T>, field: string, message: string): Promise<T> {
  try {
    return await lookup;
  } catch (error) {
    if (error instanceof UispNotFoundError) throw new InputError(field, message);
    throw error;
  }
}

/** A run lost its hold on a key (or could not check it): it stops before its next irreversible write. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
  constructor(
    readonly keys: string[],
    readonly reason: 'lost' | 'store',
    options?: ErrorOptions,
  ) {
    super(`the hold on ${keys.join(', ')} was ${reason === 'lost' ? 'lost to its lease running out' : 'not confirmed: the store did not answer'}`, options);
  }
}
