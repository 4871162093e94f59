import Foundation
import XCTest
@testable import PushwireService

/// Custom-data JSON against an independent reader, Python's `json` module (strict: no NaN, no
/// control characters, and every string must encode as UTF-8, which a lone surrogate does not):
/// over fuzzed text, `CustomData.parse` accepts exactly the objects Python reads, and every
/// payload rendered from what it accepts is valid JSON.
final class CustomDataJSONTests: XCTestCase {
    func testInvalidEscapesAreRefused() {
        for text in [#"{"a":"\u+041"}"#, #"{"a":"\u-000"}"#, #"{"a":"\ud800"}"#, #"{"a":"\udc00"}"#, #"{"a":"\ud800x"}"#,
                     #"{"a":"\ud800\u0041"}"#, #"{"a":"\ud800\ud800"}"#, #"{"\ud800":1}"#, #"{"a":"\u 041"}"#, #"{"a":"\u004"}"#,
                     #"{"a":["\uDFFF"]}"#, #"{"a":{"\udbff":1}}"#] {
            XCTAssertThrowsError(try CustomData.parse(text), text)
        }
        for (text, value) in [(#"{"a":"\u0041\uD83D\uDE00\u00e9"}"#, "A😀é"), (#"{"\u0041":1}"#, "A")] {
            let parsed = try? CustomData.parse(text)
            XCTAssertNotNil(parsed, text)
            if text.hasPrefix(#"{"a""#) {
                XCTAssertEqual(parsed?.entries.first?.value, #""\u0041\uD83D\uDE00\u00e9""#)
            } else {
                XCTAssertEqual(parsed?.entries.first?.key, value)
            }
        }
    }

    func testFuzzedDataAgainstPython() throws {
        let python = "/usr/bin/python3"
        guard FileManager.default.isExecutableFile(atPath: python) else { throw XCTSkip("python3 is not installed") }
        var random = SplitMix64(seed: 0x5EED_0016)
        var cases: [(text: String, payload: [UInt8]?)] = []
        let count = 20_000
        while cases.count < count {
            let text = Self.mutated(Self.seeds[Int(random.next() % UInt64(Self.seeds.count))], &random)
            if text.allSatisfy({ $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }) { continue }
            var payload: [UInt8]?
            if let custom = try? CustomData.parse(text) {
                let spec = MessageSpec(
                    defaultTexts: .init(title: "t", subtitle: "", body: "b"), localized: [:], categoryID: 0, badgeSet: nil,
                    badgeIncrement: nil, sound: "", threadID: "", interruptionLevel: "", custom: custom, ttl: 0, collapseID: "")
                payload = PayloadRenderer.render(spec, texts: spec.defaultTexts, badge: nil, messageCode: "M1")
            }
            cases.append((text, payload))
        }
        let accepted = cases.filter { $0.payload != nil }.count
        XCTAssertGreaterThan(accepted, count / 20, "the fuzzer should produce a fair share of valid objects")
        XCTAssertGreaterThan(count - accepted, count / 10)

        // One line per case: the text's UTF-8 in hex, then the payload's or "-" (neither is empty).
        var input = ""
        for (text, payload) in cases {
            input += Self.hex(Array(text.utf8)) + " " + (payload.map(Self.hex) ?? "-") + "\n"
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", Self.checker, "\(CustomData.reservedKeys.sorted().joined(separator: ","))"]
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        let data = Data(input.utf8)
        let writer = Thread { stdin.fileHandleForWriting.write(data); try? stdin.fileHandleForWriting.close() }
        writer.start()
        let report = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, report)
        XCTAssertEqual(report, "checked \(count)\n", "accepted \(accepted) of \(count)")
    }

    /// Reads the cases; prints each disagreement, then the count.
    private static let checker = #"""
import json, sys
reserved = set(sys.argv[1].split(","))
class Obj(list): pass
def bad_constant(name): raise ValueError(name)
def walk(value, depth):
    if depth > 32: raise ValueError("too deep")
    if isinstance(value, Obj):
        for key, item in value:
            key.encode("utf-8")
            walk(item, depth + 1)
    elif isinstance(value, list):
        for item in value: walk(item, depth + 1)
    elif isinstance(value, str):
        value.encode("utf-8")
def valid_data(text):
    try:
        top = json.loads(text, parse_constant=bad_constant, object_pairs_hook=Obj)
        if not isinstance(top, Obj): return False
        keys = [key for key, _ in top]
        if len(set(keys)) != len(keys) or reserved & set(keys): return False
        for key, value in top:
            key.encode("utf-8")
            walk(value, 1)
        return True
    except (ValueError, UnicodeEncodeError, RecursionError):
        return False
def valid_json(text):
    try:
        walk(json.loads(text, parse_constant=bad_constant, object_pairs_hook=Obj), -10**6)
        return True
    except (ValueError, UnicodeEncodeError, RecursionError):
        return False
count = 0
for line in sys.stdin:
    text_hex, payload_hex = line.split()
    text = bytes.fromhex(text_hex).decode("utf-8")
    count += 1
    expected = valid_data(text)
    if expected != (payload_hex != "-"):
        print("pushwire %s, python %s: %r" % ("accepts" if payload_hex != "-" else "refuses", "accepts" if expected else "refuses", text))
    if payload_hex != "-":
        payload = bytes.fromhex(payload_hex).decode("utf-8")
        if not valid_json(payload): print("invalid payload: %r" % payload)
print("checked %d" % count)
"""#

    /// Valid objects heavy in strings, escapes and numbers.
    private static let seeds = [
        #"{"a":1}"#, #"{"order":42,"tags":["x","y"],"nested":{"k":[1,2.5,-3e+2,true,false,null]}}"#,
        #"{"s":"\u0041\u00e9\uD83D\uDE00\n\t\"\\\/"}"#, #"{"\u006b":"v","e":""}"#, #"{ "w" : [ { } , [ ] ] }"#,
        #"{"n":-0.5E-7,"m":0,"big":123456789012345678901234567890}"#, #"{"deep":[[[[{"a":[[["\ud83d\ude00"]]]}]]]]}"#,
        #"{"é":"ü","😀":"\u20ac"}"#,
    ]

    /// Fragments that break or bend the grammar, escapes most of all.
    private static let fragments = [
        #"\u"#, #"\u+041"#, #"\u-000"#, #"\ud800"#, #"\udc00"#, #"\uD83D"#, #"\uDE00"#, #"\ud83d\ude00"#, #"\u0000"#, #"\uFFFF"#,
        #"\u00"#, #"\x41"#, #"\'"#, #"\"#, "\"", "{", "}", "[", "]", ",", ":", "0", "-", "+", ".", "e", "E", "01", "1.", ".5",
        "true", "nul", "NaN", "Infinity", " ", "\n", "\u{01}", "\u{7F}", "é", "😀", "\"aps\"", "\"pw_msg\"", "\"a\"", "\"a\":1,",
        "\u{FEFF}", "\u{2028}",
    ]

    private static func mutated(_ seed: String, _ random: inout SplitMix64) -> String {
        var scalars = Array(seed.unicodeScalars)
        for _ in 0..<(1 + Int(random.next() % 3)) {
            let at = Int(random.next() % UInt64(scalars.count + 1))
            switch random.next() % 4 {
            case 0, 1:  // insert a fragment
                let fragment = fragments[Int(random.next() % UInt64(fragments.count))]
                scalars.insert(contentsOf: fragment.unicodeScalars, at: at)
            case 2:  // delete a short run
                let length = min(Int(random.next() % 4) + 1, scalars.count - at)
                scalars.removeSubrange(at..<(at + length))
            default:  // replace one scalar by a fragment
                guard at < scalars.count else { continue }
                let fragment = fragments[Int(random.next() % UInt64(fragments.count))]
                scalars.replaceSubrange(at...at, with: fragment.unicodeScalars)
            }
        }
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars)
        return text
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2 + 1)
        for byte in bytes { out.append(digits[Int(byte >> 4)]); out.append(digits[Int(byte & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }
}

/// A small seeded generator, so that a failure reproduces.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E4B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1330_11EB
        return z ^ (z >> 31)
    }
}
