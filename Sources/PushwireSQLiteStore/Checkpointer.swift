import CSQLite
import Foundation
import PushwireStore
import PushwireSystem
import Synchronization

/// Copies the write-ahead log into the database file on a thread and connection of its own, so
/// that the writer's COMMIT does not carry SQLite's automatic checkpoint (copying about a thousand
/// pages and fsyncing the database file inline: a fifth of the writer's time under message load).
///
/// The writer's connection has `wal_autocheckpoint` off and a WAL hook instead (`attach`): after
/// each commit the hook tells this thread how long the log is, and once `backgroundPages` frames
/// were appended since the last pass, the thread runs a PASSIVE checkpoint, which never blocks the
/// writer or a reader (it copies what no reader still needs). With `synchronous=NORMAL` SQLite
/// fsyncs the log before copying and the database file after, as in its own checkpoints.
///
/// SQLite starts the log over only at a write that finds it fully copied, which rarely happens
/// while the writer keeps appending. So once the log holds `inlinePages` frames, the hook runs one
/// checkpoint on the writer's thread, as SQLite's automatic one would: by then the background
/// passes copied nearly all of it, so that pass is short, and the next transaction starts the log
/// over. The log stays under about `inlinePages` pages (32 MiB of 4 KiB pages).
final class Checkpointer: Sendable {
    /// Frames appended since the last pass that start a background pass.
    static let backgroundPages: Int32 = 1000
    /// The log length at which the writer checkpoints itself, so that the log can start over.
    static let inlinePages: Int32 = 8000

    private struct State {
        /// The log's length after the writer's last commit, in frames.
        var logFrames: Int32 = 0
        /// The log's length when the last pass ran (it copied what no reader still needed).
        var passedFrames: Int32 = 0
        var closed = false
        var sleeping = false
    }

    private let state = Mutex(State())
    private let worker = WorkerThread(name: "pw-checkpointer")
    private let connection: SQLiteConnection

    /// Opens the checkpointing connection on the database at `path` and starts its thread.
    init(path: String) throws(StoreError) {
        do {
            connection = try SQLiteConnection(path: path, create: false)
            try connection.execute("PRAGMA synchronous=NORMAL")
        } catch {
            throw SQLiteStore.classify(error, path: path)
        }
        do {
            try worker.start { [self] in self.run() }
        } catch {
            throw .cannotOpen(location: path, reason: "cannot start the checkpointer's thread: \(error)")
        }
    }

    /// Turns the writer's automatic checkpoints off and reports its commits here instead. Call
    /// before the writer's first write; `detach` before `writer` is closed.
    func attach(to writer: SQLiteConnection) throws(SQLiteError) {
        try writer.execute("PRAGMA wal_autocheckpoint=0")
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_wal_hook(writer.rawHandle, { context, database, name, frames in
            guard let context else { return SQLITE_OK }
            let checkpointer = Unmanaged<Checkpointer>.fromOpaque(context).takeUnretainedValue()
            if frames >= Checkpointer.inlinePages {
                // What SQLite's own hook does; a background pass holding the checkpoint lock
                // makes it return SQLITE_BUSY at once, and the next commit tries again.
                sqlite3_wal_checkpoint_v2(database, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            }
            checkpointer.committed(logFrames: frames)
            return SQLITE_OK
        }, context)
    }

    /// Removes the hook `attach` set (the writer's thread, when it stops).
    func detach(from writer: SQLiteConnection) {
        sqlite3_wal_hook(writer.rawHandle, nil, nil)
    }

    /// Stops the thread after its current pass.
    func close() {
        state.withLock { $0.closed = true }
        worker.stopAndWait()
    }

    private func committed(logFrames: Int32) {
        let wake = state.withLock { state -> Bool in
            state.logFrames = logFrames
            // The log started over since the last pass: count from its start.
            if logFrames < state.passedFrames { state.passedFrames = 0 }
            guard state.sleeping, logFrames - state.passedFrames >= Self.backgroundPages else { return false }
            state.sleeping = false
            return true
        }
        if wake { worker.wake() }
    }

    private func run() {
        while true {
            let due = state.withLock { state -> Bool? in
                if state.closed { return nil }
                if state.logFrames - state.passedFrames >= Self.backgroundPages { return true }
                state.sleeping = true
                return false
            }
            guard let due else { break }
            guard due else {
                worker.sleep()
                continue
            }
            var logFrames: Int32 = 0
            let status = sqlite3_wal_checkpoint_v2(connection.rawHandle, "main", SQLITE_CHECKPOINT_PASSIVE, &logFrames, nil)
            state.withLock { state in
                // The next pass waits for as many new frames again, whatever this one could copy
                // (readers may hold some back) or whether it ran at all (SQLITE_BUSY: the writer
                // was checkpointing itself): never a spin.
                state.passedFrames = status == SQLITE_OK ? max(logFrames, 0) : state.logFrames
            }
        }
    }
}
