import Foundation
import Glibc

/// Waits until `condition` holds, checking it every 5 ms, for at most `timeout` seconds; returns
/// whether it held. Tests wait on the event they need (a counter moved, a line written, a later
/// call answered) instead of sleeping for a guessed time.
public func waitUntil(timeout: TimeInterval = 10, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout)
    while true {
        if try condition() { return true }
        if Date() >= deadline { return false }
        usleep(5_000)
    }
}

/// Waits until `observe()` has given the same value for `quietFor` seconds in a row (checked every
/// 5 ms), for at most `timeout` seconds; returns whether it settled. For a test that must let a
/// server do all it will do before checking what it did not do (a client that never reads: how
/// much did the server hold for it?): the wait lasts as long as the server is still working, and
/// no longer, instead of a guessed sleep that a loaded machine can outrun.
public func waitUntilSettled<Value: Equatable>(quietFor: TimeInterval = 0.3, timeout: TimeInterval = 20,
                                               _ observe: () throws -> Value) rethrows -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout)
    var last = try observe()
    var unchangedSince = Date()
    while true {
        usleep(5_000)
        let now = Date()
        let value = try observe()
        if value != last {
            last = value
            unchangedSince = now
        } else if now.timeIntervalSince(unchangedSince) >= quietFor {
            return true
        }
        if now >= deadline { return false }
    }
}
