import Foundation

/// Hwids (and other names the stores keep as text) compared as both engines compare them: by
/// their UTF-8 bytes, memcmp order, a shorter prefix first (SQLite's `BINARY`, PostgreSQL's
/// `COLLATE "C"`). Swift's `==` and `<` on `String` are Unicode-canonical: a precomposed and a
/// decomposed "é" are one string to them but two devices to a store. And iterating two
/// `UTF8View`s (`lexicographicallyPrecedes`, `elementsEqual`) cost a few times what memcmp does:
/// 8 % of a server's CPU under a stream of CreateMessage when the first targets were sorted that
/// way (docs/journal/2026-12-07-first-targets-by-device.md).
public enum ByteOrder {
    /// How `a` and `b` compare by their bytes: negative, 0 or positive.
    @inlinable
    public static func compare(_ a: String, _ b: String) -> Int {
        // Native strings (all the wire decoder and the stores make) lend their bytes as they are:
        // no copy of either string, no retain.
        let lent = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in compare(UnsafeRawBufferPointer(x), UnsafeRawBufferPointer(y)) }
        }
        if let order = lent ?? nil { return order }
        var a = a, b = b  // bridged or lazy: made native and contiguous
        return a.withUTF8 { x in b.withUTF8 { y in compare(UnsafeRawBufferPointer(x), UnsafeRawBufferPointer(y)) } }
    }

    @inlinable
    static func compare(_ x: UnsafeRawBufferPointer, _ y: UnsafeRawBufferPointer) -> Int {
        let common = min(x.count, y.count)
        if common > 0, let p = x.baseAddress, let q = y.baseAddress {
            let order = memcmp(p, q, common)
            if order != 0 { return Int(order) }
        }
        return x.count - y.count
    }

    /// Whether `a` comes before `b` by their bytes.
    @inlinable
    public static func precedes(_ a: String, _ b: String) -> Bool { compare(a, b) < 0 }

    /// Whether `a` and `b` have the same bytes.
    @inlinable
    public static func same(_ a: String, _ b: String) -> Bool { a.utf8.count == b.utf8.count && compare(a, b) == 0 }

    /// `strings` sorted by their bytes, byte-equal duplicates removed.
    ///
    /// Compared first by their first eight bytes as a big-endian word (zero-padded), which
    /// orders two strings as their bytes do whenever the words differ, and in full only when
    /// the words are equal: hwids mostly differ early, and a comparison of two strings costs
    /// a hundred instructions to a word's few (sorting ten unsorted hwids was 4 k instructions
    /// of a CreateMessage).
    public static func distinct(_ strings: [String]) -> [String] {
        if strings.count < 2 { return strings }
        // The words and the sort's positions are arrays of plain integers: sorting an array of
        // (word, string) pairs copied and destroyed each pair through the runtime's generic
        // tuple witnesses, three times per string.
        let words = strings.map(firstWord)
        func order(_ i: Int, _ j: Int) -> Int {
            words[i] != words[j] ? (words[i] < words[j] ? -1 : 1) : compare(strings[i], strings[j])
        }
        // Already in order and distinct (what the stores keep, what many clients send): nothing to build.
        var index = 1
        while index < strings.count, order(index - 1, index) < 0 { index += 1 }
        if index == strings.count { return strings }
        var positions = Array(strings.indices)
        positions.sort { order($0, $1) < 0 }
        var result: [String] = []
        result.reserveCapacity(positions.count)
        for rank in positions.indices where rank == 0 || order(positions[rank - 1], positions[rank]) != 0 {
            result.append(strings[positions[rank]])
        }
        return result
    }

    /// The first eight bytes of `string` as a big-endian word, zero-padded.
    static func firstWord(_ string: String) -> UInt64 {
        func word(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
            if bytes.count >= 8, let start = bytes.baseAddress {
                return UInt64(bigEndian: UnsafeRawPointer(start).loadUnaligned(as: UInt64.self))
            }
            var word: UInt64 = 0
            for offset in 0..<8 { word = word << 8 | UInt64(offset < bytes.count ? bytes[offset] : 0) }
            return word
        }
        if let lent = string.utf8.withContiguousStorageIfAvailable(word) { return lent }
        var string = string
        return string.withUTF8(word)
    }

    /// A string hashed and compared by its bytes as one block, for sets and dictionaries (a key
    /// holding an array of the bytes cost an allocation per lookup).
    public struct Key: Hashable {
        public var string: String

        @inlinable
        public init(_ string: String) { self.string = string }

        @inlinable
        public func hash(into hasher: inout Hasher) {
            if string.utf8.withContiguousStorageIfAvailable({ hasher.combine(bytes: UnsafeRawBufferPointer($0)) }) != nil { return }
            var string = string
            string.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }

        @inlinable
        public static func == (a: Key, b: Key) -> Bool { ByteOrder.same(a.string, b.string) }
    }
}
