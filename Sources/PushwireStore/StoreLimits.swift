/// The limits the store keeps on what accumulates across calls — tags per device, categories per
/// application — checked inside the write that would pass them (which then fails and changes
/// nothing), so that concurrent writes cannot pass them together. Defined once, here; the
/// service's `Limits` names them for the protocol and docs/PROTOCOL.md states them.
///
/// Why these values: every answer that lists them must fit in one frame (4 MiB by default). A
/// device's GetTags/SetTags answer stays under about 90 KiB (64 KiB of text plus protobuf's few
/// bytes per tag and list item); a category of 4 buttons, each with a label in every one of the
/// 184 languages, encodes to about 55 KB, so 32 of them — the answer to every RegisterDevice and
/// SyncCategories of the application — stay under 1.8 MB.
public enum StoreLimits {
    /// Tags one device may hold.
    public static let maxTagsPerDevice = 128
    /// The bytes of one device's tags together, as `tagBytes` counts them.
    public static let maxTagBytesPerDevice = 65_536
    /// Categories one application may hold.
    public static let maxCategoriesPerApplication = 32

    /// What a tag counts for towards `maxTagBytesPerDevice`: its name's UTF-8 bytes plus its
    /// value's — a string's bytes, each list item's bytes, 8 for an integer, a date or a bool.
    public static func tagBytes(_ tag: TagRecord) -> Int {
        let value: Int
        switch tag.value {
        case .string(let text): value = text.utf8.count
        case .list(let items): value = items.reduce(0) { $0 + $1.utf8.count }
        case .int, .date, .bool: value = 8
        }
        return tag.name.utf8.count + value
    }

    /// Throws `.limitReached` when a write takes a device's tags from `before` to `after` past a
    /// limit. A write that does not add to a count or size already past it (removing tags of a
    /// device stored before the limits existed) is let through.
    public static func checkTags(after: [TagRecord], before: [TagRecord], hwid: String) throws(StoreError) {
        if after.count > maxTagsPerDevice, after.count > before.count {
            throw .limitReached("device \(hwid) would hold \(after.count) tags; at most \(maxTagsPerDevice) per device")
        }
        let bytes = after.reduce(0) { $0 + tagBytes($1) }
        if bytes > maxTagBytesPerDevice, bytes > before.reduce(0, { $0 + tagBytes($1) }) {
            throw .limitReached("device \(hwid)'s tags would take \(bytes) bytes; at most \(maxTagBytesPerDevice) per device")
        }
    }
}
