import CFuzzer
#if canImport(Glibc)
import Glibc
#endif

/// What the fuzz targets share: how an oracle failure is reported, and a cursor that takes the
/// input's first bytes as choices (which message type, where to cut) and leaves the rest as data.

/// Runs libFuzzer's driver with the process's arguments (its options, corpus directories or
/// inputs to replay) on `target`, then exits with the driver's status.
public func runFuzzer(_ target: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, target))
}

/// Stops the run when an oracle does not hold: prints `message` and aborts, which libFuzzer reports
/// as a crash and saves the input as `crash-<sha1>` (Scripts/fuzz keeps it under `.build/fuzz/`).
/// - Parameters:
///   - condition: what must hold for this input.
///   - message: what went wrong, built only on failure.
public func require(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    guard !condition() else { return }
    let report = "fuzz oracle failed at \(file):\(line): \(message())\n"
    _ = report.utf8.withContiguousStorageIfAvailable { write(2, $0.baseAddress, $0.count) }
    abort()
}

/// The hex of `bytes`, for oracle messages.
public func hex(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { byte in
        let digits = String(byte, radix: 16)
        return byte < 16 ? "0" + digits : digits
    }.joined()
}

/// Reads choices from the front of a fuzz input; past its end every choice is 0, so any input
/// (the empty one included) is usable.
public struct FuzzInput {
    /// The input's bytes.
    public let bytes: UnsafeRawBufferPointer
    /// The next byte a choice reads.
    public private(set) var offset = 0

    /// A cursor over libFuzzer's `(data, size)`.
    public init(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        bytes = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size)
    }

    /// The next byte, or 0 past the end.
    public mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// A choice in `0..<count` (count > 0) from the next byte.
    public mutating func choice(_ count: Int) -> Int {
        Int(byte()) % count
    }

    /// The bytes not read as choices.
    public var rest: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[min(offset, bytes.count)...])
    }
}
