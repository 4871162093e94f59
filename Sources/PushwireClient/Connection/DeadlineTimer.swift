import Foundation

/// Something with calls whose deadlines the timer watches.
protocol DeadlineTarget: AnyObject, Sendable {
    /// Fails every call whose deadline is at or before `now`; returns the earliest deadline
    /// still pending, for the timer to wake up at next.
    func expireDeadlines(now: ContinuousClock.Instant) -> ContinuousClock.Instant?
}

/// One thread for the whole process that wakes each connection when its earliest call deadline
/// passes. A connection registers only when its earliest deadline moves earlier, and calls that
/// finish are not unregistered: the connection rescans its pending calls when woken, so a call
/// costs no timer work at all in the usual case of equal timeouts (deadlines arrive in order).
final class DeadlineTimer: @unchecked Sendable {
    // @unchecked: `targets` and `started` are only touched with `condition` locked.
    static let shared = DeadlineTimer()

    private let condition = NSCondition()
    private var targets: [ObjectIdentifier: (target: any DeadlineTarget, at: ContinuousClock.Instant)] = [:]
    private var nextWake: ContinuousClock.Instant?
    private var started = false

    /// Asks for `target.expireDeadlines` to be called no later than `deadline`.
    func schedule(_ target: any DeadlineTarget, at deadline: ContinuousClock.Instant) {
        condition.lock()
        defer { condition.unlock() }
        let key = ObjectIdentifier(target)
        if let existing = targets[key], existing.at <= deadline { return }
        targets[key] = (target, deadline)
        if !started {
            started = true
            let thread = Thread { [self] in run() }
            thread.name = "pushwire-deadlines"
            thread.start()
        }
        if nextWake.map({ deadline < $0 }) ?? true { condition.signal() }
    }

    private func run() {
        var due: [any DeadlineTarget] = []
        while true {
            condition.lock()
            while true {
                let now = ContinuousClock.now
                guard let earliest = targets.values.min(by: { $0.at < $1.at })?.at else {
                    nextWake = nil
                    condition.wait()
                    continue
                }
                if earliest <= now { break }
                nextWake = earliest
                let wait = now.duration(to: earliest)
                let seconds = Double(wait.components.seconds) + Double(wait.components.attoseconds) * 1e-18
                _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
            }
            let now = ContinuousClock.now
            for (key, entry) in targets where entry.at <= now {
                due.append(entry.target)
                targets[key] = nil
            }
            nextWake = nil
            condition.unlock()
            for target in due {
                if let next = target.expireDeadlines(now: now) { schedule(target, at: next) }
            }
            due.removeAll(keepingCapacity: true)
        }
    }
}
