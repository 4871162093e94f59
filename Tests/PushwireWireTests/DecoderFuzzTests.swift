import CProtobufC
import XCTest
@testable import PushwireWire

/// Feeds many random and mutated encodings to the decoders: each must give a value or a
/// `WireDecodingError`, never a crash, and a value must re-encode to something that decodes to it.
/// protobuf-c alone is the reference: whatever we accept, it accepts too (we are stricter only on
/// UTF-8, NUL and depth), so its unpack failure is never our only line of defence.
final class DecoderFuzzTests: XCTestCase {
    private struct Tally {
        var decoded = 0
        var rejected: [WireDecodingError.Kind: Int] = [:]
        var protobufCOnly = 0
    }

    func testRandomAndMutatedInputs() {
        var rng = SplitMix64(seed: 0x5057_4952_4531)
        var tally = Tally()
        let seeds: [(any WireMessage.Type, [[UInt8]])] = [
            (Frame.self, seedsFor(Frame.self) + [
                Frame(callID: 9, kind: .request(Request(method: "/pushwire.v1.Health/Check", timeoutMS: 100,
                                                        metadata: [Metadata(key: "authorization", value: "Bearer x")],
                                                        message: HealthCheckRequest(service: "pushwire.v1.Devices").encode()))).encode(),
                Frame(callID: 9, kind: .response(Response(status: Status(code: 3, message: "bad ✗")))).encode(),
            ]),
            (RegisterDeviceRequest.self, seedsFor(RegisterDeviceRequest.self)),
            (RegisterDeviceResponse.self, seedsFor(RegisterDeviceResponse.self)),
            (CreateMessageRequest.self, seedsFor(CreateMessageRequest.self)),
            (SetTagsRequest.self, seedsFor(SetTagsRequest.self)),
            (Targeting.self, seedsFor(Targeting.self)),
        ]
        let perType = 50_000 / seeds.count + 1
        for (type, encodings) in seeds {
            for n in 0..<perType {
                let input: [UInt8]
                if n % 10 == 0 {
                    input = (0..<Int.random(in: 0...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                } else {
                    let base = encodings[Int.random(in: 0..<encodings.count, using: &rng)]
                    let other = encodings[Int.random(in: 0..<encodings.count, using: &rng)]
                    input = mutate(base, other, using: &rng)
                }
                check(type, input, &tally)
            }
        }
        XCTAssertGreaterThan(tally.decoded, 1_000)
        XCTAssertGreaterThan(tally.rejected[.malformed] ?? 0, 10_000)
        XCTAssertGreaterThan(tally.rejected[.invalidUTF8] ?? 0, 100)
        print("fuzz: \(tally.decoded) decoded, rejected \(tally.rejected), \(tally.protobufCOnly) accepted by protobuf-c alone")
    }

    private func seedsFor<M: WireMessage>(_ type: M.Type) -> [[UInt8]] {
        (0..<MaximalEncoding.oneofChoices(M.descriptor)).map { MaximalEncoding.bytes(M.descriptor, oneofChoice: $0, maxDepth: 3) }
    }

    private func check<M: WireMessage>(_ type: M.Type, _ input: [UInt8], _ tally: inout Tally) {
        let reference = rawProtobufC(M.descriptor, input)
        switch decodeResult(M.self, input) {
        case .success(let value):
            tally.decoded += 1
            XCTAssertNotNil(reference, "\(M.protoName): accepted what protobuf-c rejects: \(input)")
            let again = value.encode()
            XCTAssertEqual(try? M(decoding: again), value, "\(M.protoName): \(input)")
            // protobuf-c keeps unknown fields and we drop them, so compare what its re-encoding means.
            if let reference { XCTAssertEqual(try? M(decoding: reference), value, "\(M.protoName): differs from protobuf-c: \(input)") }
        case .failure(let error):
            tally.rejected[error.kind, default: 0] += 1
            if reference != nil {
                tally.protobufCOnly += 1
                // Stricter than protobuf-c: field number 0 and keys above 32 bits are invalid protobuf,
                // and protobuf-c reads a bool whatever its wire type.
                let stricter = error.message.hasSuffix("field number 0") || error.message.hasSuffix("field key above 2^32")
                    || error.message.hasSuffix("does not match the field's type")
                XCTAssertTrue(error.kind != .malformed || stricter, "\(M.protoName): protobuf-c accepts \(input): \(error)")
            }
        }
    }

    private func mutate(_ base: [UInt8], _ other: [UInt8], using rng: inout SplitMix64) -> [UInt8] {
        var bytes = base
        for _ in 0..<Int.random(in: 1...4, using: &rng) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<9, using: &rng) {
            case 0 where !bytes.isEmpty: bytes[position] ^= 1 << UInt8.random(in: 0...7, using: &rng)
            case 1 where !bytes.isEmpty: bytes[position] = [0x00, 0x7f, 0x80, 0xff, 0xc0, 0xed, 0x0a, 0x12][Int.random(in: 0..<8, using: &rng)]
            case 2: bytes.insert(UInt8.random(in: 0...255, using: &rng), at: position)
            case 3 where !bytes.isEmpty: bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...8, using: &rng)))
            case 4: bytes = Array(bytes[..<position])
            case 5 where !other.isEmpty:
                let start = Int.random(in: 0..<other.count, using: &rng)
                bytes.insert(contentsOf: other[start..<min(other.count, start + Int.random(in: 1...32, using: &rng))], at: position)
            case 6: bytes.insert(contentsOf: [0xff, 0xff, 0xff, 0xff, 0x0f], at: position)
            case 7: bytes += other
            default: bytes.insert(contentsOf: varint(UInt64.random(in: 0...UInt64(UInt32.max), using: &rng)), at: position)
            }
        }
        return bytes
    }
}
