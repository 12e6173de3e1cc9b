/**
 * What the embedded engines share: tables of JSON values under string keys, changed only in
 * transactions. A transaction's work reads, then says what to write; its writes are applied together
 * when the work returns (none of them when it throws), and no other process or store writes between its
 * reads and its writes. Reads see the tables as they were when the work began, never its own writes.
 * Two engines: LMDB in the state folder (./lmdb.ts, shared by every process on the machine) and this
 * process's memory (`Memory` below: the demo and `serve --simulator`, which keep nothing).
 */

import { Opening } from './opening.js';

export type Table = 'claims' | 'approvals' | 'approvals_at' | 'outbox' | 'operations' | 'sheets' | 'sheet_rows' | 'meta';
export const TABLES: readonly Table[] = ['claims', 'approvals', 'approvals_at', 'outbox', 'operations', 'sheets', 'sheet_rows', 'meta'];

export interface KvReader {
  get<T>(table: Table, key: string): T | undefined;
  /** Every entry of the table, in key order (keys compare as strings). */
  entries<T>(table: Table): Iterable<[string, T]>;
}

export interface KvWriter extends KvReader {
  put(table: Table, key: string, value: unknown): void;
  remove(table: Table, key: string): void;
}

export interface Kv {
  /** `work` alone against every other writer, its writes applied together once it returns. */
  transaction<T>(work: (tx: KvWriter) => T): Promise<T>;
  /** A consistent read of the tables as they are now. */
  read<T>(work: (tx: KvReader) => T): Promise<T>;
  close(): Promise<void>;
}

type Write = { table: Table; key: string; value: unknown } | { table: Table; key: string; removed: true };

/** A writer whose puts and removes are kept until `writes()` is asked for, over a reader. */
export function bufferedWriter(reader: KvReader): KvWriter & { writes(): Write[] } {
  const writes: Write[] = [];
  return {
    get: (table, key) => reader.get(table, key),
    entries: (table) => reader.entries(table),
    put: (table, key, value) => void writes.push({ table, key, value }),
    remove: (table, key) => void writes.push({ table, key, removed: true }),
    writes: () => writes,
  };
}

export const isRemoval = (write: Write): write is Extract<Write, { removed: true }> => 'removed' in write;

/**
 * The tables in this process's memory: every store opened on one `Memory` is another process's view of
 * it (tests open two to stand for two replicas). Values are copied in and out, as a database would.
 */
export class Memory implements Kv {
  private readonly tables = new Map<Table, Map<string, unknown>>(TABLES.map((table) => [table, new Map()]));

  async transaction<T>(work: (tx: KvWriter) => T): Promise<T> {
    const writer = bufferedWriter(this.reader());
    const result = work(writer);
    for (const write of writer.writes()) {
      const table = this.tables.get(write.table)!;
      if (isRemoval(write)) table.delete(write.key);
      else table.set(write.key, structuredClone(write.value));
    }
    return result;
  }

  async read<T>(work: (tx: KvReader) => T): Promise<T> {
    return work(this.reader());
  }

  async close(): Promise<void> {}

  private reader(): KvReader {
    return {
      get: <T>(table: Table, key: string) => structuredClone(this.tables.get(table)!.get(key)) as T | undefined,
      entries: <T>(table: Table) =>
        [...this.tables.get(table)!.entries()]
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([key, value]): [string, T] => [key, structuredClone(value) as T]),
    };
  }
}

/** A key-value engine opened on first use (./opening.ts). */
export class OpeningKv extends Opening<Kv> implements Kv {
  async transaction<T>(work: (tx: KvWriter) => T): Promise<T> {
    return (await this.engine()).transaction(work);
  }

  async read<T>(work: (tx: KvReader) => T): Promise<T> {
    return (await this.engine()).read(work);
  }
}
