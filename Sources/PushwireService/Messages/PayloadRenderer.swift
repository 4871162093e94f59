import PushwireDelivery
import PushwireJSON

/// What a stored message renders: every text already resolved per language (and trimmed when the
/// notification asked for it), so that the fan-out only copies bytes. Stored as JSON in the
/// message row; decoded once per fan-out.
struct MessageSpec: Sendable, Equatable, Codable {
    /// The alert's texts in one language.
    struct Texts: Sendable, Equatable, Codable {
        var title: String
        var subtitle: String
        var body: String

        /// These texts with the body cut (on a Unicode scalar boundary, so on a UTF-8 boundary)
        /// until `size` of them fits in `limit` bytes — `size` being a renderer's worst-case size,
        /// which grows by a body character's JSON-escaped length; nil when even an empty body
        /// does not fit.
        func bodyTrimmed(toFit limit: Int, size: (Texts) -> Int) -> Texts? {
            var empty = self
            empty.body = ""
            let budget = limit - size(empty)
            if budget < 0 { return nil }
            var used = 0
            var kept = String.UnicodeScalarView()
            for scalar in body.unicodeScalars {
                let cost = JSONText.escapedCount(String(scalar).utf8)
                if used + cost > budget { break }
                used += cost
                kept.append(scalar)
            }
            var result = self
            result.body = String(kept)
            return result
        }
    }
    /// The default language's texts.
    var defaultTexts: Texts
    /// Texts by ISO-639-1 language, each complete (falling back to the default per field).
    var localized: [String: Texts]
    var categoryID: UInt32
    /// `aps.badge` set to this value, or…
    var badgeSet: UInt32?
    /// …the device's badge changed by this amount.
    var badgeIncrement: Int32?
    var sound: String
    var threadID: String
    /// `aps.interruption-level` value, or empty to leave it out.
    var interruptionLevel: String
    var custom: CustomData
    /// Seconds for `apns-expiration`, 0 for APNs' default.
    var ttl: UInt32
    var collapseID: String
    /// The category's buttons as they were when the message was created: Android devices get
    /// them in the FCM message's data (`FCMPayloadRenderer`), since Android has no registered
    /// categories. Nil or empty without a category.
    var buttons: [Button]? = nil
    /// A background (silent) notification: `content-available`, no alert, `apns-push-type:
    /// background`. Nil for an alert. (The APNs fields below are nil when not set, so that the
    /// stored spec of a notification without them is what it was before they existed.)
    var background: Bool? = nil
    /// `aps.mutable-content`.
    var mutableContent: Bool? = nil
    /// `apns-priority` as the notification chose it (10, 5 or 1); nil for the default.
    var apnsPriority: UInt32? = nil
    /// `aps.relevance-score`, 0–1.
    var relevanceScore: Double? = nil
    /// `aps.filter-criteria`.
    var filterCriteria: String? = nil
    /// `aps.target-content-id`.
    var targetContentID: String? = nil

    /// Whether it is a background notification.
    var isBackground: Bool { background ?? false }

    /// The `apns-priority` it is sent with: as chosen, else 5 for background and passive
    /// notifications, 10 for the others.
    var priority: Int {
        if let apnsPriority { return Int(apnsPriority) }
        return isBackground || interruptionLevel == "passive" ? 5 : 10
    }

    /// One button of the message's category, for Android.
    struct Button: Sendable, Equatable, Codable {
        /// The action identifier the device reports (as a decimal string).
        var id: UInt32
        /// The default label, and labels by language.
        var label: String
        var labels: [String: String]
        /// Brings the app to the foreground (`start_application`).
        var foreground: Bool
        var destructive: Bool
        /// A text-input button, with its send button's title and its field's placeholder.
        var textInput: Bool
        var inputButtonTitle: String
        var placeholder: String

        /// The label a device in `language` sees.
        func label(language: String) -> String { labels[language] ?? label }
    }

    /// The texts a device in `language` sees.
    func texts(language: String) -> Texts { localized[language] ?? defaultTexts }

    /// The key of the texts a device in `language` sees ("" for the default): the render cache key.
    func variant(language: String) -> String { localized[language] == nil ? "" : language }

    /// `variant(language:)`, telling apart the languages a button has a label in as well when
    /// `buttons` (the Android rendering carries the labels).
    func variant(language: String, buttons: Bool) -> String {
        guard buttons, let list = self.buttons, list.contains(where: { $0.labels[language] != nil }) else { return variant(language: language) }
        return language
    }

    /// The badge a device shows after this message, given what it showed; nil to leave it alone.
    func badge(after current: Int64) -> Int64? {
        if let badgeSet { return Int64(badgeSet) }
        if let badgeIncrement { return min(max(0, current + Int64(badgeIncrement)), Int64(UInt32.max)) }
        return nil
    }
}

/// Renders APNs payloads byte for byte, keys in a fixed order:
/// `{"aps":{"alert":{"title","subtitle","body"},"badge","sound","thread-id","category",
/// "interruption-level","relevance-score","filter-criteria","target-content-id","mutable-content"},
/// <custom keys, sorted>,"pw_msg":"<message code>"}` — empty optional fields are left out; a
/// background notification's `aps` is `{"content-available":1}`. The same inputs always give the same bytes (golden tests rely on it).
enum PayloadRenderer {
    /// The root key carrying the message code, which TrackAction reports back.
    static let messageCodeKey = "pw_msg"

    /// The payload for one language variant and badge value.
    static func render(_ spec: MessageSpec, texts: MessageSpec.Texts, badge: Int64?, messageCode: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256 + texts.body.utf8.count + texts.title.utf8.count)
        if spec.isBackground {
            // Silent: no alert, sound or badge (CreateMessage refused them).
            JSONText.appendLiteral(#"{"aps":{"content-available":1}"#, to: &out)
            appendRoot(spec, messageCode: messageCode, to: &out)
            return out
        }
        JSONText.appendLiteral(#"{"aps":{"alert":{"#, to: &out)
        var first = true
        func field(_ key: String, _ value: String) {
            if value.isEmpty { return }
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            JSONText.appendString(key, to: &out)
            out.append(UInt8(ascii: ":"))
            JSONText.appendString(value, to: &out)
        }
        field("title", texts.title)
        field("subtitle", texts.subtitle)
        // The body is written even when a trim emptied it: the alert stays an alert.
        if !first { out.append(UInt8(ascii: ",")) }
        JSONText.appendLiteral(#""body":"#, to: &out)
        JSONText.appendString(texts.body, to: &out)
        out.append(UInt8(ascii: "}"))
        if let badge {
            JSONText.appendLiteral(#","badge":"#, to: &out)
            JSONText.appendDecimal(Int64(badge), to: &out)
        }
        first = false
        field("sound", spec.sound)
        field("thread-id", spec.threadID)
        if spec.categoryID != 0 { field("category", String(spec.categoryID)) }
        field("interruption-level", spec.interruptionLevel)
        if let score = spec.relevanceScore {
            JSONText.appendLiteral(#","relevance-score":"#, to: &out)
            out.append(contentsOf: scoreText(score).utf8)
        }
        field("filter-criteria", spec.filterCriteria ?? "")
        field("target-content-id", spec.targetContentID ?? "")
        if spec.mutableContent == true { JSONText.appendLiteral(#","mutable-content":1"#, to: &out) }
        out.append(UInt8(ascii: "}"))
        appendRoot(spec, messageCode: messageCode, to: &out)
        return out
    }

    /// A relevance score as JSON: the shortest decimal that reads back as the same Double.
    static func scoreText(_ score: Double) -> String {
        score == score.rounded() ? String(Int(score)) : String(score)
    }

    /// The custom keys and `pw_msg` after `aps`, and the closing brace.
    private static func appendRoot(_ spec: MessageSpec, messageCode: String, to out: inout [UInt8]) {
        for entry in spec.custom.entries {
            out.append(UInt8(ascii: ","))
            JSONText.appendString(entry.key, to: &out)
            out.append(UInt8(ascii: ":"))
            out.append(contentsOf: entry.value.utf8)
        }
        out.append(UInt8(ascii: ","))
        JSONText.appendString(messageCodeKey, to: &out)
        out.append(UInt8(ascii: ":"))
        JSONText.appendString(messageCode, to: &out)
        out.append(UInt8(ascii: "}"))
    }

    /// The widest badge a payload can carry (UInt32.max), used to size payloads before the badge is known.
    static let widestBadge = Int64(UInt32.max)

    /// The largest size the payload of `texts` can reach once sent (with the widest badge and a
    /// message code of the standard length).
    static func worstCaseSize(_ spec: MessageSpec, texts: MessageSpec.Texts) -> Int {
        let badge: Int64? = (spec.badgeSet != nil || spec.badgeIncrement != nil) ? widestBadge : nil
        return render(spec, texts: texts, badge: badge, messageCode: MessageCodes.placeholder).count
    }

    /// `texts` with the body cut (on a Unicode scalar boundary, so on a UTF-8 boundary) until the
    /// worst-case payload fits in `limit` bytes; nil when even an empty body does not fit.
    static func trimmed(_ spec: MessageSpec, texts: MessageSpec.Texts, limit: Int) -> MessageSpec.Texts? {
        texts.bodyTrimmed(toFit: limit) { worstCaseSize(spec, texts: $0) }
    }
}
