import Foundation
import PushwireDelivery
import PushwireJSON

/// The stored text of a `MessageSpec`: compact JSON written by hand, keys in sorted order (the
/// stored spec of equal notifications is equal text). CreateMessage writes one per notification,
/// and a `JSONEncoder` pass cost more than the rest of the validation. The keys are those of the
/// synthesized `Codable` conformance, so `decode` (and any earlier binary) reads both this text
/// and the `JSONEncoder` text older binaries stored.
enum MessageSpecJSON {
    /// `spec` as compact JSON.
    static func encode(_ spec: MessageSpec) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(192 + spec.defaultTexts.body.utf8.count * (1 + spec.localized.count))
        out.append(UInt8(ascii: "{"))
        var first = true
        func key(_ name: StaticString) {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append(UInt8(ascii: "\""))
            name.withUTF8Buffer { out.append(contentsOf: $0) }
            out.append(contentsOf: #"":"#.utf8)
        }
        // Sorted by key, as JSONEncoder's `.sortedKeys` wrote them; nil optionals left out, as it does.
        if let priority = spec.apnsPriority {
            key("apnsPriority")
            out.append(contentsOf: String(priority).utf8)
        }
        if let background = spec.background {
            key("background")
            out.append(contentsOf: (background ? "true" : "false").utf8)
        }
        if let increment = spec.badgeIncrement {
            key("badgeIncrement")
            out.append(contentsOf: String(increment).utf8)
        }
        if let set = spec.badgeSet {
            key("badgeSet")
            out.append(contentsOf: String(set).utf8)
        }
        if let buttons = spec.buttons, !buttons.isEmpty {
            key("buttons")
            appendButtons(buttons, to: &out)
        }
        key("categoryID")
        out.append(contentsOf: String(spec.categoryID).utf8)
        key("collapseID")
        JSONText.appendString(spec.collapseID, to: &out)
        key("custom")
        out.append(contentsOf: #"{"entries":["#.utf8)
        for (index, entry) in spec.custom.entries.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: #"{"key":"#.utf8)
            JSONText.appendString(entry.key, to: &out)
            out.append(contentsOf: #","value":"#.utf8)
            JSONText.appendString(entry.value, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: "]}".utf8)
        key("defaultTexts")
        appendTexts(spec.defaultTexts, to: &out)
        if let criteria = spec.filterCriteria {
            key("filterCriteria")
            JSONText.appendString(criteria, to: &out)
        }
        key("interruptionLevel")
        JSONText.appendString(spec.interruptionLevel, to: &out)
        key("localized")
        out.append(UInt8(ascii: "{"))
        let languages = spec.localized.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        for (index, language) in languages.enumerated() {
            guard let texts = spec.localized[language] else { continue }
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendString(language, to: &out)
            out.append(UInt8(ascii: ":"))
            appendTexts(texts, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        if let mutable = spec.mutableContent {
            key("mutableContent")
            out.append(contentsOf: (mutable ? "true" : "false").utf8)
        }
        if let score = spec.relevanceScore {
            key("relevanceScore")
            out.append(contentsOf: PayloadRenderer.scoreText(score).utf8)
        }
        key("sound")
        JSONText.appendString(spec.sound, to: &out)
        if let target = spec.targetContentID {
            key("targetContentID")
            JSONText.appendString(target, to: &out)
        }
        key("threadID")
        JSONText.appendString(spec.threadID, to: &out)
        key("ttl")
        out.append(contentsOf: String(spec.ttl).utf8)
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    /// Reads a stored spec (this encoding or `JSONEncoder`'s); nil when it is not one.
    static func decode(_ text: String) -> MessageSpec? {
        MessageSpecReader.read(text) ?? (try? JSONDecoder().decode(MessageSpec.self, from: Data(text.utf8)))
    }

    /// The buttons, each object's keys sorted as `JSONEncoder`'s `.sortedKeys` writes them.
    private static func appendButtons(_ buttons: [MessageSpec.Button], to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (index, button) in buttons.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: #"{"destructive":"#.utf8)
            out.append(contentsOf: (button.destructive ? "true" : "false").utf8)
            out.append(contentsOf: #","foreground":"#.utf8)
            out.append(contentsOf: (button.foreground ? "true" : "false").utf8)
            out.append(contentsOf: #","id":"#.utf8)
            out.append(contentsOf: String(button.id).utf8)
            out.append(contentsOf: #","inputButtonTitle":"#.utf8)
            JSONText.appendString(button.inputButtonTitle, to: &out)
            out.append(contentsOf: #","label":"#.utf8)
            JSONText.appendString(button.label, to: &out)
            out.append(contentsOf: #","labels":{"#.utf8)
            let languages = button.labels.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for (position, language) in languages.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                JSONText.appendString(language, to: &out)
                out.append(UInt8(ascii: ":"))
                JSONText.appendString(button.labels[language] ?? "", to: &out)
            }
            out.append(contentsOf: #"},"placeholder":"#.utf8)
            JSONText.appendString(button.placeholder, to: &out)
            out.append(contentsOf: #","textInput":"#.utf8)
            out.append(contentsOf: (button.textInput ? "true" : "false").utf8)
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
    }

    private static func appendTexts(_ texts: MessageSpec.Texts, to out: inout [UInt8]) {
        out.append(contentsOf: #"{"body":"#.utf8)
        JSONText.appendString(texts.body, to: &out)
        out.append(contentsOf: #","subtitle":"#.utf8)
        JSONText.appendString(texts.subtitle, to: &out)
        out.append(contentsOf: #","title":"#.utf8)
        JSONText.appendString(texts.title, to: &out)
        out.append(UInt8(ascii: "}"))
    }
}
