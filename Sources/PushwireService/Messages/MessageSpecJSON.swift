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
        // Sorted by key, as JSONEncoder's `.sortedKeys` wrote them; nil optionals left out, as it does.
        if let priority = spec.apnsPriority {
            appendKey("apnsPriority", to: &out)
            JSONText.appendDecimal(Int64(priority), to: &out)
        }
        if let background = spec.background {
            appendKey("background", to: &out)
            JSONText.appendLiteral(background ? "true" : "false", to: &out)
        }
        if let increment = spec.badgeIncrement {
            appendKey("badgeIncrement", to: &out)
            JSONText.appendDecimal(Int64(increment), to: &out)
        }
        if let set = spec.badgeSet {
            appendKey("badgeSet", to: &out)
            JSONText.appendDecimal(Int64(set), to: &out)
        }
        if let buttons = spec.buttons, !buttons.isEmpty {
            appendKey("buttons", to: &out)
            appendButtons(buttons, to: &out)
        }
        appendKey("categoryID", to: &out)
        JSONText.appendDecimal(Int64(spec.categoryID), to: &out)
        appendKey("collapseID", to: &out)
        JSONText.appendString(spec.collapseID, to: &out)
        appendKey("custom", to: &out)
        JSONText.appendLiteral(#"{"entries":["#, to: &out)
        for (index, entry) in spec.custom.entries.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendLiteral(#"{"key":"#, to: &out)
            JSONText.appendString(entry.key, to: &out)
            JSONText.appendLiteral(#","value":"#, to: &out)
            JSONText.appendString(entry.value, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        JSONText.appendLiteral("]}", to: &out)
        appendKey("defaultTexts", to: &out)
        appendTexts(spec.defaultTexts, to: &out)
        if let criteria = spec.filterCriteria {
            appendKey("filterCriteria", to: &out)
            JSONText.appendString(criteria, to: &out)
        }
        appendKey("interruptionLevel", to: &out)
        JSONText.appendString(spec.interruptionLevel, to: &out)
        appendKey("localized", to: &out)
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
            appendKey("mutableContent", to: &out)
            JSONText.appendLiteral(mutable ? "true" : "false", to: &out)
        }
        if let score = spec.relevanceScore {
            appendKey("relevanceScore", to: &out)
            out.append(contentsOf: PayloadRenderer.scoreText(score).utf8)
        }
        appendKey("sound", to: &out)
        JSONText.appendString(spec.sound, to: &out)
        if let target = spec.targetContentID {
            appendKey("targetContentID", to: &out)
            JSONText.appendString(target, to: &out)
        }
        appendKey("threadID", to: &out)
        JSONText.appendString(spec.threadID, to: &out)
        appendKey("ttl", to: &out)
        JSONText.appendDecimal(Int64(spec.ttl), to: &out)
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `"name":` to the object `out` holds, after a comma unless it is the first key (the
    /// object's `{` is all there is before it). A static function: a nested one that captured
    /// `out` paid for an exclusivity check each call, 470 instructions a key in all.
    private static func appendKey(_ name: StaticString, to out: inout [UInt8]) {
        if out.count > 1 { out.append(UInt8(ascii: ",")) }
        out.append(UInt8(ascii: "\""))
        JSONText.appendLiteral(name, to: &out)
        JSONText.appendLiteral(#"":"#, to: &out)
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
            JSONText.appendLiteral(#"{"destructive":"#, to: &out)
            JSONText.appendLiteral(button.destructive ? "true" : "false", to: &out)
            JSONText.appendLiteral(#","foreground":"#, to: &out)
            JSONText.appendLiteral(button.foreground ? "true" : "false", to: &out)
            JSONText.appendLiteral(#","id":"#, to: &out)
            JSONText.appendDecimal(Int64(button.id), to: &out)
            JSONText.appendLiteral(#","inputButtonTitle":"#, to: &out)
            JSONText.appendString(button.inputButtonTitle, to: &out)
            JSONText.appendLiteral(#","label":"#, to: &out)
            JSONText.appendString(button.label, to: &out)
            JSONText.appendLiteral(#","labels":{"#, to: &out)
            let languages = button.labels.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for (position, language) in languages.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                JSONText.appendString(language, to: &out)
                out.append(UInt8(ascii: ":"))
                JSONText.appendString(button.labels[language] ?? "", to: &out)
            }
            JSONText.appendLiteral(#"},"placeholder":"#, to: &out)
            JSONText.appendString(button.placeholder, to: &out)
            JSONText.appendLiteral(#","textInput":"#, to: &out)
            JSONText.appendLiteral(button.textInput ? "true" : "false", to: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
    }

    private static func appendTexts(_ texts: MessageSpec.Texts, to out: inout [UInt8]) {
        JSONText.appendLiteral(#"{"body":"#, to: &out)
        JSONText.appendString(texts.body, to: &out)
        JSONText.appendLiteral(#","subtitle":"#, to: &out)
        JSONText.appendString(texts.subtitle, to: &out)
        JSONText.appendLiteral(#","title":"#, to: &out)
        JSONText.appendString(texts.title, to: &out)
        out.append(UInt8(ascii: "}"))
    }
}
