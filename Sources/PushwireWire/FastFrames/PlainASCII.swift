extension HotFrames {
    /// ASCII without NUL: text the decoder accepts in a string field whatever else it holds, so
    /// the rule every scanner reading strings in place applies (request paths and metadata, the
    /// fast paths' application codes and ids). Eight bytes at a time: a byte at a time it was 4 %
    /// of a SyncCategories call. A word holds a byte ≥ 0x80 when `w & 0x80…` is not zero, and a
    /// zero byte when `(w - 0x0101…) & ~w & 0x80…` is not (exact as to whether one exists).
    /// `PlainASCIITests` checks it against the byte-by-byte rule.
    @inlinable
    public static func isPlainASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var index = 0
        while index + 8 <= bytes.count {
            let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if (word | ((word &- ones) & ~word)) & highs != 0 { return false }
            index += 8
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte >= 0x80 || byte == 0 { return false }
            index += 1
        }
        return true
    }
}
