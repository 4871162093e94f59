import PushwireStore
import PushwireWire

/// Checks device requests and turns them into store records; every failure is INVALID_ARGUMENT
/// with a message naming the field.
enum DeviceValidation {
    static func invalid(_ message: String) -> RPCError { RPCError(.invalidArgument, message) }

    static func checkApplicationAndHWID(application: String, hwid: String) throws(RPCError) {
        if application.isEmpty { throw invalid("application is empty: pass the application code, e.g. A1B2C-3D4E5") }
        if hwid.isEmpty { throw invalid("hwid is empty") }
        if hwid.utf8.count > Limits.maxHWIDBytes { throw invalid("hwid is longer than \(Limits.maxHWIDBytes) bytes") }
    }

    /// The device record of a registration (without its application id, filled in by the caller).
    static func device(_ request: RegisterDeviceRequest, applicationID: Int64) throws(RPCError) -> DeviceRecord {
        try checkApplicationAndHWID(application: request.application, hwid: request.hwid)
        guard let type = WireConversions.deviceTypeCode(request.deviceType) else {
            throw invalid("device_type \(WireConversions.describe(request.deviceType)) is not a known device type (1 iOS, 3 Android, 7 macOS, …)")
        }
        var token = request.pushToken
        if type == 1 {
            // One pass over the UTF-8 bytes (no `Character` walk, no copy): hex digits are ASCII,
            // so for a token that passes, bytes and characters are the same count.
            var hasUpperCase = false
            var isHex = true
            for byte in token.utf8 {
                if byte >= 65 && byte <= 70 { hasUpperCase = true } else if !isHexDigit(byte) { isHex = false; break }
            }
            if !isHex || token.utf8.count % 2 != 0 {
                if token.count > Limits.maxIOSPushTokenCharacters {
                    throw invalid("push_token is longer than \(Limits.maxIOSPushTokenCharacters) characters")
                }
                throw invalid("push_token of an iOS device must be hexadecimal with an even number of digits")
            }
            if token.utf8.count > Limits.maxIOSPushTokenCharacters {
                throw invalid("push_token is longer than \(Limits.maxIOSPushTokenCharacters) characters")
            }
            // iOS tokens are case-insensitive hex; store one spelling so that re-registering with
            // the other case is recognised as unchanged (most tokens arrive lower-case already).
            if hasUpperCase { token = token.lowercased() }
        } else if token.utf8.count > Limits.maxPushTokenBytes {
            throw invalid("push_token is longer than \(Limits.maxPushTokenBytes) bytes")
        }
        if !request.language.isEmpty && !isLanguageCode(request.language) {
            throw invalid("language \"\(RPCError.echo(request.language))\" is not an ISO-639-1 code (two lower-case letters, e.g. \"en\")")
        }
        if abs(Int64(request.timezone)) > Int64(Limits.maxTimezoneSeconds) {
            throw invalid("timezone \(request.timezone) is outside ±\(Limits.maxTimezoneSeconds) seconds")
        }
        if request.userID.utf8.count > Limits.maxUserIDBytes { throw invalid("user_id is longer than \(Limits.maxUserIDBytes) bytes") }
        if request.appVersion.utf8.count > Limits.maxAppVersionBytes {
            throw invalid("app_version is longer than \(Limits.maxAppVersionBytes) bytes")
        }
        return DeviceRecord(applicationID: applicationID, hwid: request.hwid,
                            pushToken: token, deviceType: type,
                            language: request.language, timezone: request.timezone, userID: request.userID,
                            appVersion: request.appVersion)
    }

    /// `LanguageCodes.all` as a table indexed by two lower-case ASCII letters, so that the
    /// registration of every launch checks its language without hashing a `String`.
    private static let languageTable: [Bool] = {
        var table = [Bool](repeating: false, count: 26 * 26)
        for code in LanguageCodes.all {
            let bytes = Array(code.utf8)
            if bytes.count == 2, let index = languageIndex(bytes[0], bytes[1]) { table[index] = true }
        }
        return table
    }()

    private static func languageIndex(_ first: UInt8, _ second: UInt8) -> Int? {
        guard (97...122).contains(first), (97...122).contains(second) else { return nil }
        return Int(first - 97) * 26 + Int(second - 97)
    }

    /// Whether `language` is an ISO-639-1 code: `LanguageCodes.isValid`, with a table lookup for
    /// the usual two lower-case letters.
    static func isLanguageCode(_ language: String) -> Bool {
        let utf8 = language.utf8
        if utf8.count == 2, let index = languageIndex(utf8[utf8.startIndex], utf8[utf8.index(after: utf8.startIndex)]) {
            return languageTable[index]
        }
        return LanguageCodes.isValid(language)
    }

    private static func isHexDigit(_ c: UInt8) -> Bool {
        (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102)
    }

    /// The tag changes that set `tags` (RegisterDevice's tags).
    static func tagSets(_ tags: [Tag]) throws(RPCError) -> [TagChange] {
        if tags.count > Limits.maxTagsPerRequest { throw invalid("too many tags: \(tags.count), at most \(Limits.maxTagsPerRequest)") }
        var changes: [TagChange] = []
        for tag in tags {
            try checkTagName(tag.name)
            guard let value = tag.value else { throw invalid("tag \(tag.name) has no value") }
            changes.append(.set(tag.name, try tagValue(value, name: tag.name)))
        }
        return changes
    }

    /// The tag changes of SetTags.
    static func tagChanges(_ updates: [TagUpdate]) throws(RPCError) -> [TagChange] {
        if updates.count > Limits.maxTagsPerRequest {
            throw invalid("too many tag updates: \(updates.count), at most \(Limits.maxTagsPerRequest)")
        }
        var changes: [TagChange] = []
        for update in updates {
            try checkTagName(update.name)
            switch update.operation {
            case .set(let value)?: changes.append(.set(update.name, try tagValue(value, name: update.name)))
            case .increment(let amount)?: changes.append(.increment(update.name, amount))
            case .remove?: changes.append(.remove(update.name))
            case nil: throw invalid("tag update \(update.name) has no operation (set, increment or remove)")
            }
        }
        return changes
    }

    static func checkTagName(_ name: String) throws(RPCError) {
        if name.isEmpty { throw invalid("a tag name is empty") }
        if name.utf8.count > Limits.maxTagNameBytes { throw invalid("tag name \(name.prefix(16))… is longer than \(Limits.maxTagNameBytes) bytes") }
    }

    static func tagValue(_ value: TagValue, name: String) throws(RPCError) -> TagValueRecord {
        switch value.kind {
        case .stringValue(let s)?:
            if s.utf8.count > Limits.maxTagStringBytes { throw invalid("tag \(name): string longer than \(Limits.maxTagStringBytes) bytes") }
            return .string(s)
        case .intValue(let i)?: return .int(i)
        case .boolValue(let b)?: return .bool(b)
        case .dateValue(let d)?: return .date(d)
        case .listValue(let list)?:
            if list.values.count > Limits.maxTagListItems { throw invalid("tag \(name): list longer than \(Limits.maxTagListItems) items") }
            for item in list.values where item.utf8.count > Limits.maxTagStringBytes {
                throw invalid("tag \(name): list item longer than \(Limits.maxTagStringBytes) bytes")
            }
            return .list(list.values)
        case nil: throw invalid("tag \(name) has no value")
        }
    }
}
