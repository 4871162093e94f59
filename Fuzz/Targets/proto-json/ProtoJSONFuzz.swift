import CProtobufC
import FuzzSupport
import PushwireJSONBridge
import PushwireWire

/// libFuzzer target: the CLI's JSON ↔ protobuf bridge (`ProtoJSON`) for every request and
/// response message of the contract.
///
/// Input: one byte choosing the method (`MethodCatalog.all`), request or response, and the
/// direction; then JSON text to encode, or protobuf bytes to decode. Oracles:
/// - what the JSON parser accepts is valid JSON (`JSONGrammar`);
/// - what the encoder produces, protobuf-c accepts;
/// - once a message has been through the bridge, it is stable: its JSON encodes and decodes
///   back to the same JSON value;
/// - the JSON text the bridge writes (compact and indented) is valid (`JSONGrammar`) and parses
///   back to the same value.
///
/// The entry point (Fuzz/Driver/FuzzMain.swift) runs libFuzzer's driver on `fuzzOneInput` below.
/// Returns 0 for every input (an oracle that fails aborts instead).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let choice = input.byte()
    let method = MethodCatalog.all[Int(choice >> 2) % MethodCatalog.all.count]
    let descriptor = choice & 1 == 0 ? method.requestDescriptor : method.responseDescriptor
    let name = String(cString: descriptor.pointee.name)
    let bytes: [UInt8]
    if choice & 2 == 0 {
        let text = String(decoding: input.rest, as: UTF8.self)
        if (try? ProtoJSON.parse(text)) != nil {
            require(JSONGrammar.isValid(text.utf8), "the JSON parser accepts the invalid JSON \(hex(text.utf8))")
        }
        guard let encoded = try? ProtoJSON.encode(text, as: descriptor) else { return 0 }
        require(encoded.withUnsafeBytes { protobufCRepack(descriptor, $0) } != nil,
                "\(name): JSON \(hex(text.utf8)) encodes as \(hex(encoded)), which protobuf-c refuses")
        bytes = encoded
    } else {
        bytes = Array(input.rest)
    }
    guard let value = try? ProtoJSON.decode(bytes, as: descriptor, emitDefaults: choice & 0x80 != 0) else { return 0 }
    for pretty in [false, true] {
        let text = ProtoJSON.serialize(value, pretty: pretty)
        require(JSONGrammar.isValid(text.utf8), "\(name): \(hex(bytes)) is written as invalid JSON \(text)")
        let parsed = Result { () throws(ProtoJSONError) in try ProtoJSON.parse(text) }
        require(parsed == .success(value), "\(name): the JSON written for \(hex(bytes)) parses as \(parsed)")
    }
    let reencoded = Result { () throws(ProtoJSONError) in try ProtoJSON.encode(value, as: descriptor) }
    guard case .success(let again) = reencoded else {
        require(false, "\(name): the JSON of \(hex(bytes)), \(ProtoJSON.serialize(value, pretty: false)), does not encode: \(reencoded)")
        return 0
    }
    let redecoded = Result { () throws(ProtoJSONError) in try ProtoJSON.decode(again, as: descriptor, emitDefaults: choice & 0x80 != 0) }
    require(redecoded == .success(value),
            "\(name): \(ProtoJSON.serialize(value, pretty: false)) encodes as \(hex(again)), which decodes as \(redecoded)")
    return 0
}
