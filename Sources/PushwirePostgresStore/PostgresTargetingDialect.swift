import PushwireStore

/// PostgreSQL's spelling of the targeting clause (`TargetingClause`): `$n` parameters in text
/// format with a cast at each use, one array parameter per list (`hwid = ANY($4::text[])`, so the
/// statement's text does not depend on how many values), `jsonb ?` for a list tag, `false`.
struct PostgresTargetingDialect: TargetingDialect {
    /// The values bound so far, in parameter order.
    private(set) var values: [String?] = []
    /// Parameters before the clause's (`$1` … `$offset` belong to the statement around it).
    let offset: Int

    init(after offset: Int) {
        self.offset = offset
    }

    private mutating func bind(_ value: String) -> String {
        values.append(value)
        return "$\(values.count + offset)"
    }

    mutating func text(_ value: String) -> String { bind(value) + "::text" }

    mutating func integer(_ value: Int64) -> String { bind(String(value)) + "::bigint" }

    mutating func text(_ column: String, isOneOf values: [String]) -> String {
        "\(column) = ANY(\(bind(PGText.textArray(values)))::text[])"
    }

    mutating func integer(_ column: String, isOneOf values: [Int32]) -> String {
        "\(column) = ANY(\(bind(PGText.intArray(values.map { Int64($0) })))::integer[])"
    }

    func jsonArray(_ column: String, contains element: String) -> String {
        // A list tag holds a JSON array of strings: `?` asks whether it has the element.
        "\(column)::jsonb ? \(element)"
    }

    var never: String { "false" }
}
