import PushwireStore

/// SQLite's spelling of the targeting clause (`TargetingClause`): numbered `?n` parameters, one per
/// list element (`hwid IN (?4, ?5)`), `json_each` for a list tag, `0` for false.
struct SQLiteTargetingDialect: TargetingDialect {
    /// The values bound so far, in parameter order.
    private(set) var values: [SQLValue] = []
    /// Parameters before the clause's (`?1` … `?offset` belong to the statement around it).
    let offset: Int

    init(after offset: Int) {
        self.offset = offset
    }

    private mutating func bind(_ value: SQLValue) -> String {
        values.append(value)
        return "?\(values.count + offset)"
    }

    mutating func text(_ value: String) -> String { bind(.text(value)) }

    mutating func integer(_ value: Int64) -> String { bind(.int(value)) }

    mutating func text(_ column: String, isOneOf values: [String]) -> String {
        "\(column) IN (\(values.map { bind(.text($0)) }.joined(separator: ", ")))"
    }

    mutating func integer(_ column: String, isOneOf values: [Int32]) -> String {
        "\(column) IN (\(values.map { bind(.int(Int64($0))) }.joined(separator: ", ")))"
    }

    func jsonArray(_ column: String, contains element: String) -> String {
        "EXISTS (SELECT 1 FROM json_each(\(column)) WHERE json_each.value = \(element))"
    }

    var never: String { "0" }
}
