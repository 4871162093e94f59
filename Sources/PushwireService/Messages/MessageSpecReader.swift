import PushwireJSON

/// Reads back exactly what `MessageSpecJSON.encode` writes, without `JSONDecoder`: every small
/// message fanned out decodes its spec once, and a `JSONDecoder` pass cost more than rendering
/// its payloads. Strict: at the first byte it does not expect (e.g. text an older binary stored
/// with `JSONEncoder`, or whitespace) it gives up (nil), and `MessageSpecJSON.decode` falls back
/// to `JSONDecoder`, which reads any valid form.
struct MessageSpecReader {
    private var reader: JSONTextReader

    /// The spec in `text`, or nil when it is not in `encode`'s exact form.
    static func read(_ text: String) -> MessageSpec? {
        JSONTextReader.read(text) { reader in
            var specReader = MessageSpecReader(reader: reader)
            return specReader.spec()
        }
    }

    private mutating func spec() -> MessageSpec? {
        guard literal("{") else { return nil }
        var apnsPriority: UInt32?
        if literal(#""apnsPriority":"#) {
            guard let value = integer(), let narrow = UInt32(exactly: value), literal(",") else { return nil }
            apnsPriority = narrow
        }
        var background: Bool?
        if literal(#""background":"#) {
            guard let value = boolean(), literal(",") else { return nil }
            background = value
        }
        var badgeIncrement: Int32?
        var badgeSet: UInt32?
        if literal(#""badgeIncrement":"#) {
            guard let value = integer(), let narrow = Int32(exactly: value), literal(",") else { return nil }
            badgeIncrement = narrow
        }
        if literal(#""badgeSet":"#) {
            guard let value = integer(), let narrow = UInt32(exactly: value), literal(",") else { return nil }
            badgeSet = narrow
        }
        var buttons: [MessageSpec.Button]?
        if literal(#""buttons":["#) {
            guard let read = buttonList(), literal(",") else { return nil }
            buttons = read
        }
        guard literal(#""categoryID":"#), let categoryID = integer().flatMap({ UInt32(exactly: $0) }),
              literal(#","collapseID":"#), let collapseID = string(),
              literal(#","custom":{"entries":["#), let entries = customEntries(),
              literal(#"},"defaultTexts":"#), let defaultTexts = texts(),
              let filterCriteria = optionalString(#","filterCriteria":"#),
              literal(#","interruptionLevel":"#), let interruptionLevel = string(),
              literal(#","localized":{"#), let localized = localizedTexts(),
              let mutableContent = optionalBoolean(#","mutableContent":"#),
              let relevanceScore = optionalNumber(#","relevanceScore":"#),
              literal(#","sound":"#), let sound = string(),
              let targetContentID = optionalString(#","targetContentID":"#),
              literal(#","threadID":"#), let threadID = string(),
              literal(#","ttl":"#), let ttl = integer().flatMap({ UInt32(exactly: $0) }),
              literal("}"), reader.isAtEnd
        else { return nil }
        return MessageSpec(
            defaultTexts: defaultTexts, localized: localized, categoryID: categoryID, badgeSet: badgeSet,
            badgeIncrement: badgeIncrement, sound: sound, threadID: threadID, interruptionLevel: interruptionLevel,
            custom: CustomData(entries: entries), ttl: ttl, collapseID: collapseID, buttons: buttons,
            background: background, mutableContent: mutableContent, apnsPriority: apnsPriority,
            relevanceScore: relevanceScore, filterCriteria: filterCriteria, targetContentID: targetContentID)
    }

    /// `.some(nil)` when the input does not continue with `key`, `.some(value)` after it, nil when
    /// the key is there but its value is not a string.
    private mutating func optionalString(_ key: StaticString) -> String?? {
        guard literal(key) else { return .some(nil) }
        return string().map { .some($0) }
    }

    private mutating func optionalBoolean(_ key: StaticString) -> Bool?? {
        guard literal(key) else { return .some(nil) }
        return boolean().map { .some($0) }
    }

    /// A JSON number as `PayloadRenderer.scoreText` writes it.
    private mutating func optionalNumber(_ key: StaticString) -> Double?? {
        guard literal(key) else { return .some(nil) }
        var text = ""
        while let next = reader.peek(), (next >= UInt8(ascii: "0") && next <= UInt8(ascii: "9")) || next == UInt8(ascii: ".")
                || next == UInt8(ascii: "e") || next == UInt8(ascii: "E") || next == UInt8(ascii: "-") || next == UInt8(ascii: "+") {
            text.append(Character(Unicode.Scalar(next)))
            reader.skip()
        }
        return Double(text).map { .some($0) }
    }

    /// Button objects up to and including the closing `]`.
    private mutating func buttonList() -> [MessageSpec.Button]? {
        var buttons: [MessageSpec.Button] = []
        if literal("]") { return buttons }
        while true {
            guard literal(#"{"destructive":"#), let destructive = boolean(),
                  literal(#","foreground":"#), let foreground = boolean(),
                  literal(#","id":"#), let id = integer().flatMap({ UInt32(exactly: $0) }),
                  literal(#","inputButtonTitle":"#), let inputButtonTitle = string(),
                  literal(#","label":"#), let label = string(),
                  literal(#","labels":{"#), let labels = labelMap(),
                  literal(#","placeholder":"#), let placeholder = string(),
                  literal(#","textInput":"#), let textInput = boolean(),
                  literal("}")
            else { return nil }
            buttons.append(MessageSpec.Button(id: id, label: label, labels: labels, foreground: foreground, destructive: destructive,
                                              textInput: textInput, inputButtonTitle: inputButtonTitle, placeholder: placeholder))
            if literal("]") { return buttons }
            guard literal(",") else { return nil }
        }
    }

    /// `"language":"label"` pairs up to and including the closing `}`.
    private mutating func labelMap() -> [String: String]? {
        var labels: [String: String] = [:]
        if literal("}") { return labels }
        while true {
            guard let language = string(), literal(":"), let text = string() else { return nil }
            labels[language] = text
            if literal("}") { return labels }
            guard literal(",") else { return nil }
        }
    }

    private mutating func boolean() -> Bool? {
        if literal("true") { return true }
        if literal("false") { return false }
        return nil
    }

    /// `{"key":…,"value":…}` objects up to and including the closing `]`.
    private mutating func customEntries() -> [CustomData.Entry]? {
        var entries: [CustomData.Entry] = []
        if literal("]") { return entries }
        while true {
            guard literal(#"{"key":"#), let key = string(), literal(#","value":"#), let value = string(), literal("}")
            else { return nil }
            entries.append(CustomData.Entry(key: key, value: value))
            if literal("]") { return entries }
            guard literal(",") else { return nil }
        }
    }

    /// `"language":{texts}` pairs up to and including the closing `}`.
    private mutating func localizedTexts() -> [String: MessageSpec.Texts]? {
        var localized: [String: MessageSpec.Texts] = [:]
        if literal("}") { return localized }
        while true {
            guard let language = string(), literal(":"), let texts = texts() else { return nil }
            localized[language] = texts
            if literal("}") { return localized }
            guard literal(",") else { return nil }
        }
    }

    private mutating func texts() -> MessageSpec.Texts? {
        guard literal(#"{"body":"#), let body = string(), literal(#","subtitle":"#), let subtitle = string(),
              literal(#","title":"#), let title = string(), literal("}") else { return nil }
        return MessageSpec.Texts(title: title, subtitle: subtitle, body: body)
    }

    private mutating func literal(_ text: StaticString) -> Bool { reader.literal(text) }
    private mutating func integer() -> Int64? { reader.integer() }
    private mutating func string() -> String? { reader.string() }
}
