import FuzzSupport
import PushwireJSON

/// libFuzzer target: `JSONText.appendString` (every string Pushwire writes into JSON) and
/// `JSONTextReader` (stored specs and targetings read back), against `JSONGrammar`.
///
/// Input: text (repaired to UTF-8). Oracles:
/// - `appendString` of any text is one valid JSON string literal, which the reader reads back as
///   exactly that text, consuming all of it; `escapedCount` is its length without the quotes;
/// - an input the reader accepts as one string literal is a valid JSON string, and the string
///   survives a write and a read;
/// - an input the reader accepts as one integer is that decimal number.
///
/// The entry point (Fuzz/Driver/FuzzMain.swift) runs libFuzzer's driver on `fuzzOneInput` below.
/// Returns 0 for every input (an oracle that fails aborts instead).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: FuzzInput(data, size).bytes, as: UTF8.self)

    var written: [UInt8] = []
    JSONText.appendString(text, to: &written)
    require(JSONGrammar.isValidString(written), "appendString(\(hex(text.utf8))) wrote invalid JSON \(hex(written))")
    require(written.count == JSONText.escapedCount(text.utf8) + 2, "escapedCount(\(hex(text.utf8))) is not \(written.count - 2)")
    let writtenText = String(decoding: written, as: UTF8.self)
    let back = JSONTextReader.read(writtenText) { reader -> String? in
        guard let string = reader.string(), reader.isAtEnd else { return nil }
        return string
    }
    require(back.map { Array($0.utf8) } == Array(text.utf8), "appendString(\(hex(text.utf8))) reads back as \(back.map { hex($0.utf8) } ?? "nil")")

    // The input itself, read as one string literal.
    if let string = JSONTextReader.read(text, { reader -> String? in
        guard let string = reader.string(), reader.isAtEnd else { return nil }
        return string
    }) {
        require(JSONGrammar.isValidString(text.utf8), "the reader accepts the invalid literal \(hex(text.utf8)) as \(hex(string.utf8))")
        var again: [UInt8] = []
        JSONText.appendString(string, to: &again)
        let reread = JSONTextReader.read(String(decoding: again, as: UTF8.self)) { $0.string() }
        require(reread.map { Array($0.utf8) } == Array(string.utf8), "\(hex(string.utf8)) does not survive a write and read")
    }

    // The input as one integer.
    if let value = JSONTextReader.read(text, { reader -> Int64? in
        guard let value = reader.integer(), reader.isAtEnd else { return nil }
        return value
    }) {
        require(Int64(text) == value, "integer() reads \(text) as \(value)")
    }
    return 0
}
