import PushwireStore

/// What a fan-out step adds to a message's counters per platform (device type): targets as they
/// are handed over, outcomes as they are recorded. The totals in the message row are kept as
/// before; these split them for GetMessageDetails.
struct PlatformTally {
    /// One entry per device type seen, in the order seen: a message has devices of one or two
    /// platforms, so a look along a few entries, where a dictionary keyed by `Int32` hashed
    /// the key at each of the 20 counts a small message makes (a fifth of its delivery's
    /// dictionary work).
    private var counts: [PlatformCountRecord] = []

    /// Whether nothing was counted.
    var isEmpty: Bool { counts.isEmpty }

    /// The index of `deviceType`'s entry, added if new.
    private mutating func entry(_ deviceType: Int32) -> Int {
        if let index = counts.firstIndex(where: { $0.deviceType == deviceType }) { return index }
        counts.append(PlatformCountRecord(deviceType: deviceType))
        return counts.count - 1
    }

    /// Counts a device selected (a first attempt handed over).
    mutating func targeted(_ deviceType: Int32) {
        counts[entry(deviceType)].targeted += 1
    }

    /// Counts an outcome recorded; retry-pending ones count later, with their last attempt.
    mutating func recorded(_ deviceType: Int32, _ result: DeliveryResultRecord.Result) {
        switch result {
        case .sent:
            counts[entry(deviceType)].sent += 1
        case .failed(_, let invalidToken, _):
            let index = entry(deviceType)
            counts[index].failed += 1
            if invalidToken { counts[index].invalidTokens += 1 }
        case .retryPending:
            break
        }
    }

    /// The counts, in device type order, and a fresh tally.
    mutating func take() -> [PlatformCountRecord] {
        if counts.isEmpty { return [] }
        defer { counts.removeAll(keepingCapacity: true) }
        return counts.sorted { $0.deviceType < $1.deviceType }
    }
}
