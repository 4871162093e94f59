import Foundation
import XCTest
@testable import PushwireWire

/// The 17 status codes: numbers, names, unknown wire values, and agreement with the documents a
/// client author reads (docs/PROTOCOL.md and rpc.proto).
final class StatusCodeTests: XCTestCase {
    static let expected: [(UInt32, String)] = [
        (0, "OK"), (1, "CANCELLED"), (2, "UNKNOWN"), (3, "INVALID_ARGUMENT"), (4, "DEADLINE_EXCEEDED"),
        (5, "NOT_FOUND"), (6, "ALREADY_EXISTS"), (7, "PERMISSION_DENIED"), (8, "RESOURCE_EXHAUSTED"),
        (9, "FAILED_PRECONDITION"), (10, "ABORTED"), (11, "OUT_OF_RANGE"), (12, "UNIMPLEMENTED"),
        (13, "INTERNAL"), (14, "UNAVAILABLE"), (15, "DATA_LOSS"), (16, "UNAUTHENTICATED"),
    ]

    /// The repository root, from this file's path (…/Tests/PushwireWireTests/StatusCodeTests.swift).
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testAllSeventeenCodesInOrder() {
        XCTAssertEqual(StatusCode.allCases.count, 17)
        XCTAssertEqual(StatusCode.allCases.map(\.rawValue), Array(0...16))
        XCTAssertEqual(StatusCode.allCases.map(\.name), Self.expected.map(\.1))
        XCTAssertEqual(Set(StatusCode.allCases).count, 17)
    }

    func testNamedConstantsHaveTheirGRPCNumbers() {
        let constants: [StatusCode] = [
            .ok, .cancelled, .unknown, .invalidArgument, .deadlineExceeded, .notFound, .alreadyExists,
            .permissionDenied, .resourceExhausted, .failedPrecondition, .aborted, .outOfRange,
            .unimplemented, .internalError, .unavailable, .dataLoss, .unauthenticated,
        ]
        for (constant, (number, name)) in zip(constants, Self.expected) {
            XCTAssertEqual(constant.rawValue, number)
            XCTAssertEqual(constant.name, name)
            XCTAssertEqual(constant.description, "\(name) (\(number))")
        }
    }

    func testRoundTripsThroughNumberAndName() {
        for (number, name) in Self.expected {
            XCTAssertEqual(StatusCode(rawValue: number)?.name, name)
            XCTAssertEqual(StatusCode(wireValue: number).rawValue, number)
            XCTAssertEqual(StatusCode(name: name)?.rawValue, number)
        }
        XCTAssertNil(StatusCode(name: "invalid_argument"), "names are the exact upper-case gRPC names")
        XCTAssertNil(StatusCode(name: ""))
    }

    func testUnknownWireValuesReadAsUnknown() {
        for value: UInt32 in [17, 18, 100, 1 << 31, .max] {
            XCTAssertNil(StatusCode(rawValue: value))
            XCTAssertEqual(StatusCode(wireValue: value), .unknown)
        }
    }

    func testRPCErrorNeverCarriesOK() {
        XCTAssertEqual(RPCError(.ok, "odd").code, .unknown)
        XCTAssertEqual(RPCError(.notFound, "no such device").description, "NOT_FOUND: no such device")
        XCTAssertEqual(RPCError(.unavailable, "").description, "UNAVAILABLE")
    }

    func testProtocolDocumentListsEveryCode() throws {
        let doc = try String(contentsOf: Self.repositoryRoot.appendingPathComponent("docs/PROTOCOL.md"), encoding: .utf8)
        for (number, name) in Self.expected {
            XCTAssertTrue(doc.contains("| \(number) | `\(name)` |"), "docs/PROTOCOL.md lacks the row of \(name)")
        }
    }

    func testRPCProtoCommentListsEveryCode() throws {
        let proto = try String(
            contentsOf: Self.repositoryRoot.appendingPathComponent("Protos/pushwire/v1/rpc.proto"), encoding: .utf8)
        let comment = proto.split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
            .joined(separator: " ")
        for (number, name) in Self.expected {
            XCTAssertTrue(comment.contains("\(number) \(name)"), "rpc.proto's Status comment lacks \(number) \(name)")
        }
    }
}
