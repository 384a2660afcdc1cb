/**
 * WatchStore: the SQLite history of `goodput watch` (better-sqlite3, WAL mode, so that
 * `goodput history` and other readers can read while watch writes). Rounds, rollbacks and
 * the per-target watch state (rollback streak, cooldown, token budget) that lets a restarted
 * watch resume. No API key is ever written: targets are stored by name, URL (without
 * credentials) and model.
 *
 * @module
 */

import Database from 'better-sqlite3';
import { GoodputError } from '../errors.js';
import { lockStore, type StoreLock } from './lock.js';
import { checkForeignTables, checkStorePath, storeOpenError, storeWriteError } from './open.js';
import { packHistograms, type RoundRow, rowToRound } from './rows.js';
import { MIGRATIONS, STORE_SCHEMA_VERSION } from './schema.js';
import type { StoredRollback, StoredRound, WindowFigures } from './types.js';
import { windowFigures } from './windows.js';

export { DEFAULT_STORE_FILE } from './open.js';

export interface OpenStoreOptions {
  /** Open for reading only (history): never migrates, never writes. */
  readonly?: boolean;
}

/** Query of rounds: one target (all when absent), from `since` (ms epoch) on. */
export interface RoundQuery {
  target?: string;
  since?: number;
  until?: number;
}

/** The history of watch rounds in one SQLite file. */
export class WatchStore {
  readonly db: Database.Database;
  readonly path: string;
  private readonly targetIds = new Map<string, number>();
  /** The write lock (a store opened for writing): one watch writes a store. */
  private lock: StoreLock | undefined;

  private constructor(db: Database.Database, path: string) {
    this.db = db;
    this.path = path;
  }

  /** A stale lock of a process that is gone, taken over at open (to say so). */
  get tookOverLockOf(): { pid: number; host: string; since: string } | undefined {
    return this.lock?.tookOver;
  }

  /**
   * Runs a write; an SQLite failure (disk full, I/O error, read-only file) becomes E_IO naming
   * the store, what was not written, and that what was written before is kept.
   */
  private write<T>(what: string, fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      throw storeWriteError(this.path, what, e);
    }
  }

  /**
   * Opens (creating and migrating unless readonly) a store. A path that cannot be the store is
   * E_USAGE with the fix (see open.ts); what the disk does wrong is E_STORE naming the cause.
   */
  static open(path: string, options: OpenStoreOptions = {}): WatchStore {
    const readonly = options.readonly === true;
    checkStorePath(path, readonly);
    const lock = readonly ? undefined : lockStore(path);
    let db: Database.Database;
    try {
      db = new Database(path, { readonly, fileMustExist: readonly });
    } catch (e) {
      lock?.release();
      throw storeOpenError(path, e);
    }
    const store = new WatchStore(db, path);
    store.lock = lock;
    try {
      db.pragma('busy_timeout = 5000');
      const version = store.version();
      if (version === 0) checkForeignTables(path, store.tableNames(), readonly);
      if (!readonly) {
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = NORMAL');
        store.migrate();
      } else {
        store.checkVersion(version);
      }
    } catch (e) {
      db.close();
      lock?.release();
      throw storeOpenError(path, e);
    }
    return store;
  }

  /** The database's own tables (SQLite's internal ones left out). */
  private tableNames(): string[] {
    return (
      this.db
        .prepare(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )
        .all() as Array<{ name: string }>
    ).map((r) => r.name);
  }

  /** The schema version recorded in the store (0 for an empty file). */
  version(): number {
    const hasMeta = this.db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'")
      .get();
    if (!hasMeta) return 0;
    const row = this.db.prepare("SELECT value FROM meta WHERE key = 'schemaVersion'").get() as
      | { value: string }
      | undefined;
    return row ? Number(row.value) : 0;
  }

  private checkVersion(version: number): void {
    if (version > STORE_SCHEMA_VERSION) {
      throw new GoodputError(
        'E_STORE',
        `the store ${this.path} has schema version ${version}, newer than this goodput's ${STORE_SCHEMA_VERSION}`,
        'upgrade goodput, or point --store at another file',
      );
    }
  }

  private migrate(): void {
    const from = this.version();
    this.checkVersion(from);
    if (from === STORE_SCHEMA_VERSION) return;
    this.db.transaction(() => {
      for (let v = from; v < STORE_SCHEMA_VERSION; v++) this.db.exec(MIGRATIONS[v]!);
      this.db
        .prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('schemaVersion', ?)")
        .run(String(STORE_SCHEMA_VERSION));
    })();
  }

  /**
   * The id of a target, registering it (name, URL without credentials, model) on first use. A
   * name the store holds for another URL or model is refused: its rounds would mix two
   * histories under one name.
   */
  targetId(name: string, url = '', model = ''): number {
    const known = this.targetIds.get(name);
    if (known !== undefined) return known;
    const row = this.db.prepare('SELECT id, url, model FROM targets WHERE name = ?').get(name) as
      | { id: number; url: string; model: string }
      | undefined;
    let id = row?.id;
    if (row && url !== '' && row.url !== '' && (row.url !== url || row.model !== model)) {
      throw new GoodputError(
        'E_USAGE',
        `the store ${this.path} holds target '${name}' for ${row.url} (model ${row.model}); this one is ${url} (model ${model}): their rounds would mix two histories`,
        'give this target its own name (watch --name NAME, or name: in --targets), or another --store',
      );
    }
    if (id === undefined) {
      id = this.write(`target ${name}`, () =>
        Number(
          this.db.prepare('INSERT INTO targets (name, url, model) VALUES (?, ?, ?)').run(name, url, model)
            .lastInsertRowid,
        ),
      );
    } else if (url !== '' && row?.url === '') {
      const rowId = id;
      this.write(`target ${name}`, () =>
        this.db.prepare('UPDATE targets SET url = ?, model = ? WHERE id = ?').run(url, model, rowId),
      );
    }
    this.targetIds.set(name, id);
    return id;
  }

  /** Target names with their URL and model. */
  targets(): Array<{ name: string; url: string; model: string }> {
    return this.db.prepare('SELECT name, url, model FROM targets ORDER BY name').all() as Array<{
      name: string;
      url: string;
      model: string;
    }>;
  }

  /** Writes one round. */
  addRound(r: StoredRound): void {
    const id = this.targetId(r.target);
    const errors = Object.keys(r.errors).length > 0 ? JSON.stringify(r.errors) : null;
    const server = r.server && Object.keys(r.server).length > 0 ? JSON.stringify(r.server) : null;
    this.write(`round ${r.round} of ${r.target}`, () => this.insertRound(id, r, errors, server));
  }

  private insertRound(id: number, r: StoredRound, errors: string | null, server: string | null): void {
    this.db
      .prepare(
        `INSERT OR REPLACE INTO rounds (target_id, started_at, round, duration_ms, valid, invalid_reason, attempted,
         completed, failed, good, output_tokens, prober_lag_ms, errors, server, hist)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        Math.round(r.startedAt),
        r.round,
        Math.round(r.durationMs),
        r.valid ? 1 : 0,
        r.invalidReason ?? null,
        r.attempted,
        r.completed,
        r.failed,
        r.good,
        r.outputTokens,
        Math.round(r.proberLagMs * 10) / 10,
        errors,
        server,
        packHistograms(r.histograms),
      );
  }

  /** Rounds matching the query, oldest first. */
  rounds(q: RoundQuery = {}): StoredRound[] {
    const names = new Map(
      (this.db.prepare('SELECT id, name FROM targets').all() as Array<{ id: number; name: string }>).map(
        (t) => [t.id, t.name],
      ),
    );
    return this.roundRows(q).map((row) => rowToRound(row, names.get(row.target_id) ?? '?'));
  }

  private roundRows(q: RoundQuery): RoundRow[] {
    const where: string[] = [];
    const params: unknown[] = [];
    if (q.target !== undefined) {
      where.push('target_id = (SELECT id FROM targets WHERE name = ?)');
      params.push(q.target);
    }
    if (q.since !== undefined) {
      where.push('started_at >= ?');
      params.push(Math.floor(q.since));
    }
    if (q.until !== undefined) {
      where.push('started_at < ?');
      params.push(Math.ceil(q.until));
    }
    const sql = `SELECT * FROM rounds ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY target_id, started_at`;
    return this.db.prepare(sql).all(...params) as RoundRow[];
  }

  /** The last round number of a target (0 when it has none): a restarted watch continues from it. */
  lastRound(target: string): number {
    const row = this.db
      .prepare('SELECT MAX(round) AS n FROM rounds WHERE target_id = (SELECT id FROM targets WHERE name = ?)')
      .get(target) as { n: number | null };
    return row.n ?? 0;
  }

  /** Records a triggered rollback. */
  addRollback(r: StoredRollback): void {
    const id = this.targetId(r.target);
    this.write(`the rollback of ${r.target} at round ${r.round}`, () =>
      this.db
        .prepare(
          'INSERT INTO rollbacks (target_id, at, round, adr_id, rule, evidence, command, exit_code) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        )
        .run(
          id,
          Math.round(r.at),
          r.round,
          r.adrId ?? null,
          r.rule,
          JSON.stringify(r.evidence),
          r.command ?? null,
          r.exitCode ?? null,
        ),
    );
  }

  /** Rollbacks, oldest first. */
  rollbacks(target?: string): StoredRollback[] {
    const rows = this.db
      .prepare(
        `SELECT t.name AS target, r.at, r.round, r.adr_id, r.rule, r.evidence, r.command, r.exit_code
         FROM rollbacks r JOIN targets t ON t.id = r.target_id ${target !== undefined ? 'WHERE t.name = ?' : ''} ORDER BY r.at`,
      )
      .all(...(target !== undefined ? [target] : [])) as Array<Record<string, unknown>>;
    return rows.map((row) => {
      const out: StoredRollback = {
        target: row.target as string,
        at: row.at as number,
        round: row.round as number,
        rule: row.rule as string,
        evidence: JSON.parse(row.evidence as string),
      };
      if (row.adr_id !== null) out.adrId = row.adr_id as string;
      if (row.command !== null) out.command = row.command as string;
      if (row.exit_code !== null) out.exitCode = row.exit_code as number;
      return out;
    });
  }

  /** Updates the exit code of the latest rollback of a target (the command ends after it was recorded). */
  setRollbackExitCode(target: string, exitCode: number): void {
    this.write(`the rollback command's exit code of ${target}`, () =>
      this.db
        .prepare(
          'UPDATE rollbacks SET exit_code = ? WHERE id = (SELECT MAX(id) FROM rollbacks WHERE target_id = (SELECT id FROM targets WHERE name = ?))',
        )
        .run(exitCode, target),
    );
  }

  /** The saved watch state of a target (JSON), for resuming after a restart. */
  loadState<T>(target: string): T | undefined {
    const row = this.db
      .prepare('SELECT state FROM watch_state WHERE target_id = (SELECT id FROM targets WHERE name = ?)')
      .get(target) as { state: string } | undefined;
    return row ? (JSON.parse(row.state) as T) : undefined;
  }

  saveState(target: string, state: unknown): void {
    const id = this.targetId(target);
    this.write(`the watch state of ${target}`, () =>
      this.db
        .prepare('INSERT OR REPLACE INTO watch_state (target_id, state) VALUES (?, ?)')
        .run(id, JSON.stringify(state)),
    );
  }

  /** Deletes rounds and rollbacks older than `before` (ms epoch); returns the rounds deleted. */
  prune(before: number): number {
    const t = Math.floor(before);
    return this.write('the pruning of old rounds', () => {
      const n = this.db.prepare('DELETE FROM rounds WHERE started_at < ?').run(t).changes;
      this.db.prepare('DELETE FROM rollbacks WHERE at < ?').run(t);
      return n;
    });
  }

  /**
   * Windows of `windowMs` (aligned to multiples of it since the epoch) with figures recomputed
   * from the merged histograms of their valid rounds: exact percentiles of the window's values,
   * within the store histogram's bucket precision.
   */
  windows(windowMs: number, q: RoundQuery = {}): WindowFigures[] {
    const names = new Map(
      (this.db.prepare('SELECT id, name FROM targets').all() as Array<{ id: number; name: string }>).map(
        (t) => [t.id, t.name],
      ),
    );
    return windowFigures(this.roundRows(q), names, windowMs);
  }

  close(): void {
    if (this.db.open) this.db.close();
    this.lock?.release();
  }
}
