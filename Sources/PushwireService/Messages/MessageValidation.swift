import Foundation
import PushwireDelivery
import PushwireStore
import PushwireWire

/// Checks a CreateMessage notification and turns it into what the store keeps; every failure is
/// INVALID_ARGUMENT with a message naming the notification and the field.
enum MessageValidation {
    /// A checked notification.
    struct Checked {
        var sendAtMS: Int64
        var targeting: TargetingRecord
        var spec: MessageSpec
        var transactionID: String
    }

    static func invalid(_ index: Int, _ message: String) -> RPCError {
        RPCError(.invalidArgument, "notifications[\(index)]: \(message)")
    }

    /// - Parameters:
    ///   - categories: the application's categories (for `ios_category_id`).
    ///   - nowMS: the server's clock, ms since 1970.
    static func check(_ n: PushwireWire.Notification, index: Int, categories: [Category], nowMS: Int64) throws(RPCError) -> Checked {
        let background: Bool
        switch n.iosPushType {
        case .unspecified, .alert: background = false
        case .background: background = true
        case .unrecognized(let value): throw invalid(index, "ios_push_type \(value) is not a push type (1 alert, 2 background)")
        }
        if background {
            try checkBackground(n, index: index)
        } else if n.content.isEmpty {
            throw invalid(index, "content is empty: a notification needs a body")
        }
        let sendAt = n.sendAtMS == 0 ? nowMS : n.sendAtMS
        if sendAt < nowMS - MessageLimits.pastToleranceMS {
            throw invalid(index, "send_at_ms \(n.sendAtMS) is more than \(MessageLimits.pastToleranceMS / 1000) s in the past; use 0 to send now")
        }
        // Subtracting keeps the comparison free of overflow for any send time.
        if sendAt > 0, sendAt - nowMS > MessageLimits.maxScheduleAheadMS {
            throw invalid(index, "send_at_ms \(n.sendAtMS) is more than \(MessageLimits.maxScheduleAheadMS / 86_400_000) days ahead; schedule at most that far")
        }
        var buttons: [MessageSpec.Button]?
        if n.iosCategoryID != 0 {
            guard let category = categories.first(where: { $0.categoryID == n.iosCategoryID }) else {
                throw invalid(index, "ios_category_id \(n.iosCategoryID) is not a category of this application")
            }
            buttons = category.buttons.map(androidButton)
        }
        let custom: CustomData
        do throws(CustomDataError) { custom = try CustomData.parse(n.data) } catch { throw invalid(index, error.message) }
        for (name, value) in [("ios_sound", n.iosSound), ("ios_thread_id", n.iosThreadID), ("transaction_id", n.transactionID)]
        where value.utf8.count > MessageLimits.maxShortStringBytes {
            throw invalid(index, "\(name) is longer than \(MessageLimits.maxShortStringBytes) bytes")
        }
        if n.iosCollapseID.utf8.count > NotificationLimits.maxCollapseIDBytes {
            throw invalid(index, "ios_collapse_id is longer than \(NotificationLimits.maxCollapseIDBytes) bytes")
        }
        var spec = MessageSpec(
            defaultTexts: .init(title: n.title, subtitle: n.subtitle, body: n.content), localized: [:],
            categoryID: n.iosCategoryID, badgeSet: nil, badgeIncrement: nil, sound: n.iosSound, threadID: n.iosThreadID,
            interruptionLevel: try interruptionLevel(n.iosInterruptionLevel, index: index), custom: custom, ttl: n.iosTTL,
            collapseID: n.iosCollapseID, buttons: buttons)
        try applyAPNsFields(n, background: background, to: &spec, index: index)
        switch n.iosBadge?.change {
        case .set(let value)?: spec.badgeSet = value
        case .increment(let value)?: spec.badgeIncrement = value
        case nil: break
        }
        let content = try localized(n.localizedContent, field: "localized_content", index: index)
        let titles = try localized(n.localizedTitle, field: "localized_title", index: index)
        let subtitles = try localized(n.localizedSubtitle, field: "localized_subtitle", index: index)
        for language in Set(content.keys).union(titles.keys).union(subtitles.keys) {
            spec.localized[language] = .init(title: titles[language] ?? n.title, subtitle: subtitles[language] ?? n.subtitle,
                                             body: content[language] ?? n.content)
        }
        try fit(&spec, trim: n.trimToFit, index: index)
        return Checked(sendAtMS: sendAt, targeting: try targeting(n.targeting, index: index), spec: spec, transactionID: n.transactionID)
    }

    /// A background notification only wakes the app: anything the user would see or hear is refused.
    private static func checkBackground(_ n: PushwireWire.Notification, index: Int) throws(RPCError) {
        let visible: [(String, Bool)] = [
            ("content", !n.content.isEmpty), ("localized_content", !n.localizedContent.isEmpty), ("title", !n.title.isEmpty),
            ("localized_title", !n.localizedTitle.isEmpty), ("subtitle", !n.subtitle.isEmpty),
            ("localized_subtitle", !n.localizedSubtitle.isEmpty), ("ios_badge", n.iosBadge != nil), ("ios_sound", !n.iosSound.isEmpty),
            ("ios_category_id", n.iosCategoryID != 0), ("ios_interruption_level", n.iosInterruptionLevel != .unspecified),
            ("ios_mutable_content", n.iosMutableContent), ("ios_relevance_score", n.iosRelevanceScore != 0),
        ]
        if let field = visible.first(where: { $0.1 })?.0 {
            throw invalid(index, "a background notification may not have \(field): it shows nothing (use an alert)")
        }
        if n.iosPriority != 0 && n.iosPriority != 5 {
            throw invalid(index, "ios_priority \(n.iosPriority): a background notification is sent at priority 5")
        }
    }

    /// The APNs fields beyond the alert: push type, mutable-content, priority, relevance score,
    /// filter criteria, target content id.
    private static func applyAPNsFields(_ n: PushwireWire.Notification, background: Bool, to spec: inout MessageSpec,
                                        index: Int) throws(RPCError) {
        if background { spec.background = true }
        if n.iosMutableContent { spec.mutableContent = true }
        switch n.iosPriority {
        case 0: break
        case 10, 5, 1: spec.apnsPriority = n.iosPriority
        default: throw invalid(index, "ios_priority \(n.iosPriority) is not an APNs priority (10, 5 or 1; 0 for the default)")
        }
        let score = n.iosRelevanceScore
        if score.isNaN || score < 0 || score > 1 {
            throw invalid(index, "ios_relevance_score \(score) is not between 0 and 1")
        }
        if score > 0 { spec.relevanceScore = score }
        for (name, value) in [("ios_filter_criteria", n.iosFilterCriteria), ("ios_target_content_id", n.iosTargetContentID)] {
            if value.utf8.count > MessageLimits.maxShortStringBytes {
                throw invalid(index, "\(name) is longer than \(MessageLimits.maxShortStringBytes) bytes")
            }
        }
        if !n.iosFilterCriteria.isEmpty { spec.filterCriteria = n.iosFilterCriteria }
        if !n.iosTargetContentID.isEmpty { spec.targetContentID = n.iosTargetContentID }
    }

    /// A category's button as Android devices get it (see `MessageSpec.Button`).
    private static func androidButton(_ button: Button) -> MessageSpec.Button {
        var labels: [String: String] = [:]
        for text in button.localizedLabels { labels[text.language] = text.text }
        return MessageSpec.Button(
            id: button.id, label: button.label, labels: labels, foreground: button.startApplication, destructive: button.destructive,
            textInput: button.behavior == .textInput, inputButtonTitle: button.textInputButtonTitle, placeholder: button.textInputPlaceholder)
    }

    /// Rejects (or trims) every language variant whose payload could exceed APNs' limit.
    private static func fit(_ spec: inout MessageSpec, trim: Bool, index: Int) throws(RPCError) {
        let limit = NotificationLimits.maxPayloadBytes
        // Far under the limit by the lengths of its strings: no payload needs rendering to know.
        if PayloadSizeBound.of(spec) <= limit { return }
        func check(_ texts: MessageSpec.Texts, _ language: String) throws(RPCError) -> MessageSpec.Texts {
            let size = PayloadRenderer.worstCaseSize(spec, texts: texts)
            if size <= limit { return texts }
            let name = language.isEmpty ? "the default language" : "language \(language)"
            if !trim {
                throw invalid(index, "the payload in \(name) would be \(size) bytes, over APNs' \(limit); shorten the content or set trim_to_fit")
            }
            guard let trimmed = PayloadRenderer.trimmed(spec, texts: texts, limit: limit) else {
                throw invalid(index, "the payload in \(name) exceeds \(limit) bytes even with an empty body; shorten the title, subtitle or data")
            }
            return trimmed
        }
        spec.defaultTexts = try check(spec.defaultTexts, "")
        for language in spec.localized.keys.sorted() {
            if let texts = spec.localized[language] { spec.localized[language] = try check(texts, language) }
        }
        try fitAndroid(&spec, trim: trim, index: index)
    }

    /// The same limit for the Android message (FCM's is 4096 bytes too), which carries the
    /// category's buttons with their labels in the device's language: every language with texts
    /// or labels of its own is checked, and with `trim_to_fit` its body is cut until it fits (a
    /// language with labels only gets the default texts, trimmed, as its own).
    private static func fitAndroid(_ spec: inout MessageSpec, trim: Bool, index: Int) throws(RPCError) {
        let limit = NotificationLimits.maxPayloadBytes
        var languages = Set(spec.localized.keys)
        for button in spec.buttons ?? [] { languages.formUnion(button.labels.keys) }
        for language in [""] + languages.sorted() {
            let texts = language.isEmpty ? spec.defaultTexts : spec.texts(language: language)
            let size = FCMPayloadRenderer.worstCaseSize(spec, texts: texts, language: language)
            if size <= limit { continue }
            let name = language.isEmpty ? "the default language" : "language \(language)"
            if !trim {
                throw invalid(index, "the Android message in \(name) would be \(size) bytes, over FCM's \(limit); shorten the content, the data or the category's labels, or set trim_to_fit")
            }
            guard let trimmed = FCMPayloadRenderer.trimmed(spec, texts: texts, language: language, limit: limit) else {
                throw invalid(index, "the Android message in \(name) exceeds \(limit) bytes even with an empty body; shorten the title, subtitle, data or the category's labels")
            }
            if language.isEmpty { spec.defaultTexts = trimmed } else { spec.localized[language] = trimmed }
        }
    }

    private static func localized(_ texts: [LocalizedText], field: String, index: Int) throws(RPCError) -> [String: String] {
        var byLanguage: [String: String] = [:]
        for text in texts {
            if !LanguageCodes.isValid(text.language) {
                throw invalid(index, "\(field): \"\(text.language)\" is not an ISO-639-1 code (two lower-case letters, e.g. \"de\")")
            }
            if byLanguage.updateValue(text.text, forKey: text.language) != nil {
                throw invalid(index, "\(field): language \(text.language) appears twice")
            }
        }
        return byLanguage
    }

    private static func interruptionLevel(_ level: InterruptionLevel, index: Int) throws(RPCError) -> String {
        switch level {
        case .unspecified: ""
        case .passive: "passive"
        case .active: "active"
        case .timeSensitive: "time-sensitive"
        case .critical: "critical"
        case .unrecognized(let value): throw invalid(index, "ios_interruption_level \(value) is unknown")
        }
    }

    static func targeting(_ targeting: Targeting?, index: Int) throws(RPCError) -> TargetingRecord {
        guard let targeting else { return TargetingRecord() }
        if targeting.devices.count > MessageLimits.maxTargets {
            throw invalid(index, "too many devices: \(targeting.devices.count), at most \(MessageLimits.maxTargets) per notification")
        }
        if targeting.userIDs.count > MessageLimits.maxTargets {
            throw invalid(index, "too many user_ids: \(targeting.userIDs.count), at most \(MessageLimits.maxTargets) per notification")
        }
        for hwid in targeting.devices where hwid.isEmpty || hwid.utf8.count > Limits.maxHWIDBytes {
            throw invalid(index, "targeting.devices holds an empty hwid or one longer than \(Limits.maxHWIDBytes) bytes")
        }
        var platforms: [Int32] = []
        for platform in targeting.platforms {
            guard let code = WireConversions.deviceTypeCode(platform) else {
                throw invalid(index, "targeting.platforms: \(platform.rawValue) is not a known device type")
            }
            platforms.append(code)
        }
        if targeting.conditions.count > MessageLimits.maxConditions {
            throw invalid(index, "too many tag conditions: \(targeting.conditions.count), at most \(MessageLimits.maxConditions)")
        }
        var conditions: [TagConditionRecord] = []
        for condition in targeting.conditions { conditions.append(try tagCondition(condition, index: index)) }
        // Sorted and deduplicated: the prepared statement's text then depends only on the counts.
        return TargetingRecord(hwids: ByteOrder.distinct(targeting.devices), userIDs: ByteOrder.distinct(targeting.userIDs),
                               platforms: Array(Set(platforms)).sorted(), conditions: conditions)
    }

    private static func tagCondition(_ condition: TagCondition, index: Int) throws(RPCError) -> TagConditionRecord {
        let where_ = "tag condition on \"\(condition.tag)\""
        do { try DeviceValidation.checkTagName(condition.tag) } catch { throw invalid(index, "tag condition: \(error.message)") }
        var values: [ConditionValueRecord] = []
        for value in condition.values {
            switch value.kind {
            case .stringValue(let s)?: values.append(.string(s))
            case .intValue(let i)?: values.append(.int(i))
            case .dateValue(let d)?: values.append(.int(d))
            case .boolValue(let b)?: values.append(.bool(b))
            case .listValue?: throw invalid(index, "\(where_): a list is not a value to compare with; use IN with several values")
            case nil: throw invalid(index, "\(where_): a value is empty")
            }
        }
        let op: TagConditionRecord.Operator
        switch condition.operator {
        case .eq: op = .eq
        case .in: op = .in
        case .gte: op = .gte
        case .lte: op = .lte
        case .between: op = .between
        case .unspecified, .unrecognized: throw invalid(index, "\(where_): operator must be EQ, IN, GTE, LTE or BETWEEN")
        }
        let expected: ClosedRange<Int> = switch op {
        case .eq, .gte, .lte: 1...1
        case .in: 1...MessageLimits.maxConditionValues
        case .between: 2...2
        }
        if !expected.contains(values.count) {
            throw invalid(index, "\(where_): \(op.rawValue.uppercased()) takes \(expected.lowerBound == expected.upperBound ? "\(expected.lowerBound)" : "\(expected.lowerBound)–\(expected.upperBound)") value(s), got \(values.count)")
        }
        if op == .gte || op == .lte || op == .between {
            for value in values {
                guard case .int = value else { throw invalid(index, "\(where_): \(op.rawValue.uppercased()) compares integers or dates only") }
            }
        }
        return TagConditionRecord(tag: condition.tag, op: op, values: values)
    }
}
