/// A value bound to a statement's `$n`, sent apart from the statement's text (libpq's
/// `PQexecParams`), in PostgreSQL's text form with its type, so that no value is ever spliced into SQL.
enum PostgresParameter: Sendable, Hashable {
    case text(String)
    case bigint(Int64)
    case integer(Int32)
    case textArray([String])

    /// The type's OID, as `pg_type` numbers it (fixed for built-in types).
    var type: UInt32 {
        switch self {
        case .text: 25
        case .bigint: 20
        case .integer: 23
        case .textArray: 1009
        }
    }

    /// The value in PostgreSQL's text input form: an array as `{"a","b"}`, each element quoted and
    /// its `"` and `\` escaped.
    var text: String {
        switch self {
        case .text(let value): value
        case .bigint(let value): String(value)
        case .integer(let value): String(value)
        case .textArray(let values):
            "{" + values.map { value in
                var quoted = "\""
                for character in value {
                    if character == "\"" || character == "\\" { quoted.append("\\") }
                    quoted.append(character)
                }
                return quoted + "\""
            }.joined(separator: ",") + "}"
        }
    }
}
