/// One row of a statement's result, as libpq gives it: each column's text, `nil` for SQL `NULL`.
struct PostgresRow: Sendable, Hashable {
    var columns: [String?]

    /// Column `index` as text; a `NULL` is an error.
    func text(_ index: Int) throws(FleetError) -> String {
        guard let value = try optionalText(index) else { throw Self.unexpected(index, "NULL") }
        return value
    }

    func optionalText(_ index: Int) throws(FleetError) -> String? {
        guard columns.indices.contains(index) else { throw Self.unexpected(index, "no such column") }
        return columns[index]
    }

    func int64(_ index: Int) throws(FleetError) -> Int64 {
        let value = try text(index)
        guard let number = Int64(value) else { throw Self.unexpected(index, "'\(value)'") }
        return number
    }

    func optionalInt64(_ index: Int) throws(FleetError) -> Int64? {
        guard let value = try optionalText(index) else { return nil }
        guard let number = Int64(value) else { throw Self.unexpected(index, "'\(value)'") }
        return number
    }

    /// A `boolean` column: PostgreSQL writes `t` or `f`.
    func bool(_ index: Int) throws(FleetError) -> Bool {
        switch try text(index) {
        case "t": return true
        case "f": return false
        case let value: throw Self.unexpected(index, "'\(value)'")
        }
    }

    private static func unexpected(_ index: Int, _ what: String) -> FleetError {
        FleetError(.connection, "the database answered \(what) in column \(index + 1), not what jobd's schema holds")
    }
}
