import CProtobufC
import FuzzSupport
@testable import PushwireWire

/// libFuzzer target: `WireValidator` and the regular decode of every message type of the contract.
///
/// Input: one byte choosing the message type (`MessageTypes.all`), then its encoding. Oracles:
/// - what the validator accepts, the regular decode accepts, unless protobuf-c itself refuses the
///   bytes, when the decode reports them as malformed (its safety net);
/// - what the validator refuses, the decode refuses with the same error;
/// - the decoded value equals what protobuf-c itself read (its repack decodes to the same value)
///   and survives an encode/decode round trip;
/// - decoding never fails with anything but the documented kinds.
///
/// The entry point (Fuzz/Driver/FuzzMain.swift) runs libFuzzer's driver on `fuzzOneInput` below.
/// Returns 0 for every input (an oracle that fails aborts instead).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let type = MessageTypes.all[input.choice(MessageTypes.all.count)]
    check(type, input.rest)
    return 0
}

private func check<M: WireMessage>(_ type: M.Type, _ bytes: UnsafeRawBufferPointer) {
    let validated = Result { () throws(WireDecodingError) in try WireValidator.validate(bytes, M.descriptor) }
    let reference = protobufCRepack(M.descriptor, bytes)
    let decoded = regularDecode(M.self, bytes)
    switch validated {
    case .success:
        guard case .success(let value) = decoded else {
            // protobuf-c refuses a few encodings the validator passes (two occurrences of a message
            // field whose oneof is unset, which it cannot merge: docs/FUZZING.md); the decoder's
            // safety net then reports them as malformed, which is what they must give.
            require(reference == nil && (try? decoded.get()) == nil && decodedKind(decoded) == .malformed,
                    "\(M.protoName): validated \(hex(bytes)) but decoding gave \(decoded), protobuf-c \(reference.map(hex) ?? "refused")")
            return
        }
        if let reference {
            let read = reference.withUnsafeBytes { regularDecode(M.self, $0) }
            require(read == .success(value), "\(M.protoName): protobuf-c read \(hex(bytes)) as \(hex(reference)) = \(read), Pushwire as \(value)")
        }
        let encoded = value.encode()
        let again = encoded.withUnsafeBytes { regularDecode(M.self, $0) }
        require(again == .success(value), "\(M.protoName): \(value) encodes as \(hex(encoded)), which decodes as \(again)")
    case .failure(let error):
        require(decoded == .failure(error), "\(M.protoName): the validator said \(error), the decoder \(decoded)")
    }
}

private func decodedKind<M>(_ result: Result<M, WireDecodingError>) -> WireDecodingError.Kind? {
    if case .failure(let error) = result { return error.kind }
    return nil
}
