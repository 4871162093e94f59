/// How one SQL engine spells what a targeting clause needs — its placeholders and casts, a column
/// matching one of a list, a JSON list holding an element, a condition that never holds — and
/// where the values it binds go. The clause itself is written once (`TargetingClause`), so that
/// the engines cannot disagree about who a message targets.
public protocol TargetingDialect {
    /// Binds `value` as the next parameter; returns the expression that reads it as text
    /// (`?7`, `$7::text`).
    mutating func text(_ value: String) -> String
    /// Binds `value` as the next parameter; returns the expression that reads it as a 64-bit
    /// integer (`?7`, `$7::bigint`).
    mutating func integer(_ value: Int64) -> String
    /// Binds `values`; returns the test that the text column `column` holds one of them.
    mutating func text(_ column: String, isOneOf values: [String]) -> String
    /// Binds `values`; returns the test that the 32-bit integer column `column` holds one of them.
    mutating func integer(_ column: String, isOneOf values: [Int32]) -> String
    /// The test that the JSON array of strings in the text column `column` has an element equal
    /// to `element` (an expression from `text(_:)`).
    func jsonArray(_ column: String, contains element: String) -> String
    /// A condition that never holds (`0`, `false`).
    var never: String { get }
}

/// The SQL that narrows the `devices` table to a targeting, for every engine.
public enum TargetingClause {
    /// `AND …` terms on `devices` (empty for every device) that keep the devices `targeting`
    /// selects, with their values bound through `dialect`. The text depends only on the shape of
    /// the targeting (which selectors and conditions, how many values where the dialect binds
    /// them one by one), so a prepared statement is reused message after message.
    ///
    /// What it selects (`TargetingContract` checks each engine against a model of it): every selector must hold; hwids, user ids and platforms
    /// are lists of which the device matches one; a tag condition holds when the device has the
    /// tag and — `eq`/`in` — one of its values equals the tag's (a string also matches an element
    /// of a list tag; an integer matches an integer or a date), or — `gte`/`lte`/`between`, on
    /// integer bounds — the integer or date tag is within the bounds, inclusive. A condition
    /// without a value it can compare holds for nobody.
    public static func build<Dialect: TargetingDialect>(_ targeting: TargetingRecord, _ dialect: inout Dialect) -> String {
        var clause = ""
        if !targeting.hwids.isEmpty { clause += " AND " + dialect.text("hwid", isOneOf: targeting.hwids) }
        if !targeting.userIDs.isEmpty { clause += " AND " + dialect.text("user_id", isOneOf: targeting.userIDs) }
        if !targeting.platforms.isEmpty { clause += " AND " + dialect.integer("device_type", isOneOf: targeting.platforms) }
        for condition in targeting.conditions {
            // The tag row is found by its primary key (app_id, hwid, name): one lookup per device.
            let name = dialect.text(condition.tag)
            var tests = self.tests(condition, &dialect)
            if tests.isEmpty { tests = [dialect.never] }  // a condition that cannot hold selects nothing
            clause += " AND EXISTS (SELECT 1 FROM device_tags t WHERE t.app_id = devices.app_id AND t.hwid = devices.hwid"
                + " AND t.name = \(name) AND (\(tests.joined(separator: " OR "))))"
        }
        return clause
    }

    /// The alternatives of one condition on the tag row `t` (kinds: 1 string, 2 integer, 3 bool,
    /// 4 list, 5 date), any of which makes it hold.
    private static func tests<Dialect: TargetingDialect>(_ condition: TagConditionRecord, _ dialect: inout Dialect) -> [String] {
        var tests: [String] = []
        switch condition.op {
        case .eq, .in:
            for value in condition.values {
                switch value {
                case .string(let s):
                    let p = dialect.text(s)
                    // Only a list tag's text is JSON. Neither engine promises to evaluate `AND`
                    // left to right, and reading a string tag's text as JSON fails the whole
                    // statement, so the kind is tested in a CASE, which both evaluate in order.
                    let inList = "CASE WHEN t.kind = 4 THEN \(dialect.jsonArray("t.text_value", contains: p)) ELSE \(dialect.never) END"
                    tests.append("(t.kind = 1 AND t.text_value = \(p)) OR (\(inList))")
                case .int(let i): tests.append("(t.kind IN (2, 5) AND t.int_value = \(dialect.integer(i)))")
                case .bool(let b): tests.append("(t.kind = 3 AND t.int_value = \(dialect.integer(b ? 1 : 0)))")
                }
            }
        case .gte, .lte, .between:
            let bounds = condition.values.compactMap { value -> Int64? in if case .int(let i) = value { i } else { nil } }
            if condition.op == .gte, let low = bounds.first {
                tests.append("t.kind IN (2, 5) AND t.int_value >= \(dialect.integer(low))")
            } else if condition.op == .lte, let high = bounds.first {
                tests.append("t.kind IN (2, 5) AND t.int_value <= \(dialect.integer(high))")
            } else if bounds.count == 2 {
                let low = dialect.integer(bounds[0])
                tests.append("t.kind IN (2, 5) AND t.int_value BETWEEN \(low) AND \(dialect.integer(bounds[1]))")
            }
        }
        return tests
    }
}
