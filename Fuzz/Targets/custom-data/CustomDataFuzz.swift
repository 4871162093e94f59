import FuzzSupport
@testable import PushwireService

/// libFuzzer target: a notification's custom `data` (`CustomData.parse`) and the APNs payload it
/// is copied into (`PayloadRenderer.render`), against an independent JSON grammar (`JSONGrammar`).
///
/// Input: the `data` text (bytes that are not UTF-8 are repaired, as a protobuf string would
/// have been refused). Oracles:
/// - what `parse` accepts is valid JSON, and each entry's value is a valid JSON value;
/// - the payload rendered with those entries is valid JSON.
///
/// The entry point (Fuzz/Driver/FuzzMain.swift) runs libFuzzer's driver on `fuzzOneInput` below.
/// Returns 0 for every input (an oracle that fails aborts instead).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: FuzzInput(data, size).bytes, as: UTF8.self)
    guard let custom = try? CustomData.parse(text) else { return 0 }
    require(JSONGrammar.isValid(text.utf8) || custom.entries.isEmpty && text.allSatisfy(\.isWhitespace),
            "parse accepts invalid JSON \(hex(text.utf8))")
    for entry in custom.entries {
        require(JSONGrammar.isValid(entry.value.utf8), "parse of \(hex(text.utf8)) gives the invalid value \(entry.value) for \(entry.key)")
    }
    let texts = MessageSpec.Texts(title: "t", subtitle: "", body: "b")
    let spec = MessageSpec(
        defaultTexts: texts, localized: [:], categoryID: 0, badgeSet: nil, badgeIncrement: nil, sound: "",
        threadID: "", interruptionLevel: "", custom: custom, ttl: 0, collapseID: ""
    )
    let payload = PayloadRenderer.render(spec, texts: texts, badge: nil, messageCode: "M")
    require(JSONGrammar.isValid(payload), "data \(hex(text.utf8)) renders the invalid payload \(String(decoding: payload, as: UTF8.self))")
    return 0
}
