import PushwireWire

/// Reads a `SyncCategoriesRequest` in place for the SyncCategories fast path, as strictly as
/// `RegisterDeviceScanner`: `application` (plain ASCII without NUL) and `known_version`, with
/// their proto3 wire types; a repeated field is read last-wins, as protobuf-c does. Anything else
/// is nil, and the call takes the regular path.
enum SyncCategoriesScanner {
    static func scan(_ message: UnsafeRawBufferPointer) -> SyncCategoriesRequest? {
        var reader = HotFrames.Reader(message)
        var request = SyncCategoriesRequest()
        while !reader.atEnd {
            guard let (field, wireType) = reader.tag() else { return nil }
            switch (field, wireType) {
            case (1, 2):  // application
                guard let text = reader.submessage(), let string = DevicesService.asciiString(text.bytes) else { return nil }
                request.application = string
            case (2, 0):  // known_version
                guard let value = reader.varint() else { return nil }
                request.knownVersion = value
            default:
                return nil
            }
        }
        return request
    }
}
