import Foundation
import PushwireJSON

/// Renders what an Android device gets through FCM: the `message` object of an HTTP v1 send
/// request, without its `token` (the FCM gateway adds it per device), byte for byte, keys in a
/// fixed order:
///
/// `{"data":{<custom keys, sorted>,"pw_msg":…,"pw_title":…,"pw_subtitle":…,"pw_body":…,
/// "pw_category":"65","pw_buttons":"[…]"},"android":{"priority":"HIGH","ttl":"3600s",
/// "collapse_key":…}}`
///
/// A data message (no `notification` object): Android then hands it to the app's messaging
/// service in the foreground and the background alike, so the app builds the notification
/// itself — with the category's action buttons, which Android cannot register ahead the way iOS
/// registers categories. Every data value is a string, as FCM requires: custom values that are
/// JSON strings are sent as their text, other JSON values as their JSON text; `pw_buttons` is a
/// JSON array (as text) of `{"id":"0","label":…,"foreground":…,"destructive":…,"text_input":…}`
/// with labels in the device's language (and `input_button_title`, `placeholder` for text input).
/// Empty title and subtitle are left out, as are the category keys without a category, `ttl`
/// without `ios_ttl` and `collapse_key` without `ios_collapse_id`.
enum FCMPayloadRenderer {
    /// The data keys Pushwire writes (custom data may not use them).
    static let pushwireKeys = ["pw_title", "pw_subtitle", "pw_body", "pw_category", "pw_buttons"]

    /// The message for one language.
    static func render(_ spec: MessageSpec, texts: MessageSpec.Texts, language: String, messageCode: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256 + texts.body.utf8.count + texts.title.utf8.count)
        JSONText.appendLiteral(#"{"data":{"#, to: &out)
        for entry in spec.custom.entries {
            JSONText.appendString(entry.key, to: &out)
            out.append(UInt8(ascii: ":"))
            // A JSON string is sent as its text; anything else as its JSON text (FCM's data is
            // a map of strings).
            JSONText.appendString(dataString(entry.value), to: &out)
            out.append(UInt8(ascii: ","))
        }
        func field(_ key: String, _ value: String) {
            out.append(UInt8(ascii: ","))
            JSONText.appendString(key, to: &out)
            out.append(UInt8(ascii: ":"))
            JSONText.appendString(value, to: &out)
        }
        JSONText.appendString(PayloadRenderer.messageCodeKey, to: &out)
        out.append(UInt8(ascii: ":"))
        JSONText.appendString(messageCode, to: &out)
        // A background notification has no texts or category: the app is only woken.
        if !texts.title.isEmpty { field("pw_title", texts.title) }
        if !texts.subtitle.isEmpty { field("pw_subtitle", texts.subtitle) }
        if !spec.isBackground { field("pw_body", texts.body) }
        if spec.categoryID != 0 {
            field("pw_category", String(spec.categoryID))
            field("pw_buttons", String(decoding: buttons(spec.buttons ?? [], language: language), as: UTF8.self))
        }
        JSONText.appendLiteral(#"},"android":{"priority":"#, to: &out)
        // As APNs priority 5 or 1 (passive, background): FCM may then batch them to save power.
        JSONText.appendLiteral(spec.priority < 10 ? #""NORMAL""# : #""HIGH""#, to: &out)
        if spec.ttl != 0 {
            JSONText.appendLiteral(#","ttl":""#, to: &out)
            JSONText.appendDecimal(Int64(spec.ttl), to: &out)
            JSONText.appendLiteral(#"s""#, to: &out)
        }
        if !spec.collapseID.isEmpty {
            JSONText.appendLiteral(#","collapse_key":"#, to: &out)
            JSONText.appendString(spec.collapseID, to: &out)
        }
        JSONText.appendLiteral("}}", to: &out)
        return out
    }

    /// The size of the message for `texts` in `language` (a message code of the standard length).
    static func worstCaseSize(_ spec: MessageSpec, texts: MessageSpec.Texts, language: String) -> Int {
        render(spec, texts: texts, language: language, messageCode: MessageCodes.placeholder).count
    }

    /// `texts` with the body cut (on a Unicode scalar boundary) until the message fits in `limit`
    /// bytes; nil when even an empty body does not fit.
    static func trimmed(_ spec: MessageSpec, texts: MessageSpec.Texts, language: String, limit: Int) -> MessageSpec.Texts? {
        texts.bodyTrimmed(toFit: limit) { worstCaseSize(spec, texts: $0, language: language) }
    }

    /// A custom value (compact JSON text) as an FCM data string: a JSON string's text, any other
    /// value's JSON text.
    static func dataString(_ value: String) -> String {
        guard value.utf8.first == UInt8(ascii: "\"") else { return value }
        if let text = JSONTextReader.read(value, { reader in reader.string().flatMap { reader.isAtEnd ? $0 : nil } }) { return text }
        // Escapes the fast reader does not take (`\u2028`, `\/`, surrogate pairs).
        return (try? JSONDecoder().decode(String.self, from: Data(value.utf8))) ?? value
    }

    /// The buttons as a JSON array, labels in `language` (falling back to the default label).
    static func buttons(_ buttons: [MessageSpec.Button], language: String) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (index, button) in buttons.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendLiteral(#"{"id":""#, to: &out)
            JSONText.appendDecimal(Int64(button.id), to: &out)
            JSONText.appendLiteral(#"","label":"#, to: &out)
            JSONText.appendString(button.label(language: language), to: &out)
            JSONText.appendLiteral(#","foreground":"#, to: &out)
            JSONText.appendLiteral(button.foreground ? "true" : "false", to: &out)
            JSONText.appendLiteral(#","destructive":"#, to: &out)
            JSONText.appendLiteral(button.destructive ? "true" : "false", to: &out)
            JSONText.appendLiteral(#","text_input":"#, to: &out)
            JSONText.appendLiteral(button.textInput ? "true" : "false", to: &out)
            if button.textInput {
                JSONText.appendLiteral(#","input_button_title":"#, to: &out)
                JSONText.appendString(button.inputButtonTitle, to: &out)
                JSONText.appendLiteral(#","placeholder":"#, to: &out)
                JSONText.appendString(button.placeholder, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
        return out
    }
}
