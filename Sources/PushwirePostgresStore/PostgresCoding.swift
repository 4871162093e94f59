import Foundation
import PushwireStore

/// How values without a column type of their own are stored: tags as a kind with an integer or
/// text column, buttons as JSON text (the same layout as the SQLite engine, so a database can be
/// moved between engines by copying rows; targetings: `TargetingJSON`, shared by both).
enum PostgresCoding {
    static func encodeTag(_ value: TagValueRecord) -> (kind: Int64, int: Int64?, text: String?) {
        switch value {
        case .string(let s): (1, nil, s)
        case .int(let i): (2, i, nil)
        case .bool(let b): (3, b ? 1 : 0, nil)
        case .list(let values): (4, nil, String(decoding: (try? JSONEncoder().encode(values)) ?? Data("[]".utf8), as: UTF8.self))
        case .date(let d): (5, d, nil)
        }
    }

    static func decodeTag(kind: Int64, int: Int64, text: String) -> TagValueRecord? {
        switch kind {
        case 1: .string(text)
        case 2: .int(int)
        case 3: .bool(int != 0)
        case 4: .list((try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? [])
        case 5: .date(int)
        default: nil
        }
    }

    static func encodeButtons(_ buttons: [ButtonRecord]) -> String {
        String(decoding: (try? JSONEncoder().encode(buttons)) ?? Data("[]".utf8), as: UTF8.self)
    }

    static func decodeButtons(_ text: String) -> [ButtonRecord] {
        (try? JSONDecoder().decode([ButtonRecord].self, from: Data(text.utf8))) ?? []
    }
}
