/**
 * Install sheets as checked and shown (issue #41), and each row's end as it ran: the check is kept so that
 * Run works on whichever replica Slack reaches and after a restart, and the rows' ends so that Continue,
 * after a process stopped mid-sheet, runs only the rest. Both are the front end's JSON with its seal over
 * them: what the store gives back is data until the seal verifies (src/slack/sheet-records.ts). A sheet is
 * kept until it expires; adding one purges those that have.
 */
import type { Kv } from './kv.js';
import type { Sql } from './sql.js';

/** How a row ended, with the seal of the process that ran it. */
export interface RowEndRow {
  row: number;
  outcome: string;
  seal: string;
}

export interface SheetRecordRow {
  id: string;
  sheet: unknown;
  seal: string;
  expiresAt: number;
  /** Each row that ended, by any run of the sheet (the last end of a row stands). */
  ended: RowEndRow[];
}

export interface SheetBook {
  add(row: { id: string; sheet: unknown; seal: string; expiresAt: number }): Promise<void>;
  /** The sheet of this id with its rows' ends; undefined when it is not kept (never, or expired). */
  byId(id: string): Promise<SheetRecordRow | undefined>;
  /** Records how a row ended (after an earlier end of the same row: this one stands). */
  rowEnded(id: string, end: RowEndRow): Promise<void>;
}

interface SheetValue {
  sheet: unknown;
  seal: string;
  expiresAt: number;
}

export class KvSheetBook implements SheetBook {
  constructor(
    private readonly kv: Kv,
    private readonly now: () => number,
  ) {}

  async add({ id, sheet, seal, expiresAt }: { id: string; sheet: unknown; seal: string; expiresAt: number }): Promise<void> {
    const at = this.now();
    await this.kv.transaction((tx) => {
      for (const [key, value] of tx.entries<SheetValue>('sheets')) {
        if (value.expiresAt > at) continue;
        tx.remove('sheets', key);
        tx.remove('sheet_rows', key);
      }
      tx.put('sheets', id, { sheet, seal, expiresAt } satisfies SheetValue);
    });
  }

  async byId(id: string): Promise<SheetRecordRow | undefined> {
    const [value, ended] = await this.kv.read((tx) => [tx.get<SheetValue>('sheets', id), tx.get<Record<string, RowEndRow>>('sheet_rows', id)] as const);
    if (!value || value.expiresAt <= this.now()) return undefined;
    return { id, ...value, ended: Object.values(ended ?? {}) };
  }

  async rowEnded(id: string, end: RowEndRow): Promise<void> {
    await this.kv.transaction((tx) => {
      if (!tx.get('sheets', id)) return;
      tx.put('sheet_rows', id, { ...tx.get<Record<string, RowEndRow>>('sheet_rows', id), [end.row]: end });
    });
  }
}

export class SqlSheetBook implements SheetBook {
  constructor(
    private readonly sql: Sql,
    /** The expiry clock: the database's (./sql.ts `clock`), or the test's. */
    private readonly now: () => Promise<number>,
  ) {}

  async add({ id, sheet, seal, expiresAt }: { id: string; sheet: unknown; seal: string; expiresAt: number }): Promise<void> {
    const at = await this.now();
    await this.sql.transaction(async (tx) => {
      await tx.query('DELETE FROM sheets WHERE expires_ms <= $1', [at]);
      await tx.query('INSERT INTO sheets (id, sheet, seal, expires_ms) VALUES ($1, $2, $3, $4)', [id, JSON.stringify(sheet), seal, expiresAt]);
    });
  }

  async byId(id: string): Promise<SheetRecordRow | undefined> {
    const [row] = await this.sql.query<{ sheet: unknown; seal: string; expires_ms: string | number }>('SELECT sheet, seal, expires_ms FROM sheets WHERE id = $1 AND expires_ms > $2', [id, await this.now()]);
    if (!row) return undefined;
    const ended = await this.sql.query<{ row_no: number; outcome: string; seal: string }>('SELECT row_no, outcome, seal FROM sheet_rows WHERE sheet_id = $1 ORDER BY row_no', [id]);
    // node-postgres parses jsonb; a text column would come back as a string.
    const sheet = typeof row.sheet === 'string' ? (JSON.parse(row.sheet) as unknown) : row.sheet;
    return { id, sheet, seal: row.seal, expiresAt: Number(row.expires_ms), ended: ended.map(({ row_no, outcome, seal }) => ({ row: Number(row_no), outcome, seal })) };
  }

  async rowEnded(id: string, { row, outcome, seal }: RowEndRow): Promise<void> {
    await this.sql.query(
      `INSERT INTO sheet_rows (sheet_id, row_no, outcome, seal) SELECT $1, $2, $3, $4 WHERE EXISTS (SELECT 1 FROM sheets WHERE id = $1)
       ON CONFLICT (sheet_id, row_no) DO UPDATE SET outcome = EXCLUDED.outcome, seal = EXCLUDED.seal`,
      [id, row, outcome, seal],
    );
  }
}
