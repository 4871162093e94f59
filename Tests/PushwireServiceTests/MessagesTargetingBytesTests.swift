import Foundation
import PushwireStore
import PushwireWire
import XCTest
@testable import PushwireService

/// What a notification names reaches exactly those devices, hwids compared byte for byte, and
/// the spec CreateMessage hands to the scheduler is the one it stored.
final class MessagesTargetingBytesTests: XCTestCase {
    /// "café" precomposed (U+00E9) and decomposed (e + U+0301) are canonically equal Swift
    /// strings but two hwids (two device rows): a message naming both reaches both, once each.
    func testCanonicallyEqualHWIDsAreTwoTargets() async throws {
        let h = try await MessagesHarness()
        let app = try await h.base.createApplication()
        let precomposed = "caf\u{E9}", decomposed = "cafe\u{301}"
        XCTAssertEqual(precomposed, decomposed)  // Swift's equality: why a Set<String> merged them
        try await h.register(app.code, precomposed)
        try await h.register(app.code, decomposed)
        // Named twice byte for byte: still one target.
        let created = try await h.create(note("hi", devices: [decomposed, precomposed, precomposed]), token: app.token)
        XCTAssertEqual(created.unknownDevices, [])
        await h.send()
        let tokens = try h.sinkLines().map(\.token).sorted()
        XCTAssertEqual(tokens, [MessagesHarness.token(for: precomposed), MessagesHarness.token(for: decomposed)].sorted())
        let details = try await h.details(try XCTUnwrap(created.messageCodes.first), token: app.token)
        XCTAssertEqual(details.targeted, 2)
        XCTAssertEqual(details.sent, 2)
    }

    /// Only the precomposed "café" is registered: the decomposed one, canonically equal but another
    /// hwid, is reported unknown and not targeted.
    func testACanonicallyEqualHWIDOfAnUnregisteredDeviceIsReportedUnknown() async throws {
        let h = try await MessagesHarness()
        let app = try await h.base.createApplication()
        let precomposed = "caf\u{E9}", decomposed = "cafe\u{301}"
        try await h.register(app.code, precomposed)
        let created = try await h.create(note("hi", devices: [precomposed, decomposed]), token: app.token)
        XCTAssertEqual(created.unknownDevices.map { Array($0.utf8) }, [Array(decomposed.utf8)])
        await h.send()
        XCTAssertEqual(try h.sinkLines().map(\.token), [MessagesHarness.token(for: precomposed)])
    }

    /// `ByteOrder.compare` and `distinct` against the bytes' own order (`[UInt8]`'s
    /// lexicographic order): every pair of 340 strings of 0–40 bytes that share prefixes of
    /// every length, with bytes above 0x7F (unsigned), small and large, native and bridged.
    func testByteOrderIsTheBytesOrder() {
        var state: UInt64 = 0xB17E
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        let alphabet = ["a", "b", "\u{7F}", "\u{80}", "é", "\u{FFFF}", "😀", "\u{0}"]
        var strings: [String] = [""]
        for _ in 0..<60 {
            // A shared stem, then variations, so that strings differ at every offset.
            let stem = (0..<next(24)).map { _ in alphabet[next(alphabet.count)] }.joined()
            for _ in 0..<5 { strings.append(stem + (0..<next(6)).map { _ in alphabet[next(alphabet.count)] }.joined()) }
        }
        strings += strings.prefix(40).map { NSString(string: $0) as String }  // bridged: copied, then compared
        // `distinct`, which orders by each string's first eight bytes before comparing in full,
        // against sorting and deduplicating the byte arrays: lists drawn from the strings
        // above (shared stems, NULs, strings shorter than eight bytes, repeats).
        for _ in 0..<2_000 {
            let list = (0..<next(14)).map { _ in strings[next(strings.count)] }
            let expected = Set(list.map { Array($0.utf8) }).sorted { $0.lexicographicallyPrecedes($1) }
            XCTAssertEqual(ByteOrder.distinct(list).map { Array($0.utf8) }, expected, "\(list.map { Array($0.utf8) })")
        }
        for a in strings {
            for b in strings {
                let expected = Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)) ? -1 : (Array(a.utf8) == Array(b.utf8) ? 0 : 1)
                let order = ByteOrder.compare(a, b)
                XCTAssertEqual(order.signum(), expected, "\(Array(a.utf8)) against \(Array(b.utf8))")
                if order.signum() != expected { return }
            }
        }
    }

    func testByteDistinctKeepsByteDifferentStringsInByteOrder() async {
        XCTAssertEqual(ByteOrder.distinct(["b", "a", "b", "e\u{301}", "\u{E9}", "\u{E9}"]),
                       ["a", "b", "e\u{301}", "\u{E9}"])
        // Already ordered and distinct (returned as is), and ordered with a duplicate.
        XCTAssertEqual(ByteOrder.distinct(["a", "ab", "b"]), ["a", "ab", "b"])
        XCTAssertEqual(ByteOrder.distinct(["a", "b", "b", "c"]), ["a", "b", "c"])
        XCTAssertEqual(ByteOrder.distinct(["\u{E9}", "e\u{301}"]), ["e\u{301}", "\u{E9}"])
    }

    /// A retried transaction id answers with the message first created; the running scheduler
    /// must send that message's content, not the retry's (the retry's spec is not handed over).
    func testRetryWithOtherContentSendsTheFirstContentOnce() async throws {
        var configuration = MessagesHarness.fastConfiguration
        configuration.batchSize = 5000
        let h = try await MessagesHarness(configuration: configuration)
        let app = try await h.base.createApplication()
        try await h.register(app.code, "a")
        var first = note("first", devices: ["a"])
        first.transactionID = "t-1"
        var retry = note("second", devices: ["a"])
        retry.transactionID = "t-1"
        let one = try await h.create(first, token: app.token)
        let two = try await h.create(retry, token: app.token)
        XCTAssertEqual(one.messageCodes, two.messageCodes)
        h.pipeline.start()
        defer { h.pipeline.requestStop() }
        let code = try XCTUnwrap(one.messageCodes.first)
        let deadline = Date().addingTimeInterval(10)
        while try await h.details(code, token: app.token).status != .done, Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let lines = try h.sinkLines()
        XCTAssertEqual(lines.map(\.body), ["first"])
    }
}
