import PushwireJSON
import XCTest
@testable import PushwireService

/// `PayloadSizeBound`, which lets `MessageValidation.fit` skip rendering, is never below what
/// either renderer writes: 3,000 seeded random messages of adversarial strings (control
/// characters, quotes and backslashes, which escape to the most bytes; multi-byte characters),
/// custom data of every JSON kind, buttons with labels per language, every optional field,
/// compared in every language with both renderers' worst-case sizes.
final class PayloadSizeBoundTests: XCTestCase {
    private struct Random {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        mutating func coin() -> Bool { next(2) == 1 }
        mutating func string(upTo length: Int) -> String {
            let pieces = ["\u{1}", "\u{1f}", "\"", "\\", "a", "Z", " ", "é", "€", "😀", "\u{2028}", "/", "\n"]
            let count = next(length + 1)
            // Often one piece repeated, so that some strings are all of the costliest kind.
            if coin() { return String(repeating: pieces[next(pieces.count)], count: count) }
            return (0..<count).map { _ in pieces[next(pieces.count)] }.joined()
        }
        mutating func jsonValue() -> String {
            switch next(5) {
            case 0:
                var out: [UInt8] = []
                JSONText.appendString(string(upTo: 40), to: &out)
                return String(decoding: out, as: UTF8.self)
            case 1: return String(next(1_000_000))
            case 2: return coin() ? "true" : "null"
            case 3: return "[1,\"x\",{\"k\":false}]"
            default: return "{\"n\":\"\\u0001\\\\\"}"
            }
        }
    }

    func testTheBoundIsNeverBelowEitherRenderingInAnyLanguage() {
        var random = Random(state: 0x5eed)
        var closest = Int.max
        for round in 0..<3_000 {
            // Half of them with one long field and nothing else, which only a bound as tight as
            // this one's meets (each of its constants made smaller fails here).
            let spec = round % 2 == 0 ? randomSpec(&random) : oneFieldSpec(&random)
            let bound = PayloadSizeBound.of(spec)
            var languages = Set(spec.localized.keys)
            for button in spec.buttons ?? [] { languages.formUnion(button.labels.keys) }
            for language in [""] + languages.sorted() {
                let texts = language.isEmpty ? spec.defaultTexts : spec.texts(language: language)
                let apns = PayloadRenderer.worstCaseSize(spec, texts: texts)
                let fcm = FCMPayloadRenderer.worstCaseSize(spec, texts: texts, language: language)
                XCTAssertGreaterThanOrEqual(bound, apns, "APNs, language '\(language)': \(spec)")
                XCTAssertGreaterThanOrEqual(bound, fcm, "FCM, language '\(language)': \(spec)")
                closest = min(closest, bound - max(apns, fcm))
            }
        }
        XCTAssertLessThan(closest, 250, "some message comes near the bound: the test reaches its worst cases")
    }

    /// A usual message (the bench's, a console's) is far under the limit by the bound alone.
    func testAUsualMessageFitsByTheBoundAlone() {
        var spec = MessageSpec(defaultTexts: .init(title: "Your order has shipped", subtitle: "", body: "It arrives on Tuesday. Tap to track it."),
                               localized: [:], categoryID: 7, badgeSet: nil, badgeIncrement: 1, sound: "default", threadID: "orders",
                               interruptionLevel: "", custom: CustomData(entries: [.init(key: "order", value: "\"A-1042\"")]), ttl: 3600, collapseID: "")
        spec.buttons = [MessageSpec.Button(id: 1, label: "Track", labels: ["de": "Verfolgen"], foreground: true, destructive: false,
                                           textInput: false, inputButtonTitle: "", placeholder: "")]
        XCTAssertLessThan(PayloadSizeBound.of(spec), 4096)
    }

    private func oneFieldSpec(_ random: inout Random) -> MessageSpec {
        let pieces = ["\u{1}", "\"", "a", "€"]
        let long = String(repeating: pieces[random.next(pieces.count)], count: 300 + random.next(300))
        var spec = MessageSpec(defaultTexts: .init(title: "", subtitle: "", body: ""), localized: [:], categoryID: 0, badgeSet: nil,
                               badgeIncrement: nil, sound: "", threadID: "", interruptionLevel: "", custom: CustomData(entries: []),
                               ttl: 0, collapseID: "")
        switch random.next(6) {
        case 0: spec.defaultTexts.body = long
        case 1: spec.defaultTexts.title = long
        case 2: spec.collapseID = long
        case 3: spec.sound = long
        case 4: spec.custom = CustomData(entries: [.init(key: long, value: "1")])
        default:
            spec.categoryID = 1
            spec.buttons = (0..<1 + random.next(12)).map { index in
                MessageSpec.Button(id: UInt32.max - UInt32(index), label: index == 0 ? long : "", labels: [:], foreground: false,
                                   destructive: false, textInput: true, inputButtonTitle: "", placeholder: "")
            }
        }
        return spec
    }

    private func randomSpec(_ random: inout Random) -> MessageSpec {
        func texts() -> MessageSpec.Texts {
            .init(title: random.string(upTo: 30), subtitle: random.string(upTo: 20), body: random.string(upTo: 120))
        }
        var localized: [String: MessageSpec.Texts] = [:]
        for language in ["de", "fr", "ja"] where random.coin() { localized[language] = texts() }
        let custom = (0..<random.next(4)).map { index in
            CustomData.Entry(key: "k\(index)" + random.string(upTo: 8), value: random.jsonValue())
        }
        var spec = MessageSpec(defaultTexts: texts(), localized: localized, categoryID: random.coin() ? 0 : UInt32.max - UInt32(random.next(9)),
                               badgeSet: random.coin() ? UInt32.max : nil, badgeIncrement: random.coin() ? -1 : nil,
                               sound: random.string(upTo: 12), threadID: random.string(upTo: 12), interruptionLevel: random.coin() ? "time-sensitive" : "",
                               custom: CustomData(entries: custom), ttl: random.coin() ? UInt32.max : 0, collapseID: random.string(upTo: 16))
        if spec.categoryID != 0 {
            spec.buttons = (0..<random.next(5)).map { index in
                var labels: [String: String] = [:]
                for language in ["de", "pt"] where random.coin() { labels[language] = random.string(upTo: 20) }
                return MessageSpec.Button(id: UInt32.max - UInt32(index), label: random.string(upTo: 20), labels: labels, foreground: random.coin(),
                                          destructive: random.coin(), textInput: random.coin(), inputButtonTitle: random.string(upTo: 10),
                                          placeholder: random.string(upTo: 10))
            }
        }
        spec.background = random.next(8) == 0 ? true : nil
        spec.mutableContent = random.coin() ? true : nil
        spec.relevanceScore = random.coin() ? 0.30000000000000004 : nil
        spec.filterCriteria = random.coin() ? random.string(upTo: 10) : nil
        spec.targetContentID = random.coin() ? random.string(upTo: 10) : nil
        return spec
    }
}
