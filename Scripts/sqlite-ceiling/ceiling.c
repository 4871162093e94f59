/*
 * The raw SQLite ceiling for durable device upserts: what PushwireSQLiteStore's group-commit writer is
 * measured against (issue 5, item 8).
 *
 * Same durability as the store (WAL, synchronous=FULL: every COMMIT is fsynced), same table shape
 * as the store's `devices` table (WITHOUT ROWID, primary key (app_id, hwid)), same upsert
 * statement, and a fixed batch size per transaction (the store's batches are "whatever is queued",
 * which is the number of calls in flight: 64 in the benchmark).
 *
 * Same keys as `pushwire-bench register`: hwids of the same shape, led by 12 hex digits that are
 * the row's number scrambled one-to-one (`spread_key`, pushwire-bench's `spreadKey`), so
 * successive rows land all over the table, among the rows already there, as real devices' ids
 * (random UUIDs) do. Counting up instead would append every row to the table's last page, which
 * costs SQLite almost nothing and is not what registrations look like.
 *
 * usage: ceiling <database path> [rows to upsert] [batch size] [rows to prefill]
 * prints:  rows=N batch=B prefill=P seconds=S rows_per_second=R
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void check(int rc, sqlite3 *db, const char *what) {
    if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
        fprintf(stderr, "ceiling: %s: %s (%d)\n", what, sqlite3_errmsg(db), rc);
        exit(1);
    }
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The n-th key: n times an odd constant modulo 2^48, a one-to-one map of 48-bit numbers. */
static unsigned long spread_key(unsigned long n) {
    return (n * 0x9E3779B97F4BUL) & 0xFFFFFFFFFFFFUL;
}

static void upsert_rows(sqlite3 *db, sqlite3_stmt *upsert, long first, long count, long batch) {
    char hwid[64], token[80];
    for (long done = 0; done < count;) {
        check(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL), db, "begin");
        for (long i = 0; i < batch && done < count; i++, done++) {
            unsigned long n = spread_key((unsigned long)(first + done));
            snprintf(hwid, sizeof hwid, "%012lx-bench-00000000", n);
            snprintf(token, sizeof token, "%064lx", n * 2654435761UL);
            sqlite3_bind_int64(upsert, 1, 1);
            sqlite3_bind_text(upsert, 2, hwid, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(upsert, 3, token, -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(upsert, 4, 1);
            sqlite3_bind_text(upsert, 5, "en", -1, SQLITE_STATIC);
            sqlite3_bind_int64(upsert, 6, 3600);
            sqlite3_bind_text(upsert, 7, "", -1, SQLITE_STATIC);
            sqlite3_bind_text(upsert, 8, "1.0", -1, SQLITE_STATIC);
            sqlite3_bind_int64(upsert, 9, (sqlite3_int64)time(NULL));
            check(sqlite3_step(upsert), db, "upsert");
            sqlite3_reset(upsert);
        }
        check(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), db, "commit");
    }
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: ceiling <database path> [rows] [batch] [prefill]\n");
        return 64;
    }
    long rows = argc > 2 ? atol(argv[2]) : 20000;
    long batch = argc > 3 ? atol(argv[3]) : 64;
    long prefill = argc > 4 ? atol(argv[4]) : 0;
    if (rows <= 0 || batch <= 0 || prefill < 0) {
        fprintf(stderr, "ceiling: rows and batch must be positive\n");
        return 64;
    }
    sqlite3 *db;
    check(sqlite3_open(argv[1], &db), db, "open");
    check(sqlite3_exec(db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL), db, "wal");
    check(sqlite3_exec(db, "PRAGMA synchronous=FULL", NULL, NULL, NULL), db, "synchronous");
    check(sqlite3_exec(db,
        "CREATE TABLE IF NOT EXISTS devices ("
        " app_id INTEGER NOT NULL, hwid TEXT NOT NULL, push_token TEXT NOT NULL, device_type INTEGER NOT NULL,"
        " language TEXT NOT NULL, timezone INTEGER NOT NULL, user_id TEXT NOT NULL, app_version TEXT NOT NULL,"
        " updated_at INTEGER NOT NULL, PRIMARY KEY (app_id, hwid)) WITHOUT ROWID", NULL, NULL, NULL), db, "create");
    sqlite3_stmt *upsert;
    check(sqlite3_prepare_v2(db,
        "INSERT INTO devices (app_id, hwid, push_token, device_type, language, timezone, user_id, app_version, updated_at)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
        " ON CONFLICT (app_id, hwid) DO UPDATE SET push_token = excluded.push_token, device_type = excluded.device_type,"
        " language = excluded.language, timezone = excluded.timezone, user_id = excluded.user_id,"
        " app_version = excluded.app_version, updated_at = excluded.updated_at", -1, &upsert, NULL), db, "prepare");

    /* Other keys than the measured rows' (prefilled numbers start at 2^40); large batches: setup only. */
    if (prefill > 0) upsert_rows(db, upsert, 1L << 40, prefill, 10000);

    double start = now();
    upsert_rows(db, upsert, 0, rows, batch);
    double seconds = now() - start;
    printf("rows=%ld batch=%ld prefill=%ld seconds=%.3f rows_per_second=%.0f\n", rows, batch, prefill, seconds,
           (double)rows / seconds);
    sqlite3_finalize(upsert);
    sqlite3_close(db);
    return 0;
}
