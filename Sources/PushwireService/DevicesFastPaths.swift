import PushwireRuntime
import PushwireWire

/// The raw fast paths of SyncCategories and RegisterDevice (`Server.registerRawFastPath`): the
/// calls every device makes on every launch, answered from encoded responses cached per
/// application version. Each path handles only the common, valid case and declines the rest to
/// the regular handler (`DevicesService.syncCategories`, `registerDevice`), which therefore
/// remains the one place that reports errors: unknown application, invalid fields, and so on.
extension DevicesService {
    /// SyncCategories: `not_modified` or the full set, from the cached encodings; a copy of a
    /// cached array per call. Declines an unknown application, a request it cannot read in place
    /// and an application whose categories are not cached (the regular path reads and caches them).
    public func syncCategoriesFastPath(_ message: UnsafeRawBufferPointer) -> RawAnswer {
        var reader = HotFrames.Reader(message)
        var application = UnsafeRawBufferPointer(start: nil, count: 0)
        var knownVersion: UInt64 = 0
        while !reader.atEnd {
            guard let (field, wireType) = reader.tag() else { return .decline }
            switch (field, wireType) {
            case (1, 2):  // application
                guard let text = reader.submessage() else { return .decline }
                application = text.bytes
            case (2, 0):  // known_version
                guard let value = reader.varint() else { return .decline }
                knownVersion = value
            default:
                return .decline
            }
        }
        guard let code = Self.asciiString(application),
              let encoded = registry.directory.encodedResponses(code: code) else { return .decline }
        return .response(encoded.sync(knownVersion: knownVersion))
    }

    /// RegisterDevice without tags: an unchanged device (its fingerprint matches) is answered at
    /// once; any other is written through the store's callback path, straight from the syncer's
    /// acknowledgement of the commit back to the event loop, without a task. Declines tags (whose comparison needs a read),
    /// anything invalid, and an application whose categories are not cached.
    public func registerDeviceFastPath(_ message: UnsafeRawBufferPointer) -> RawAnswer {
        guard let request = RegisterDeviceScanner.scan(message) else { return .decline }
        let directory = registry.directory
        let generation = directory.categoriesGeneration
        // The regular path's `prepare`, with one directory lookup instead of two (and no copy of
        // the application record): the same checks, in `DeviceValidation.device`. An unknown
        // application has no encoded answers, so it is declined here and reported there.
        guard request.tags.isEmpty, let encoded = directory.encodedResponses(code: request.application),
              let device = try? DeviceValidation.device(request, applicationID: encoded.applicationID) else { return .decline }
        let applicationID = encoded.applicationID
        let key = RegistrationFingerprints.key(applicationID: applicationID, hwid: device.hwid)
        let fingerprint = RegistrationFingerprints.fingerprint(device, tags: [])
        let fingerprints = registry.fingerprints
        // An unchanged device is answered now; any other's write begins here (the runtime
        // starts a `.later` call at once), which saves a second lock and lookup.
        if fingerprints.matchesElseBeginWrite(key: key, fingerprint: fingerprint) {
            return .response(encoded.register(knownVersion: request.knownCategoriesVersion))
        }
        let store = registry.store
        let code = request.application, knownVersion = request.knownCategoriesVersion
        return .later { complete in
            store.upsertDevice(device) { error in
                // On the store's syncer thread, once the row is durable: hand over at once (it
                // completes a whole batch in turn); the rest runs on the loop.
                complete {
                    fingerprints.endWrite(key: key, fingerprint: error == nil ? fingerprint : nil)
                    if let error { return .failure(error.rpcError) }
                    if directory.categoriesGeneration == generation {
                        return .success(encoded.register(knownVersion: knownVersion))
                    }
                    // Categories changed during the write: answer with them, as the regular path
                    // does (it reads the categories after the write). If the new list is not
                    // cached yet, the version read before is still a correct answer for a device
                    // that registered before the change committed, and it spares the loop a read.
                    let current = directory.encodedResponses(code: code) ?? encoded
                    return .success(current.register(knownVersion: knownVersion))
                }
            }
        }
    }

    /// The bytes as a `String` when they are ASCII (always valid UTF-8); nil otherwise, so that
    /// other text is checked by the regular decoder.
    static func asciiString(_ bytes: UnsafeRawBufferPointer) -> String? {
        for byte in bytes where byte >= 0x80 { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
