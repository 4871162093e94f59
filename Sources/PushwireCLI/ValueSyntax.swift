import Foundation
import PushwireClient
import PushwireWire

/// The small text syntaxes of option values (tags, buttons, dates, platforms), each parsed in one
/// place so that `--help` and the parser agree. Errors are usage errors naming the option.
enum ValueSyntax {
    /// Splits `name=value` at the first `=`.
    static func pair(_ text: String, option: String, command: String) throws(UsageError) -> (name: String, value: String) {
        guard let eq = text.firstIndex(of: "="), eq != text.startIndex else {
            throw UsageError(message: "\(option) expects name=value, got '\(text)'", command: command)
        }
        return (String(text[..<eq]), String(text[text.index(after: eq)...]))
    }

    /// A tag value: a string by default; `string:`, `int:5`, `bool:true`, `date:2026-11-29`
    /// (or an ISO 8601 time, or unix seconds) and `list:a,b,c` choose the kind.
    static func tagValue(_ text: String, option: String, command: String) throws(UsageError) -> TagValue {
        var value = TagValue()
        guard let colon = text.firstIndex(of: ":") else {
            value.kind = .stringValue(text)
            return value
        }
        let kind = text[..<colon]
        let rest = String(text[text.index(after: colon)...])
        switch kind {
        case "string", "str":
            value.kind = .stringValue(rest)
        case "int":
            guard let number = Int64(rest) else { throw UsageError(message: "\(option): '\(rest)' is not an integer", command: command) }
            value.kind = .intValue(number)
        case "bool":
            switch rest {
            case "true", "yes", "1": value.kind = .boolValue(true)
            case "false", "no", "0": value.kind = .boolValue(false)
            default: throw UsageError(message: "\(option): '\(rest)' is not true or false", command: command)
            }
        case "date":
            value.kind = .dateValue(try unixSeconds(rest, option: option, command: command))
        case "list":
            var list = StringList()
            list.values = rest.isEmpty ? [] : rest.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            value.kind = .listValue(list)
        default:
            // Not a kind prefix (e.g. a URL): the whole text is the string.
            value.kind = .stringValue(text)
        }
        return value
    }

    /// A point in time as seconds since 1970: unix seconds, `2026-11-29` (midnight UTC) or an
    /// ISO 8601 time such as `2026-11-29T18:30:00Z`.
    static func unixSeconds(_ text: String, option: String, command: String) throws(UsageError) -> Int64 {
        if let seconds = Int64(text) { return seconds }
        guard let date = isoDate(text) else {
            throw UsageError(message: "\(option): '\(text)' is not a date (2026-11-29, 2026-11-29T18:30:00Z or unix seconds)", command: command)
        }
        return Int64(date.timeIntervalSince1970.rounded(.down))
    }

    /// Parses `2026-11-29`, `2026-11-29T18:30:00Z`, `2026-11-29T18:30:00.250+01:00`.
    static func isoDate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds], [.withFullDate]] {
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    /// A platform by name (`ios`, `android`, `macos`, …) or Pushwoosh number (`1`).
    static func deviceType(_ text: String, option: String, command: String) throws(UsageError) -> DeviceType {
        if let number = Int32(text), let type = DeviceType.allCases.first(where: { $0.rawValue == number && $0 != .unspecified }) { return type }
        let wanted = text.lowercased().replacingOccurrences(of: "_", with: "").replacingOccurrences(of: "-", with: "")
        for type in DeviceType.allCases where type != .unspecified && "\(type)".lowercased() == wanted {
            return type
        }
        let names = DeviceType.allCases.filter { $0 != .unspecified }.map { "\($0)".lowercased() }
        throw UsageError(message: "\(option): unknown platform '\(text)' (one of \(names.joined(separator: ", ")))", command: command)
    }

    /// `lang=text` options (`--language-content fr=Bonjour`) as localized texts, in order.
    static func localized(_ texts: [String], option: String, command: String) throws(UsageError) -> [LocalizedText] {
        var result: [LocalizedText] = []
        for text in texts {
            let (language, value) = try pair(text, option: option, command: command)
            var item = LocalizedText()
            item.language = language
            item.text = value
            result.append(item)
        }
        return result
    }

    /// A button: `LABEL[:OPTION[,OPTION…]]`, buttons numbered 0, 1, … in order. Options:
    /// `foreground` (opens the app; implies auth), `background` (the default), `destructive`
    /// (red), `auth` (needs an unlocked device), `input=TITLE|PLACEHOLDER` (a text-input button),
    /// and `LANG=LABEL` (a label in another language, e.g. `fr=Oui`).
    static func button(_ text: String, id: UInt32, command: String) throws(UsageError) -> Button {
        var button = Button()
        button.id = id
        button.behavior = .default
        let label: Substring
        var options: [Substring] = []
        if let colon = text.firstIndex(of: ":") {
            label = text[..<colon]
            options = text[text.index(after: colon)...].split(separator: ",")
        } else {
            label = text[...]
        }
        guard !label.isEmpty else { throw UsageError(message: "--button '\(text)' has no label", command: command) }
        button.label = String(label)
        for option in options {
            switch option {
            case "foreground":
                button.startApplication = true
                button.authenticationRequired = true
            case "background": break
            case "destructive": button.destructive = true
            case "auth": button.authenticationRequired = true
            default:
                guard let eq = option.firstIndex(of: "=") else {
                    throw UsageError(message: "--button '\(text)': unknown option '\(option)' (foreground, background, destructive, auth, input=TITLE|PLACEHOLDER, LANG=LABEL)", command: command)
                }
                let key = option[..<eq], value = String(option[option.index(after: eq)...])
                if key == "input" {
                    let parts = value.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false)
                    button.behavior = .textInput
                    button.textInputButtonTitle = String(parts[0])
                    button.textInputPlaceholder = parts.count > 1 ? String(parts[1]) : ""
                } else {
                    var localized = LocalizedText()
                    localized.language = String(key)
                    localized.text = value
                    button.localizedLabels.append(localized)
                }
            }
        }
        return button
    }

    /// Reads a whole file for an option such as `--file` or `--apns-key-file`.
    static func readFile(_ path: String, option: String, command: String) throws(UsageError) -> String {
        if path == "-" {
            return String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        }
        guard let contents = FileManager.default.contents(atPath: path) else {
            throw UsageError(message: "\(option): cannot read '\(path)'", command: command)
        }
        return String(decoding: contents, as: UTF8.self)
    }

    /// Parses a proto3 JSON text (as `pushwire call` takes it) into the message `M`.
    static func message<M: WireMessage>(_ json: String, as type: M.Type, option: String, command: String) throws(UsageError) -> M {
        do {
            return try M(decoding: try ProtoJSON.encode(json, as: M.descriptor))
        } catch let error as ProtoJSONError {
            throw UsageError(message: "\(option): \(error.message)", command: command)
        } catch {
            throw UsageError(message: "\(option): \(error)", command: command)
        }
    }
}
