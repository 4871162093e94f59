import Foundation
import XCTest
@testable import PushwireWire

/// docs/PROTOCOL.md agrees with the code where a machine can check it: the method table, the frame
/// kinds, the preface and the default limits.
final class ProtocolDocumentTests: XCTestCase {
    static func document() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent("docs/PROTOCOL.md"), encoding: .utf8)
    }

    static func shortName(_ protoName: String) -> String {
        String(protoName.split(separator: ".").last ?? Substring(protoName))
    }

    func testMethodTableListsEveryMethodWithItsTypes() throws {
        let doc = try Self.document()
        XCTAssertFalse(Methods.all.isEmpty)
        for method in Methods.all {
            let row = "| `\(method.path)` | `\(Self.shortName(method.requestType.protoName))` → `\(Self.shortName(method.responseType.protoName))` |"
            XCTAssertTrue(doc.contains(row), "docs/PROTOCOL.md lacks the row \(row)")
        }
        // And no row for a method that does not exist.
        let listed = doc.split(separator: "\n").filter { $0.hasPrefix("| `/pushwire.v1.") }
        XCTAssertEqual(listed.count, Methods.all.count)
    }

    func testFrameKindsTableNamesEveryKindWithItsFieldNumber() throws {
        let doc = try Self.document()
        let kinds = ["request": 2, "response": 3, "cancel": 4, "ping": 5, "pong": 6, "go_away": 7, "settings": 8]
        for (name, number) in kinds {
            XCTAssertTrue(doc.contains("| `\(name)` (\(number)) |"), "docs/PROTOCOL.md lacks the frame kind \(name)")
        }
    }

    func testPrefaceAndDefaultsMatchTheConstants() throws {
        let doc = try Self.document()
        XCTAssertEqual(String(decoding: WireProtocol.preface, as: UTF8.self), "PWIRE/1\n")
        XCTAssertTrue(doc.contains("`PWIRE/1\\n`"))
        XCTAssertTrue(doc.contains("| `max_frame_size` | the largest N (frame payload, bytes) the server accepts | \(WireProtocol.defaultMaxFrameSize) (4 MiB) |"))
        XCTAssertTrue(doc.contains("| `max_concurrent_calls` | calls one connection may have in flight | \(WireProtocol.defaultMaxConcurrentCalls) |"))
        XCTAssertTrue(doc.contains("| \(WireProtocol.defaultIdleTimeoutMS) (5 minutes) |"))
        XCTAssertTrue(doc.contains("| `protocol_version` | the protocol the server speaks | \(WireProtocol.version) |"))
        XCTAssertEqual(WireProtocol.defaultPrefaceTimeoutMS, 10_000)
        XCTAssertTrue(doc.contains("**Preface timeout.** 10 seconds"))
    }
}
