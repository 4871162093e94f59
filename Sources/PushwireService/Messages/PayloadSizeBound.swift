/// An upper bound on the size of every payload a message renders — APNs' (`PayloadRenderer`) and
/// FCM's (`FCMPayloadRenderer`), in every language, with the widest badge and a message code of
/// the standard length — from the lengths of its strings alone.
///
/// Nearly every message is far under the 4 KiB limit: when this bound is under it too,
/// `MessageValidation.fit` needs no rendering (rendering each language's payload twice to
/// measure it was 4 k of a CreateMessage's 317 k instructions). A message over the bound is
/// rendered and measured as before; so the bound may be loose but never low, which
/// `PayloadSizeBoundTests` checks against both renderers on adversarial messages.
enum PayloadSizeBound {
    /// Bytes a JSON string can take per byte of its text: `\u00XX` for a control character.
    static let escaped = 6
    /// Per byte of a button's label, title or placeholder: escaped inside `pw_buttons`' JSON
    /// text, which is escaped again as a string of FCM's data (`\u0001` → `\\u0001`).
    static let escapedTwice = 7
    /// Every byte either renderer writes around the strings below: keys, punctuation, the widest
    /// badge, category, TTL and relevance score, the quotes of each string (at most about 260
    /// bytes for APNs, 190 for FCM).
    static let fixed = 300
    /// What a button adds around its strings once escaped again (151 bytes).
    static let perButton = 160
    /// What a custom entry adds around its key and value in either payload.
    static let perCustomEntry = 8

    static func of(_ spec: MessageSpec) -> Int {
        var texts = size(spec.defaultTexts)
        for language in spec.localized.values { texts = max(texts, size(language)) }
        var strings = spec.sound.utf8.count + spec.threadID.utf8.count + spec.interruptionLevel.utf8.count
            + spec.collapseID.utf8.count + (spec.filterCriteria?.utf8.count ?? 0) + (spec.targetContentID?.utf8.count ?? 0)
        var custom = 0
        for entry in spec.custom.entries {
            strings += entry.key.utf8.count + entry.value.utf8.count
            custom += perCustomEntry
        }
        var buttons = 0
        for button in spec.buttons ?? [] {
            var label = button.label.utf8.count
            for other in button.labels.values { label = max(label, other.utf8.count) }
            buttons += perButton + escapedTwice * (label + button.inputButtonTitle.utf8.count + button.placeholder.utf8.count)
        }
        // The message code (digits and dashes) is never escaped.
        return fixed + MessageCodes.placeholder.utf8.count + escaped * (texts + strings) + custom + buttons
    }

    private static func size(_ texts: MessageSpec.Texts) -> Int {
        texts.title.utf8.count + texts.subtitle.utf8.count + texts.body.utf8.count
    }
}
