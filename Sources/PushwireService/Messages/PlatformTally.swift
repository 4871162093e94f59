import PushwireStore

/// What a fan-out step adds to a message's counters per platform (device type): targets as they
/// are handed over, outcomes as they are recorded. The totals in the message row are kept as
/// before; these split them for GetMessageDetails.
struct PlatformTally {
    private var counts: [Int32: PlatformCountRecord] = [:]

    /// Whether nothing was counted.
    var isEmpty: Bool { counts.isEmpty }

    /// Counts a device selected (a first attempt handed over).
    mutating func targeted(_ deviceType: Int32) {
        counts[deviceType, default: PlatformCountRecord(deviceType: deviceType)].targeted += 1
    }

    /// Counts an outcome recorded; retry-pending ones count later, with their last attempt.
    mutating func recorded(_ deviceType: Int32, _ result: DeliveryResultRecord.Result) {
        switch result {
        case .sent:
            counts[deviceType, default: PlatformCountRecord(deviceType: deviceType)].sent += 1
        case .failed(_, let invalidToken, _):
            counts[deviceType, default: PlatformCountRecord(deviceType: deviceType)].failed += 1
            if invalidToken { counts[deviceType, default: PlatformCountRecord(deviceType: deviceType)].invalidTokens += 1 }
        case .retryPending:
            break
        }
    }

    /// The counts, in device type order, and a fresh tally.
    mutating func take() -> [PlatformCountRecord] {
        if counts.isEmpty { return [] }
        defer { counts.removeAll(keepingCapacity: true) }
        return counts.values.sorted { $0.deviceType < $1.deviceType }
    }
}
