import PushwireStore
import PushwireWire

/// A registration that passed the rules, with its fingerprint: what `DevicesService.decide`
/// hands to the write when the device is new or changed.
struct PreparedRegistration: Sendable {
    var device: DeviceRecord
    var tags: [TagChange]
    /// The fingerprint whose write began, which `finishWrite` ends.
    var pending: PendingFingerprint
}

/// A device's fingerprint marked as being written: all that ending the write needs, so that the
/// completions carry two integers rather than the whole registration (each copy of a
/// `PreparedRegistration` retained its eight strings, two copies a call).
struct PendingFingerprint: Sendable {
    /// `RegistrationFingerprints.key` of the device.
    var key: Int
    /// `RegistrationFingerprints.fingerprint` of the device and its tags.
    var fingerprint: Int
}

/// What to do with a registration.
enum RegistrationDecision {
    /// A field breaks a rule: the call fails with this error; nothing was begun.
    case refused(RPCError)
    /// The fingerprint matched: answer with the categories now, nothing to read or write.
    case unchanged
    /// New or changed: the write has begun (the fingerprint is marked as being written), and
    /// the caller must `startWrite` it and then `finishWrite` it exactly once.
    case write(PreparedRegistration)
}

/// The one decision path of RegisterDevice. Both doors — the raw fast path, for a request read in
/// place, and the regular handler, for one decoded by protobuf-c — decide here, after looking the
/// application up their own way, so that they cannot disagree on anything but the lookup (the
/// fast path declines what it cannot answer, and the regular handler reports it).
extension DevicesService {
    /// Checks `request` for `applicationID` and compares it with the device's fingerprint.
    func decide(_ request: RegisterDeviceRequest, applicationID: Int64) -> RegistrationDecision {
        let prepared: PreparedRegistration
        do throws(RPCError) {
            let device = try DeviceValidation.device(request, applicationID: applicationID)
            let tags = try DeviceValidation.tagSets(request.tags)
            prepared = PreparedRegistration(
                device: device, tags: tags,
                pending: PendingFingerprint(key: RegistrationFingerprints.key(applicationID: applicationID, hwid: device.hwid),
                                            fingerprint: RegistrationFingerprints.fingerprint(device, tags: tags)))
        } catch {
            return .refused(error)
        }
        // One lock for both: an unchanged device is answered, any other's write begins.
        if registry.fingerprints.matchesElseBeginWrite(key: prepared.pending.key, fingerprint: prepared.pending.fingerprint) { return .unchanged }
        return .write(prepared)
    }

    /// Performs the write `decide` began; `then` runs once, on the thread that completed it (the
    /// store's syncer for a device without tags, which acknowledges whole batches: hand over at
    /// once). A device with tags is first compared with the stored one (their comparison needs a
    /// read, in a task): when identical it is not written (`.unchangedStored`).
    func startWrite(_ prepared: PreparedRegistration, then: @escaping @Sendable (Result<RegistrationOutcome, RPCError>) -> Void) {
        let store = registry.store
        if prepared.tags.isEmpty {
            store.upsertDevice(prepared.device) { error in then(error.map { .failure($0.rpcError) } ?? .success(.written)) }
            return
        }
        Task {
            do throws(RPCError) {
                if try await self.isStored(prepared.device, tags: prepared.tags) {
                    then(.success(.unchangedStored))
                    return
                }
                try await storeCall { () async throws(StoreError) in try await store.upsertDevice(prepared.device, tags: prepared.tags) }
                then(.success(.written))
            } catch {
                then(.failure(error))
            }
        }
    }

    /// Ends the write `decide` began (`PreparedRegistration.pending`), with `startWrite`'s result:
    /// the fingerprint is remembered when the device is now stored as requested, forgotten otherwise.
    func finishWrite(_ pending: PendingFingerprint, after result: Result<RegistrationOutcome, RPCError>) {
        var stored = false
        if case .success = result { stored = true }
        registry.fingerprints.endWrite(key: pending.key, fingerprint: stored ? pending.fingerprint : nil)
    }
}
