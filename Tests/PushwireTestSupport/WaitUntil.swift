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
