import PushwireRuntime
import PushwireWire

/// The raw fast paths of SyncCategories and RegisterDevice (`Server.registerRawFastPath`): the
/// calls every device makes on every launch, answered from encoded responses cached per
/// application version. Each path handles only the common, valid case and declines the rest to
/// the regular handler (`DevicesService.syncCategories`, `registerDevice`), which therefore
/// remains the one place that reports errors: unknown application, invalid fields, and so on.
/// Their scanners read exactly what the regular decoder reads or decline (`FastPathDifferential`).
extension DevicesService {
    /// SyncCategories: `not_modified` or the full set, from the cached encodings; a copy of a
    /// cached array per call. Declines an unknown application, a request it cannot read in place
    /// and an application whose categories are not cached (the regular path reads and caches them).
    public func syncCategoriesFastPath(_ message: UnsafeRawBufferPointer) -> RawAnswer {
        guard let request = SyncCategoriesScanner.scan(message),
              let encoded = registry.directory.encodedResponses(code: request.application) else { return .decline }
        return .response(encoded.sync(knownVersion: request.knownVersion))
    }

    /// RegisterDevice without tags, decided by `decide` like the regular path: an unchanged device
    /// is answered at once; any other is written through the store's callback path, straight from
    /// the syncer's acknowledgement of the commit back to the event loop, without a task. Declines
    /// tags (whose comparison needs a read), anything `decide` refuses (the regular path reports
    /// it), and an application whose categories are not cached.
    public func registerDeviceFastPath(_ message: UnsafeRawBufferPointer) -> RawAnswer {
        guard let request = RegisterDeviceScanner.scan(message), request.tags.isEmpty else { return .decline }
        let directory = registry.directory
        let generation = directory.categoriesGeneration
        // The regular path looks the application up, then reads its categories; one lookup here
        // (and no copy of the application record). An unknown application has no encoded answers,
        // so it is declined here and reported there.
        guard let encoded = directory.encodedResponses(code: request.application) else { return .decline }
        let prepared: PreparedRegistration
        switch decide(request, applicationID: encoded.applicationID) {
        case .refused: return .decline
        case .unchanged: return .response(encoded.register(knownVersion: request.knownCategoriesVersion))
        case .write(let write): prepared = write
        }
        let code = request.application, knownVersion = request.knownCategoriesVersion, pending = prepared.pending
        return .later { [self] complete in
            startWrite(prepared) { result in
                // On the store's syncer thread, once the row is durable: hand over at once (it
                // completes a whole batch in turn); the rest runs on the loop.
                complete { [self] in
                    finishWrite(pending, after: result)
                    if case .failure(let error) = result { return .failure(error) }
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

    /// The bytes as a `String` when they are ASCII without NUL (always valid UTF-8, and what the
    /// wire validator accepts in a string); nil otherwise, so that other text is checked by the
    /// regular decoder — a hwid `a\0b` stored here could never be named by GetTags or removed.
    static func asciiString(_ bytes: UnsafeRawBufferPointer) -> String? {
        HotFrames.isPlainASCII(bytes) ? String(decoding: bytes, as: UTF8.self) : nil
    }
}
