import PushwireStore
import PushwireWire

/// Apple's rules for categories of action buttons (and the protocol's limits).
///
/// `start_application` implies `authentication_required` (Apple runs foreground actions only on an
/// unlocked device): a button with the first gets the second set, rather than being rejected.
enum CategoryValidation {
    static func invalid(_ message: String) -> RPCError { RPCError(.invalidArgument, message) }

    static func record(_ category: Category) throws(RPCError) -> CategoryRecord {
        if category.name.isEmpty { throw invalid("category name is empty") }
        if category.name.utf8.count > Limits.maxCategoryNameBytes {
            throw invalid("category name is longer than \(Limits.maxCategoryNameBytes) bytes")
        }
        if category.buttons.isEmpty || category.buttons.count > Limits.maxButtons {
            throw invalid("a category has 1 to \(Limits.maxButtons) buttons, not \(category.buttons.count)")
        }
        var ids = Set<UInt32>()
        var buttons: [ButtonRecord] = []
        for button in category.buttons {
            guard ids.insert(button.id).inserted else { throw invalid("button id \(button.id) appears twice") }
            try checkLabel(button.label, what: "label of button \(button.id)")
            var languages = Set<String>()
            for localized in button.localizedLabels {
                guard LanguageCodes.isValid(localized.language) else {
                    throw invalid("button \(button.id): \"\(RPCError.echo(localized.language))\" is not an ISO-639-1 language code")
                }
                guard languages.insert(localized.language).inserted else {
                    throw invalid("button \(button.id): two labels for language \(localized.language)")
                }
                try checkLabel(localized.text, what: "\(localized.language) label of button \(button.id)")
            }
            guard let behavior = WireConversions.behaviorCode(button.behavior) else {
                throw invalid("button \(button.id): unknown behavior")
            }
            if behavior == WireConversions.textInputBehavior {
                if button.textInputButtonTitle.isEmpty || button.textInputPlaceholder.isEmpty {
                    throw invalid("button \(button.id): a text-input button needs text_input_button_title and text_input_placeholder")
                }
                try checkLabel(button.textInputButtonTitle, what: "text_input_button_title of button \(button.id)")
                if button.textInputPlaceholder.utf8.count > Limits.maxLabelBytes {
                    throw invalid("text_input_placeholder of button \(button.id) is longer than \(Limits.maxLabelBytes) bytes")
                }
            }
            buttons.append(ButtonRecord(
                id: button.id, label: button.label,
                localizedLabels: button.localizedLabels.map { LocalizedTextRecord(language: $0.language, text: $0.text) },
                destructive: button.destructive, startApplication: button.startApplication,
                authenticationRequired: button.authenticationRequired || button.startApplication,
                behavior: behavior,
                textInputButtonTitle: behavior == WireConversions.textInputBehavior ? button.textInputButtonTitle : "",
                textInputPlaceholder: behavior == WireConversions.textInputBehavior ? button.textInputPlaceholder : ""))
        }
        return CategoryRecord(id: category.categoryID, name: category.name, buttons: buttons)
    }

    private static func checkLabel(_ label: String, what: String) throws(RPCError) {
        if label.isEmpty { throw invalid("\(what) is empty") }
        if label.utf8.count > Limits.maxLabelBytes { throw invalid("\(what) is longer than \(Limits.maxLabelBytes) bytes") }
    }

    /// Ubudu's pre-defined category, which every application starts with.
    static let yesNo = CategoryRecord(id: 0, name: "YesNo", buttons: [
        ButtonRecord(id: 0, label: "Yes", startApplication: true, authenticationRequired: true),
        ButtonRecord(id: 1, label: "No"),
    ])
}
