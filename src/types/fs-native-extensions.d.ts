/** The part of fs-native-extensions SubOps uses (the package ships no types). */
declare module 'fs-native-extensions' {
  /** An open-file-description lock on Linux (F_OFD_SETLK): true when granted, false when another open file holds it. */
  export function tryLock(fd: number, options?: { shared?: boolean }): boolean;
  export function unlock(fd: number): void;
}
