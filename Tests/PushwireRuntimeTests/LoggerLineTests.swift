import Foundation
import PushwireJSON
@testable import PushwireRuntime
import XCTest

/// A log line, built as bytes: the text format's quoting and the JSON format's escaping, the
/// latter checked by an independent parser over generated values.
final class LoggerLineTests: XCTestCase {
    /// 2026-11-29T21:05:03Z.
    private let seconds = 1_795_986_303

    private func line(_ format: Logger.Format, level: Logger.Level, label: String, message: String,
                      metadata: [(key: String, value: String)], seconds: Int, milliseconds: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        Logger.appendLine(to: &bytes, format, level: level, label: label, message: message, metadata: metadata,
                          timestamp: Logger.timestamp(seconds: seconds, milliseconds: milliseconds))
        return bytes
    }

    private func text(_ message: String, _ metadata: [(String, String)], level: Logger.Level = .info) -> String {
        String(decoding: line(.text, level: level, label: "pushwired", message: message,
                                     metadata: metadata.map { (key: $0.0, value: $0.1) }, seconds: seconds, milliseconds: 7),
               as: UTF8.self)
    }

    func testTextLinesQuoteWhatWouldSplitThem() {
        XCTAssertEqual(text("listening", [("address", "127.0.0.1:7355"), ("threads", "2")]),
                       "2026-11-29T21:05:03.007Z info pushwired: listening address=127.0.0.1:7355 threads=2\n")
        XCTAssertEqual(text("x", [("empty", ""), ("space", "a b"), ("quote", "say \"hi\" \\ ok"), ("equals", "k=v")], level: .warning),
                       "2026-11-29T21:05:03.007Z warning pushwired: x empty=\"\" space=\"a b\" quote=\"say \\\"hi\\\" \\\\ ok\" equals=\"k=v\"\n")
        // A newline never ends a line early, whatever character it is part of.
        XCTAssertEqual(text("x", [("lines", "a\nb"), ("crlf", "a\r\nb"), ("unicode", "Grüße😀")]),
                       "2026-11-29T21:05:03.007Z info pushwired: x lines=\"a\\nb\" crlf=\"a\r\\nb\" unicode=Grüße😀\n")
        XCTAssertEqual(String(decoding: line(.text, level: .critical, label: "l", message: "m", metadata: [(key: String, value: String)](),
                                                    seconds: 0, milliseconds: 999), as: UTF8.self),
                       "1970-01-01T00:00:00.999Z critical l: m\n")
    }

    func testJSONLinesParseBackToWhatWasLogged() throws {
        var random = SystemRandomNumberGenerator()
        let alphabet: [Character] = ["a", "Z", "0", " ", "\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{1}", "\u{1f}", "\u{7f}",
                                     "é", "😀", "\r\n", "=", "/", "{", "}"]
        func value() -> String { String((0..<Int.random(in: 0...12, using: &random)).map { _ in alphabet.randomElement(using: &random)! }) }
        for _ in 0..<2_000 {
            let message = value(), key = value(), entry = value()
            let bytes = line(.json, level: .notice, label: "pushwired", message: message,
                                    metadata: [(key: key, value: entry), (key: "time", value: "shadowed")],
                                    seconds: seconds, milliseconds: 123)
            XCTAssertEqual(bytes.last, UInt8(ascii: "\n"))
            XCTAssertEqual(bytes.filter { $0 == UInt8(ascii: "\n") }.count, 1, "one line")
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: String], "\(message) \(key) \(entry)")
            XCTAssertEqual(object["time"], "2026-11-29T21:05:03.123Z")
            XCTAssertEqual(object["level"], "notice")
            XCTAssertEqual(object["message"], message)
            XCTAssertEqual(object["meta_time"], "shadowed")
            if !Logger.reservedJSONKeys.contains(key) { XCTAssertEqual(object[key], entry) }
        }
    }

    /// A count is written as its `String` would be, in both formats (JSON: as a string, like
    /// every metadata value), negative Int64s included where the sink writes them.
    func testCountsAreWrittenAsTheirStrings() {
        for format in Logger.Format.allCases {
            for value: UInt64 in [0, 1, 9, 10, 99, 100, 1_000_000_007, UInt64(Int64.max), UInt64.max] {
                var counted = Logger.LineMetadata(format: format), texted = Logger.LineMetadata(format: format)
                counted.add("n", value)
                texted.add("n", String(value))
                XCTAssertEqual(counted.bytes, texted.bytes, "\(format) \(value)")
            }
        }
        for value: Int64 in [Int64.min, -1, 0, 42, Int64.max] {
            var text: [UInt8] = []
            JSONText.appendDecimal(value, to: &text)
            XCTAssertEqual(String(decoding: text, as: UTF8.self), String(value))
        }
        // After what the text holds already, which stays as it was.
        var text = Array("id:".utf8)
        for value: UInt64 in [7, 1_234_567, UInt64.max] { JSONText.appendDecimal(value, to: &text) }
        XCTAssertEqual(String(decoding: text, as: UTF8.self), "id:7" + "1234567" + String(UInt64.max))
    }

    /// Several events with one write: a line each, in order, and none below the logger's level.
    func testEventsAreWrittenALineEach() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("logger-\(UUID().uuidString)").path
        let file = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0o600)
        XCTAssertGreaterThanOrEqual(file, 0)
        defer { unlink(path) }
        let saved = dup(2)
        dup2(file, 2)
        let logger = Logger(label: "pushwired", level: .info)
        let codes = ["M1", "M2", "M 3"]
        logger.log(.info, "message delivered", lines: 3) { index, line in
            line.add("message_code", codes[index])
            line.add("sent", UInt64(index + 1))
        }
        logger.log(.debug, "hidden", lines: 1) { _, _ in }
        logger.log(.info, "nothing", lines: 0) { _, _ in }
        dup2(saved, 2)
        close(saved)
        close(file)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.count, 4, "\(lines)")
        XCTAssertEqual(lines.last, "")
        for (line, expected) in zip(lines, [" info pushwired: message delivered message_code=M1 sent=1",
                                            " info pushwired: message delivered message_code=M2 sent=2",
                                            " info pushwired: message delivered message_code=\"M 3\" sent=3"]) {
            XCTAssertTrue(line.hasSuffix(expected), "\(line)")
            XCTAssertEqual(line.count, "2026-11-29T21:05:03.007Z".count + expected.count, "\(line)")
        }
    }
}
