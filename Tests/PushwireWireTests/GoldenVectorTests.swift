import Foundation
import XCTest
@testable import PushwireWire

/// Tests/Vectors, written by Python's protobuf (Scripts/make-vectors), against the Swift wrappers
/// and protobuf-c: every vector decodes to what the manifest says and re-encodes byte for byte, and
/// the frame builders produce the same bytes.
final class GoldenVectorTests: XCTestCase {
    /// …/Tests/Vectors, from this file's path (…/Tests/PushwireWireTests/GoldenVectorTests.swift).
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Vectors")

    struct Vector {
        var file: String
        var kind: String
        var bytes: [UInt8]
        var entry: [String: Any]
        var frameJSON: [String: Any] { entry["frame"] as? [String: Any] ?? [:] }
        var innerType: String? { (entry["inner"] as? [String: Any])?["type"] as? String }
        var innerBytes: [UInt8]? { ((entry["inner"] as? [String: Any])?["hex"] as? String).flatMap(GoldenVectorTests.bytes(hex:)) }
    }

    static func bytes(hex: String) -> [UInt8]? {
        var out: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) ?? hex.endIndex
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            out.append(byte)
            index = next
        }
        return out
    }

    static func file(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: folder.appendingPathComponent(name)))
    }

    func vectors() throws -> [Vector] {
        let data = try Data(contentsOf: Self.folder.appendingPathComponent("manifest.json"))
        let manifest = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let entries = try XCTUnwrap(manifest["vectors"] as? [[String: Any]])
        return try entries.map { entry in
            let file = try XCTUnwrap(entry["file"] as? String)
            return Vector(file: file, kind: try XCTUnwrap(entry["kind"] as? String), bytes: try Self.file(file), entry: entry)
        }
    }

    /// The frame vectors, decoded.
    func decodedFrames() throws -> [(Vector, Frame)] {
        try vectors().filter { $0.kind != "preface" }.map { vector in
            var decoder = FrameDecoder(expectsPreface: false)
            decoder.append(vector.bytes)
            let frame = try XCTUnwrap(try decoder.nextFrame(), vector.file)
            XCTAssertNil(try decoder.nextFrame(), "\(vector.file) holds one frame")
            XCTAssertEqual(decoder.bufferedByteCount, 0, vector.file)
            return (vector, frame)
        }
    }

    func testManifestDescribesEveryFile() throws {
        let listed = try vectors()
        let present = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { $0 != "manifest.json" }
        XCTAssertEqual(Set(listed.map(\.file)), Set(present))
        XCTAssertEqual(listed.count, Set(listed.map(\.file)).count)
        let required = [
            "preface.bin", "settings.bin", "register_device_request.bin", "register_device_response.bin",
            "error_response.bin", "cancel.bin", "ping.bin", "pong.bin", "go_away.bin",
        ]
        XCTAssertTrue(Set(required).isSubset(of: Set(present)))
        for vector in listed {
            XCTAssertEqual(vector.entry["size"] as? Int, vector.bytes.count, vector.file)
            XCTAssertEqual((vector.entry["hex"] as? String).flatMap(Self.bytes(hex:)), vector.bytes, vector.file)
            XCTAssertFalse((vector.entry["description"] as? String ?? "").isEmpty, vector.file)
        }
    }

    func testPreface() throws {
        XCTAssertEqual(try Self.file("preface.bin"), WireProtocol.preface)
    }

    func testEveryFrameReencodesByteForByte() throws {
        let frames = try decodedFrames()
        XCTAssertGreaterThanOrEqual(frames.count, 8)
        for (vector, frame) in frames {
            var encoded: [UInt8] = []
            frame.encode(appendingTo: &encoded, lengthPrefixed: true)
            XCTAssertEqual(encoded, vector.bytes, "\(vector.file) re-encodes differently")
            XCTAssertEqual(Array(encoded.dropFirst(WireProtocol.lengthPrefixSize)), frame.encode(), vector.file)
        }
    }

    func testCallIDAndKindMatchTheManifest() throws {
        for (vector, frame) in try decodedFrames() {
            XCTAssertEqual(vector.frameJSON["call_id"] as? Int, Int(frame.callID), vector.file)
            XCTAssertNotNil(vector.frameJSON[vector.kind], vector.file)
            let kind: String? = switch frame.kind {
            case .request?: "request"
            case .response?: "response"
            case .cancel?: "cancel"
            case .ping?: "ping"
            case .pong?: "pong"
            case .goAway?: "go_away"
            case .settings?: "settings"
            case nil: nil
            }
            XCTAssertEqual(kind, vector.kind, vector.file)
        }
    }

    /// The method messages inside requests and responses decode as the type the manifest names
    /// (found through `Methods.all`) and re-encode byte for byte.
    func testInnerMessagesReencodeByteForByte() throws {
        var types: [String: any WireMessage.Type] = [:]
        for method in Methods.all {
            types[method.requestType.protoName] = method.requestType
            types[method.responseType.protoName] = method.responseType
        }
        func roundTrip<M: WireMessage>(_ type: M.Type, _ bytes: [UInt8]) throws -> [UInt8] {
            try M(decoding: bytes).encode()
        }
        var checked = 0
        for (vector, frame) in try decodedFrames() {
            guard let typeName = vector.innerType else { continue }
            let carried: [UInt8]? = switch frame.kind {
            case .request(let request)?: request.message
            case .response(let response)?: response.message
            default: nil
            }
            XCTAssertEqual(carried, vector.innerBytes, vector.file)
            let type = try XCTUnwrap(types[typeName], "no method uses \(typeName)")
            XCTAssertEqual(try roundTrip(type, carried ?? []), carried, "\(vector.file): \(typeName) re-encodes differently")
            checked += 1
        }
        XCTAssertGreaterThanOrEqual(checked, 4)
    }

    func testRegisterDeviceVectorsDecodeToTheirValues() throws {
        let frames = Dictionary(uniqueKeysWithValues: try decodedFrames().map { ($0.0.file, $0.1) })

        guard case .request(let request)? = frames["register_device_request.bin"]?.kind else {
            return XCTFail("register_device_request.bin is not a request")
        }
        XCTAssertEqual(frames["register_device_request.bin"]?.callID, 1)
        XCTAssertEqual(request.method, Methods.Devices.registerDevice.path)
        XCTAssertEqual(request.timeoutMS, 5000)
        XCTAssertEqual(request.metadata.map(\.key), ["user-agent"])
        let register = try RegisterDeviceRequest(decoding: request.message)
        XCTAssertEqual(register.application, "A1B2C-3D4E5")
        XCTAssertEqual(register.hwid, "8f2a1c0e-5b7d-4e36-9a41-2c6f0d9b7e13")
        XCTAssertEqual(register.pushToken.count, 64)
        XCTAssertEqual(register.deviceType, .ios)
        XCTAssertEqual(register.timezone, -18000)
        XCTAssertEqual(register.userID, "user-42")
        XCTAssertEqual(register.appVersion, "2.4.1")
        XCTAssertEqual(register.tags.map(\.name), ["plan", "launches", "beta", "interests", "signup"])
        XCTAssertEqual(register.knownCategoriesVersion, 1)

        guard case .response(let response)? = frames["register_device_response.bin"]?.kind else {
            return XCTFail("register_device_response.bin is not a response")
        }
        XCTAssertEqual(response.status?.statusCode, .ok)
        let registered = try RegisterDeviceResponse(decoding: response.message)
        XCTAssertEqual(registered.categoriesVersion, 2)
        XCTAssertEqual(registered.iosCategories.map(\.categoryID), [1, 65])
        XCTAssertEqual(registered.iosCategories.map(\.name), ["YesNo", "RateLater"])
        let yes = try XCTUnwrap(registered.iosCategories.first?.buttons.first)
        XCTAssertEqual(yes.label, "Yes")
        XCTAssertTrue(yes.startApplication && yes.authenticationRequired)
        XCTAssertEqual(yes.localizedLabels.map(\.text), ["Oui", "是"])
        let rate = try XCTUnwrap(registered.iosCategories.last?.buttons.first)
        XCTAssertEqual(rate.label, "Rate")
        XCTAssertTrue(rate.destructive && rate.startApplication)
        XCTAssertEqual(registered.iosCategories.last?.buttons.last?.label, "Later")
        XCTAssertEqual(registered.iosCategories.last?.buttons.last?.startApplication, false)

        guard case .response(let error)? = frames["error_response.bin"]?.kind else {
            return XCTFail("error_response.bin is not a response")
        }
        XCTAssertEqual(error.status?.statusCode, .invalidArgument)
        XCTAssertEqual(error.status?.message, "hwid must not be empty")
        XCTAssertEqual(error.message, [])
    }

    /// The builders the server and clients use produce exactly the vectors' bytes.
    func testBuildersProduceTheVectors() throws {
        func framed(_ frame: Frame) -> [UInt8] {
            var out: [UInt8] = []
            frame.encode(appendingTo: &out, lengthPrefixed: true)
            return out
        }
        XCTAssertEqual(framed(.ping(0x0123_4567_89AB_CDEF)), try Self.file("ping.bin"))
        XCTAssertEqual(framed(.pong(0x0123_4567_89AB_CDEF)), try Self.file("pong.bin"))
        XCTAssertEqual(framed(.cancel(callID: 3)), try Self.file("cancel.bin"))
        XCTAssertEqual(framed(.response(callID: 2, status: .invalidArgument, message: "hwid must not be empty")),
                       try Self.file("error_response.bin"))
        XCTAssertEqual(framed(.goAway(lastCallID: 7, status: .ok, message: "")), try Self.file("go_away.bin"))
        let tooLarge = FramingError.frameTooLarge(length: 5_000_000, limit: WireProtocol.defaultMaxFrameSize)
        XCTAssertEqual(framed(.goAway(lastCallID: 7, status: tooLarge.statusCode, message: tooLarge.description)),
                       try Self.file("go_away_frame_too_large.bin"))
        XCTAssertEqual(framed(.settings(.server(name: "pushwired", version: "0.1.0"))),
                       try Self.file("settings.bin"))

        var check = HealthCheckRequest()
        check.service = "pushwire.v1.Devices"
        XCTAssertEqual(framed(.request(callID: 5, method: Methods.Health.check.path, timeoutMS: 1000, message: check.encode())),
                       try Self.file("health_check_request.bin"))
        var healthy = HealthCheckResponse()
        healthy.status = .serving
        XCTAssertEqual(framed(.response(callID: 5, status: .ok, body: healthy.encode())),
                       try Self.file("health_check_response.bin"))
    }

    /// The worked example of docs/PROTOCOL.md shows the vectors' bytes, not a hand-typed copy.
    func testProtocolDocumentShowsTheExampleBytes() throws {
        let doc = try String(
            contentsOf: Self.folder.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/PROTOCOL.md"),
            encoding: .utf8)
        for name in ["health_check_request.bin", "health_check_response.bin", "preface.bin"] {
            let hex = try Self.file(name).map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
                .joined(separator: " ")
            XCTAssertTrue(doc.contains(hex), "docs/PROTOCOL.md does not show the bytes of \(name): \(hex)")
        }
    }

    /// Every vector after the preface, as one stream delivered in awkward pieces, decodes to the
    /// same frames.
    func testAllVectorsAsOneStream() throws {
        let frames = try decodedFrames()
        let stream = WireProtocol.preface + frames.flatMap(\.0.bytes)
        for chunk in [1, 3, 7, 64, stream.count] {
            var decoder = FrameDecoder(expectsPreface: true)
            var got: [Frame] = []
            var offset = 0
            while offset < stream.count {
                let end = min(stream.count, offset + chunk)
                decoder.append(Array(stream[offset..<end]))
                offset = end
                while let frame = try decoder.nextFrame() { got.append(frame) }
            }
            XCTAssertEqual(got, frames.map(\.1), "chunks of \(chunk)")
        }
    }
}
