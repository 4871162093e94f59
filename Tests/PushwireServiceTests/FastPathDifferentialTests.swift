import Foundation
@testable import PushwireRuntime
import PushwireWire
import XCTest
@testable import PushwireService

/// Issue 16, item 4: every raw fast path either declines or does exactly what the regular path
/// does. Three levels, over generated and mutated bytes: the frame scanner against
/// `Frame(decoding:)`, the RegisterDevice and SyncCategories scanners against the decoder
/// (`FastPathDifferential`, `RawFrameDifferential`), and — over a real socket — each call's answer
/// through the fast path against the same call forced onto the regular path.
final class FastPathDifferentialTests: XCTestCase {
    func testRegisterDeviceScannerEqualsTheDecoder() {
        var random = SplitMix64(seed: 0x0016_0004)
        var scanned = 0, mismatches: [String] = []
        let count = 60_000
        for i in 0..<count {
            var message = ProtoFuzz.registerDevice(&random, application: "A1B2C-3D4E5")
            if i % 2 == 1 { ProtoFuzz.mutate(&message, &random) }
            message.withUnsafeBytes { bytes in
                if RegisterDeviceScanner.scan(bytes) != nil { scanned += 1 }
                if let mismatch = FastPathDifferential.registerDeviceMismatch(bytes), mismatches.count < 10 {
                    mismatches.append("\(message): \(mismatch)")
                }
            }
        }
        XCTAssertEqual(mismatches, [])
        // The generator must reach both sides: scanned messages, and ones the scanner declines.
        XCTAssertGreaterThan(scanned, count / 10)
        XCTAssertLessThan(scanned, count * 9 / 10)
    }

    func testSyncCategoriesScannerEqualsTheDecoder() {
        var random = SplitMix64(seed: 0x0016_0005)
        var scanned = 0, mismatches: [String] = []
        let count = 30_000
        for i in 0..<count {
            var message = ProtoFuzz.syncCategories(&random, application: "A1B2C-3D4E5")
            if i % 2 == 1 { ProtoFuzz.mutate(&message, &random) }
            message.withUnsafeBytes { bytes in
                if SyncCategoriesScanner.scan(bytes) != nil { scanned += 1 }
                if let mismatch = FastPathDifferential.syncCategoriesMismatch(bytes), mismatches.count < 10 {
                    mismatches.append("\(message): \(mismatch)")
                }
            }
        }
        XCTAssertEqual(mismatches, [])
        XCTAssertGreaterThan(scanned, count / 10)
    }

    func testFrameScannerEqualsTheDecoder() {
        var random = SplitMix64(seed: 0x0016_0006)
        var mismatches: [String] = []
        var accepted = 0, scannedWithMetadata = 0
        let count = 30_000
        for i in 0..<count {
            var frame = ProtoFuzz.requestFrame(&random, message: ProtoFuzz.registerDevice(&random, application: "A1B2C-3D4E5"))
            if i % 2 == 1 { ProtoFuzz.mutate(&frame, &random) }
            frame.withUnsafeBytes { bytes in
                if (try? Frame(decoding: bytes)) != nil { accepted += 1 }
                // Scanned calls that no fast path takes are lifted from the scan, metadata and all.
                if let scanned = ScannedRequest(frame: bytes), !scanned.request().metadata.isEmpty { scannedWithMetadata += 1 }
                if let mismatch = RawFrameDifferential.mismatch(bytes), mismatches.count < 10 {
                    mismatches.append("\(frame): \(mismatch)")
                }
            }
        }
        XCTAssertEqual(mismatches, [])
        XCTAssertGreaterThan(accepted, count / 10)
        XCTAssertLessThan(accepted, count * 9 / 10)
        XCTAssertGreaterThan(scannedWithMetadata, 100)
    }

    /// The cases, each refused by the regular decoder and therefore declined here.
    func testTheReportedDivergencesAreDeclined() async throws {
        func register(_ build: (inout ProtoFuzz.Writer) -> Void) -> [UInt8] {
            var writer = ProtoFuzz.Writer()
            writer.bytesField(1, Array("A1B2C-3D4E5".utf8))
            build(&writer)
            return writer.bytes
        }
        let cases: [(String, [UInt8])] = [
            ("hwid a\\0b", register { $0.bytesField(2, Array("a\0b".utf8)); $0.bytesField(3, Array("abcd".utf8)); $0.varintField(4, 1) }),
            ("push token t\\0u", register { $0.bytesField(2, Array("d1".utf8)); $0.bytesField(3, Array("t\0u".utf8)); $0.varintField(4, 3) }),
            ("10-byte length", register { $0.bytesField(2, Array("d1".utf8), lengthBytes: 10) }),
            ("6-byte key", register { $0.bytesField(2, Array("d1".utf8), keyBytes: 6) }),
        ]
        for (name, message) in cases {
            try message.withUnsafeBytes { bytes in
                XCTAssertNil(RegisterDeviceScanner.scan(bytes), name)
                XCTAssertThrowsError(try RegisterDeviceRequest(decoding: bytes), name)
            }
        }
        // NUL in a metadata value: the decoder rejects the frame (GoAway), so the scanner must not take it.
        var request = ProtoFuzz.Writer()
        request.bytesField(1, Array(Methods.Devices.registerDevice.path.utf8))
        var entry = ProtoFuzz.Writer()
        entry.bytesField(1, Array("x-trace".utf8))
        entry.bytesField(2, Array("a\0b".utf8))
        request.bytesField(3, entry.bytes)
        var frame = ProtoFuzz.Writer()
        frame.varintField(1, 7)
        frame.bytesField(2, request.bytes)
        try frame.bytes.withUnsafeBytes { bytes in
            XCTAssertThrowsError(try Frame(decoding: bytes))
            XCTAssertNil(RawFrameDifferential.mismatch(bytes))
        }
    }

    /// Over a real socket: each generated registration is sent twice, once as the fast path can
    /// take it and once with a non-ASCII metadata entry (which the frame scanner declines, so
    /// the regular handler answers); the two answers — status, message and response bytes — must
    /// be identical.
    func testFastAndRegularAnswersAreIdentical() async throws {
        let live = try await LiveServer()
        defer { live.stop() }
        let client = try live.connect()
        let app = try live.createApplication(client, name: "differential", callID: 1)
        var random = SplitMix64(seed: 0x0016_0007)
        let pairs = 1_500, batch = 250
        var fastEligible = 0, differences: [String] = []
        var callID: UInt32 = 100
        for start in stride(from: 0, to: pairs, by: batch) {
            var sent: [UInt32: (message: [UInt8], regular: Bool)] = [:]
            for _ in start..<min(start + batch, pairs) {
                let message = ProtoFuzz.registerDevice(&random, application: app.code, knownVersions: [0, 1, 2], validShare: 90)
                if let request = message.withUnsafeBytes({ RegisterDeviceScanner.scan($0) }),
                   (try? DeviceValidation.device(request, applicationID: 1)) != nil {
                    fastEligible += 1
                }
                // Alternate which door sees the device first (the first write, the second unchanged).
                let regularFirst = random.next() % 2 == 0
                for regular in regularFirst ? [true, false] : [false, true] {
                    callID += 1
                    try client.sendRawRequest(callID: callID, path: Methods.Devices.registerDevice.path, message: message,
                                              metadata: regular ? [("x-door", "régulier")] : [])
                    sent[callID] = (message, regular)
                }
            }
            var answers: [[UInt8]: [Bool: (UInt32, String, [UInt8])]] = [:]
            for _ in 0..<sent.count {
                let response = try client.nextResponse()
                guard let call = sent[response.callID] else { XCTFail("unexpected call id \(response.callID)"); continue }
                answers[call.message, default: [:]][call.regular] = (response.code, response.message, response.body)
            }
            for (message, byDoor) in answers {
                guard let fast = byDoor[false], let regular = byDoor[true] else { continue }
                if fast.0 != regular.0 || fast.1 != regular.1 || fast.2 != regular.2, differences.count < 10 {
                    differences.append("\(message): fast \(fast.0) \(fast.1) \(fast.2.count) bytes, regular \(regular.0) \(regular.1) \(regular.2.count) bytes")
                }
            }
        }
        XCTAssertEqual(differences, [])
        XCTAssertGreaterThan(fastEligible, pairs / 4, "the generator should produce many registrations the fast path answers")
    }
}

extension FastPathDifferentialTests {
    /// SyncCategories the same way: each generated request through the fast path and forced onto
    /// the regular one, with identical answers.
    func testFastAndRegularSyncAnswersAreIdentical() async throws {
        let live = try await LiveServer()
        defer { live.stop() }
        let client = try live.connect()
        let app = try live.createApplication(client, name: "sync differential", callID: 1)
        var random = SplitMix64(seed: 0x0016_0008)
        var sent: [UInt32: (message: [UInt8], regular: Bool)] = [:]
        var callID: UInt32 = 100
        var scanned = 0
        for _ in 0..<500 {
            var message = ProtoFuzz.syncCategories(&random, application: app.code)
            if random.next() % 4 == 0 { ProtoFuzz.mutate(&message, &random) }
            if message.withUnsafeBytes({ SyncCategoriesScanner.scan($0) }) != nil { scanned += 1 }
            for regular in [false, true] {
                callID += 1
                try client.sendRawRequest(callID: callID, path: Methods.Devices.syncCategories.path, message: message,
                                          metadata: regular ? [("x-door", "régulier")] : [])
                sent[callID] = (message, regular)
            }
        }
        var answers: [UInt32: (UInt32, String, [UInt8])] = [:]
        for _ in 0..<sent.count {
            let response = try client.nextResponse()
            answers[response.callID] = (response.code, response.message, response.body)
        }
        var differences: [String] = []
        for id in stride(from: UInt32(101), to: callID, by: 2) {
            guard let fast = answers[id], let regular = answers[id + 1] else { XCTFail("call \(id) unanswered"); continue }
            if fast.0 != regular.0 || fast.1 != regular.1 || fast.2 != regular.2, differences.count < 10 {
                differences.append("\(sent[id]?.message ?? []): fast \(fast.0) \(fast.1), regular \(regular.0) \(regular.1)")
            }
        }
        XCTAssertEqual(differences, [])
        XCTAssertGreaterThan(scanned, 100)
    }
}

/// Generates protobuf bytes for the differential tests by hand (protobuf-c cannot write a NUL
/// inside a string, nor padded varints): valid registrations and frames, and every kind of
/// near-miss — NUL and non-ASCII text, limits ±1, keys and lengths in up to 11 bytes, repeated,
/// unknown and mistyped fields — then byte-level mutations.
enum ProtoFuzz {
    struct Writer {
        var bytes: [UInt8] = []

        /// `value` as a varint of at least `minimumBytes` bytes (padded with continuation bytes,
        /// which protobuf accepts up to its length limits).
        mutating func varint(_ value: UInt64, minimumBytes: Int = 1) {
            var value = value
            var written = 0
            while true {
                let low = UInt8(value & 0x7F)
                value >>= 7
                written += 1
                if value == 0 && written >= minimumBytes {
                    bytes.append(low)
                    return
                }
                bytes.append(low | 0x80)
            }
        }

        mutating func key(_ field: UInt64, _ wireType: UInt64, keyBytes: Int = 1) {
            varint(field << 3 | wireType, minimumBytes: keyBytes)
        }

        mutating func bytesField(_ field: UInt64, _ data: [UInt8], keyBytes: Int = 1, lengthBytes: Int = 1) {
            key(field, 2, keyBytes: keyBytes)
            varint(UInt64(data.count), minimumBytes: lengthBytes)
            bytes += data
        }

        mutating func varintField(_ field: UInt64, _ value: UInt64, keyBytes: Int = 1, valueBytes: Int = 1) {
            key(field, 0, keyBytes: keyBytes)
            varint(value, minimumBytes: valueBytes)
        }
    }

    static func pick<T>(_ options: [T], _ random: inout SplitMix64) -> T { options[Int(random.next() % UInt64(options.count))] }

    static func chance(_ percent: UInt64, _ random: inout SplitMix64) -> Bool { random.next() % 100 < percent }

    /// Key and length sizes: mostly canonical, sometimes padded to the limits (5 bytes for keys and
    /// lengths, 10 for values) and past them.
    static func keyBytes(_ random: inout SplitMix64, _ oddity: UInt64 = 15) -> Int {
        chance(100 - oddity, &random) ? 1 : pick([2, 5, 6, 10], &random)
    }
    static func valueBytes(_ random: inout SplitMix64, _ oddity: UInt64 = 15) -> Int {
        chance(100 - oddity, &random) ? 1 : pick([2, 5, 6, 9, 10, 11], &random)
    }

    static func text(_ s: String) -> [UInt8] { Array(s.utf8) }

    /// The first two options of each pool are valid; `validShare` (percent) of the picks come
    /// from them, the rest from the whole pool.
    static func choose<T>(_ options: [T], _ validShare: UInt64, _ random: inout SplitMix64) -> T {
        chance(validShare, &random) ? options[Int(random.next() % 2)] : pick(options, &random)
    }

    static func registerDevice(_ random: inout SplitMix64, application: String, knownVersions: [UInt64] = [0, 1, 7, UInt64.max],
                               validShare: UInt64 = 50) -> [UInt8] {
        let hex = "0a1b2c3d4e5f6789"
        let strings: [UInt64: [[UInt8]]] = [
            1: [text(application), text(application), text(application), text("NOPE0-00000"), [], text(application + "\0"), text("é")],
            2: [text("d\(random.next() % 1000)"), text("d\(random.next() % 1000)"), text("a\0b"), [], Array(repeating: 0x68, count: 128),
                Array(repeating: 0x68, count: 129), text("hé"), [0x7F], [0xFF, 0xFE], [0xC0, 0x80]],
            3: [text(hex), text(hex.uppercased()), text("t\0u"), text("abc"), [], text(String(repeating: "ab", count: 100)),
                text(String(repeating: "ab", count: 101)), text("fcm:token/x"), Array(repeating: 0x74, count: 4097)],
            5: [text("en"), text("fr"), [], text("EN"), text("xx"), text("eng"), text("\0e"), text("e\u{301}")],
            7: [[], text("user-1"), Array(repeating: 0x75, count: 256), Array(repeating: 0x75, count: 257), text("u\0")],
            8: [[], text("2.4.1"), Array(repeating: 0x76, count: 64), Array(repeating: 0x76, count: 65), text("ü")],
        ]
        let varints: [UInt64: [UInt64]] = [
            4: [1, 3, 7, 0, 99, UInt64.max /* -1 */, 1 << 32 | 1],
            6: [0, 3600, UInt64(bitPattern: -3600), 50_400, 50_401, UInt64(bitPattern: -50_401), UInt64(bitPattern: Int64(Int32.min)), 1 << 33 | 5],
            10: knownVersions + knownVersions,
        ]
        var fields: [UInt64] = [1, 2, 3, 4]
        for optional: UInt64 in [5, 6, 7, 8, 10] where chance(60, &random) { fields.append(optional) }
        let oddity = 100 - validShare  // how often the shape itself goes wrong
        if chance(oddity / 10, &random) { fields.append(9) }  // tags
        if chance(oddity / 10, &random) { fields.append(pick([11, 15, 16, 100, 536_870_911], &random)) }  // unknown
        if chance(oddity / 10, &random) { fields.append(pick(fields, &random)) }  // repeated
        if chance(30, &random) { fields.shuffle(using: &random) }
        var writer = Writer()
        for field in fields {
            let mistyped = chance(oddity / 16, &random)
            if let options = strings[field] {
                if mistyped { writer.varintField(field, 1) } else {
                    writer.bytesField(field, choose(options, validShare, &random), keyBytes: keyBytes(&random, oddity / 5),
                                     lengthBytes: keyBytes(&random, oddity / 5))
                }
            } else if let options = varints[field] {
                if mistyped { writer.bytesField(field, text("1")) } else {
                    writer.varintField(field, choose(options, validShare, &random), keyBytes: keyBytes(&random, oddity / 5),
                                      valueBytes: valueBytes(&random, oddity / 5))
                }
            } else if field == 9 {
                writer.bytesField(9, makeTag("plan", .stringValue("gold")).encode())
            } else {
                writer.varintField(field, 1)
            }
        }
        return writer.bytes
    }

    static func syncCategories(_ random: inout SplitMix64, application: String) -> [UInt8] {
        var writer = Writer()
        var fields: [UInt64] = [1, 2].filter { _ in chance(80, &random) }
        if chance(10, &random) { fields.append(pick([1, 2], &random)) }
        if chance(5, &random) { fields.append(pick([3, 100], &random)) }
        if chance(30, &random) { fields.shuffle(using: &random) }
        for field in fields {
            switch field {
            case 1:
                writer.bytesField(1, pick([text(application), text(application), [], text("a\0"), text("ñ"), [0xFF]], &random),
                                  keyBytes: keyBytes(&random), lengthBytes: keyBytes(&random))
            case 2:
                writer.varintField(2, pick([0, 1, 2, UInt64.max], &random), keyBytes: keyBytes(&random), valueBytes: valueBytes(&random))
            default:
                writer.varintField(field, 1)
            }
        }
        return writer.bytes
    }

    /// `Frame { call_id, request { method, timeout_ms, metadata…, message } }`, with near-misses.
    static func requestFrame(_ random: inout SplitMix64, message: [UInt8]) -> [UInt8] {
        var request = Writer()
        let methods = [Methods.Devices.registerDevice.path, Methods.Devices.registerDevice.path, Methods.Devices.syncCategories.path,
                       "/pushwire.v1.Devices/RegisterDevice\0", "/x/é"]
        request.bytesField(1, text(pick(methods, &random)), keyBytes: keyBytes(&random), lengthBytes: keyBytes(&random))
        if chance(50, &random) {
            request.varintField(2, pick([0, 1000, UInt64(UInt32.max), 1 << 32], &random), keyBytes: keyBytes(&random), valueBytes: valueBytes(&random))
        }
        for _ in 0..<pick([0, 0, 1, 2], &random) {
            var entry = Writer()
            entry.bytesField(1, pick([text("authorization"), text("x-trace"), text("k\0"), text("clé"), []], &random),
                             keyBytes: keyBytes(&random), lengthBytes: keyBytes(&random))
            entry.bytesField(2, pick([text("Bearer abc"), text("v"), text("a\0b"), text("é"), [0xFF], []], &random),
                             keyBytes: keyBytes(&random), lengthBytes: keyBytes(&random))
            // A repeated key or value: the decoder keeps the last.
            if chance(15, &random) { entry.bytesField(pick([1, 2], &random), pick([text("x-other"), text("Bearer def"), []], &random)) }
            if chance(5, &random) { entry.varintField(3, 1) }
            request.bytesField(3, entry.bytes, keyBytes: keyBytes(&random), lengthBytes: keyBytes(&random))
        }
        if chance(90, &random) { request.bytesField(4, message, keyBytes: keyBytes(&random), lengthBytes: keyBytes(&random)) }
        if chance(3, &random) { request.varintField(pick([5, 99], &random), 1) }
        var frame = Writer()
        if chance(95, &random) {
            frame.varintField(1, pick([1, 7, 300, UInt64(UInt32.max), 1 << 32, 0], &random), keyBytes: keyBytes(&random), valueBytes: valueBytes(&random))
        }
        frame.bytesField(2, request.bytes, keyBytes: keyBytes(&random), lengthBytes: keyBytes(&random))
        if chance(3, &random) { frame.bytesField(pick([2, 4, 9], &random), []) }
        return frame.bytes
    }

    /// One to three byte-level changes: a flipped bit, a byte set to an edge value, an inserted or
    /// deleted byte, a truncation.
    static func mutate(_ bytes: inout [UInt8], _ random: inout SplitMix64) {
        for _ in 0..<(1 + Int(random.next() % 3)) {
            guard !bytes.isEmpty else { bytes.append(UInt8(truncatingIfNeeded: random.next())); continue }
            let at = Int(random.next() % UInt64(bytes.count))
            switch random.next() % 5 {
            case 0: bytes[at] ^= UInt8(1) << UInt8(random.next() % 8)
            case 1: bytes[at] = pick([0x00, 0x7F, 0x80, 0xFF, 0x0A, 0x12], &random)
            case 2: bytes.insert(pick([0x00, 0x80, 0xFF, 0x08, 0x12], &random), at: at)
            case 3: bytes.remove(at: at)
            default: bytes.removeLast(Int(random.next() % UInt64(min(bytes.count, 4))) + 1)
            }
        }
    }
}
