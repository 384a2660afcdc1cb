/**
 * The watch store's schema and its migrations. `meta.schemaVersion` says which migrations
 * have run; opening a store applies the missing ones in one transaction, and refuses a store
 * written by a newer goodput (its schema may mean something this version does not know).
 *
 * Size matters (a month of 5-minute rounds per target must stay under 2 MB): rounds live in
 * a WITHOUT ROWID table keyed by (target, start time), so the key is the only index, and the
 * four latency histograms of a round are one compact BLOB (see histogram.ts).
 *
 * @module
 */

/** The store schema this goodput writes. */
export const STORE_SCHEMA_VERSION = 1;

/** Migration n (1-based) brings a store from version n-1 to n. Append; never edit a released step. */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE targets (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    url TEXT NOT NULL,
    model TEXT NOT NULL
  );
  CREATE TABLE rounds (
    target_id INTEGER NOT NULL REFERENCES targets(id),
    started_at INTEGER NOT NULL,
    round INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL,
    valid INTEGER NOT NULL,
    invalid_reason TEXT,
    attempted INTEGER NOT NULL,
    completed INTEGER NOT NULL,
    failed INTEGER NOT NULL,
    good INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    prober_lag_ms REAL NOT NULL, -- rounded to 0.1 ms
    errors TEXT,
    server TEXT,
    hist BLOB NOT NULL,
    PRIMARY KEY (target_id, started_at)
  ) WITHOUT ROWID;
  CREATE TABLE rollbacks (
    id INTEGER PRIMARY KEY,
    target_id INTEGER NOT NULL REFERENCES targets(id),
    at INTEGER NOT NULL,
    round INTEGER NOT NULL,
    adr_id TEXT,
    rule TEXT NOT NULL,
    evidence TEXT NOT NULL,
    command TEXT,
    exit_code INTEGER
  );
  CREATE TABLE watch_state (target_id INTEGER PRIMARY KEY REFERENCES targets(id), state TEXT NOT NULL);
  `,
];
