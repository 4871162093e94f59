import CProtobufC

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads protobuf-c's unpacked C structs into Swift values; the generated `init(lifting:)`
/// functions call these. Strings were checked by `WireValidator` before unpacking.
enum WireLift {
    /// A NUL-terminated string field.
    @inline(__always)
    static func string(_ p: UnsafeMutablePointer<CChar>?) -> String {
        guard let p else { return "" }
        let count = strlen(p)
        guard count > 0 else { return "" }
        return UnsafeRawPointer(p).withMemoryRebound(to: UInt8.self, capacity: count) {
            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
        }
    }

    /// A `bytes` field.
    @inline(__always)
    static func bytes(_ value: ProtobufCBinaryData) -> [UInt8] {
        guard value.len > 0, let data = value.data else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: value.len))
    }

    /// A singular message field; nil when absent.
    @inline(__always)
    static func message<M: CStructBacked>(_ p: UnsafeMutablePointer<M.CStruct>?) -> M? {
        guard let p else { return nil }
        return M(lifting: p)
    }

    /// A repeated message field.
    static func messages<M: CStructBacked>(_ count: Int, _ p: UnsafeMutablePointer<UnsafeMutablePointer<M.CStruct>?>?) -> [M] {
        guard count > 0, let p else { return [] }
        var out: [M] = []
        out.reserveCapacity(count)
        for i in 0..<count {
            if let element = p[i] { out.append(M(lifting: element)) }
        }
        return out
    }

    /// A repeated string field.
    static func strings(_ count: Int, _ p: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> [String] {
        mapped(count, p) { string($0) }
    }

    /// A repeated scalar field whose Swift and C types are the same.
    static func scalars<T>(_ count: Int, _ p: UnsafeMutablePointer<T>?) -> [T] {
        guard count > 0, let p else { return [] }
        return Array(UnsafeBufferPointer(start: p, count: count))
    }

    /// A repeated field whose elements are converted one by one.
    @inline(__always)
    static func mapped<T, U>(_ count: Int, _ p: UnsafeMutablePointer<T>?, _ transform: (T) -> U) -> [U] {
        guard count > 0, let p else { return [] }
        return Array(unsafeUninitializedCapacity: count) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            for i in 0..<count { (base + i).initialize(to: transform(p[i])) }
            initialized = count
        }
    }
}
