import CLibpq
import Glibc

/// One connection to PostgreSQL through libpq, the only place jobd calls libpq: every return code
/// and error message of libpq (and of `poll`) becomes a ``FleetError`` here.
///
/// Its calls block, each until its deadline at most: it is used on ``FleetExecutor``'s thread
/// alone (by ``FleetDatabase``), never on a thread of Swift's concurrency pool. libpq's
/// asynchronous calls are driven by `poll` on ``PQsocket`` so that a database that stops answering
/// (a cable pulled, not a refused connection) costs one deadline, not the kernel's TCP timeouts.
final class PostgresConnection {
    private let connection: OpaquePointer

    private init(_ connection: OpaquePointer) {
        self.connection = connection
    }

    deinit {
        PQfinish(connection)
    }

    /// Opens a connection with libpq's `parameters` (keyword, value), in order: a `dbname` holding a
    /// connection string or URI is expanded in its place, later parameters overriding its values,
    /// earlier ones overridden by them (`PQconnectStartParams` with `expand_dbname`).
    static func open(_ parameters: [(String, String)], deadline: ContinuousClock.Instant) throws(FleetError) -> PostgresConnection {
        let keywords = parameters.map { strdup($0.0) }, values = parameters.map { strdup($0.1) }
        defer { (keywords + values).forEach { free($0) } }
        let started = (keywords.map { UnsafePointer($0) } + [nil]).withUnsafeBufferPointer { keywordList in
            (values.map { UnsafePointer($0) } + [nil]).withUnsafeBufferPointer { valueList in
                PQconnectStartParams(keywordList.baseAddress, valueList.baseAddress, 1)
            }
        }
        guard let started else { throw FleetError(.connection, "libpq cannot allocate a connection") }
        let opened = PostgresConnection(started)
        // libpq writes the server's notices (`relation … already exists, skipping`) to stderr,
        // which is jobd's journal: they say nothing an operator needs.
        _ = PQsetNoticeProcessor(started, { _, _ in }, nil)
        guard PQstatus(started) != CONNECTION_BAD else { throw opened.failure() }
        var state = PGRES_POLLING_WRITING
        while state != PGRES_POLLING_OK {
            switch state {
            case PGRES_POLLING_READING: try opened.wait(for: Int16(POLLIN), until: deadline, doing: "connecting")
            case PGRES_POLLING_WRITING: try opened.wait(for: Int16(POLLOUT), until: deadline, doing: "connecting")
            default: throw opened.failure()
            }
            state = PQconnectPoll(started)
        }
        guard PQsetnonblocking(started, 1) == 0 else { throw opened.failure() }
        return opened
    }

    /// Whether the connection is (still) usable, as far as libpq knows.
    var isOpen: Bool { PQstatus(connection) == CONNECTION_OK }

    /// Whether the connection is encrypted.
    var usesTLS: Bool { PQsslInUse(connection) == 1 }

    /// Runs `sql` (one statement) with `parameters` bound to `$1`, `$2`, ...; returns its rows. A
    /// statement that has not finished by `deadline` is cancelled and fails with
    /// ``FleetError/Code/timeout``; the connection should then be dropped.
    func execute(_ sql: String, _ parameters: [PostgresParameter] = [], deadline: ContinuousClock.Instant) throws(FleetError) -> [PostgresRow] {
        let values = parameters.map { strdup($0.text) }
        defer { values.forEach { free($0) } }
        let types = parameters.map(\.type)
        let sent = values.map { UnsafePointer($0) }.withUnsafeBufferPointer { valueList in
            types.withUnsafeBufferPointer { typeList in
                PQsendQueryParams(connection, sql, Int32(parameters.count), typeList.baseAddress, valueList.baseAddress, nil, nil, 0)
            }
        }
        guard sent == 1 else { throw failure() }
        do throws(FleetError) {
            // Non-blocking: what the socket did not take yet is sent as it becomes writable.
            while true {
                let flushed = PQflush(connection)
                if flushed == 0 { break }
                guard flushed > 0 else { throw failure() }
                try wait(for: Int16(POLLOUT | POLLIN), until: deadline, doing: "sending a statement")
                guard PQconsumeInput(connection) == 1 else { throw failure() }
            }
            var rows: [PostgresRow] = []
            var statementError: FleetError?
            while true {
                while PQisBusy(connection) == 1 {
                    try wait(for: Int16(POLLIN), until: deadline, doing: "waiting for a statement's result")
                    guard PQconsumeInput(connection) == 1 else { throw failure() }
                }
                guard let result = PQgetResult(connection) else { break }
                defer { PQclear(result) }
                let status = PQresultStatus(result)
                if status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK {
                    rows += Self.rows(of: result)
                } else if statementError == nil {
                    statementError = FleetError(.connection, Self.message(PQresultErrorMessage(result)) ?? String(cString: PQresStatus(status)))
                }
            }
            if let statementError { throw statementError }
            return rows
        } catch {
            if error.code == .timeout { cancel() }
            throw error
        }
    }

    private static func rows(of result: OpaquePointer) -> [PostgresRow] {
        let columns = PQnfields(result)
        return (0..<PQntuples(result)).map { row in
            PostgresRow(columns: (0..<columns).map { column in
                PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column))
            })
        }
    }

    /// Asks the server to stop the statement in progress (it may hold locks a claim waits on). It
    /// opens a connection of its own, bounded by `tcp_user_timeout` ( ``FleetConnectionString``);
    /// whether it worked is of no consequence: the connection is dropped after a timeout anyway.
    private func cancel() {
        guard let request = PQgetCancel(connection) else { return }
        defer { PQfreeCancel(request) }
        var buffer = [CChar](repeating: 0, count: 256)
        _ = PQcancel(request, &buffer, Int32(buffer.count))
    }

    /// Waits until the socket is ready for `events`, or fails at `deadline`.
    private func wait(for events: Int16, until deadline: ContinuousClock.Instant, doing what: String) throws(FleetError) {
        let socket = PQsocket(connection)
        guard socket >= 0 else { throw failure() }
        while true {
            let left = deadline - .now
            guard left > .zero else { throw FleetError(.timeout, "no answer from the database within the time allowed (\(what))") }
            let (seconds, attoseconds) = left.components
            let milliseconds = Int32(clamping: seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
            var descriptor = pollfd(fd: socket, events: events, revents: 0)
            let ready = poll(&descriptor, 1, milliseconds)
            if ready > 0 { return }
            if ready < 0, errno != EINTR {
                throw FleetError(.connection, "poll on the database's socket: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// libpq's last error on this connection.
    private func failure() -> FleetError {
        FleetError(.connection, Self.message(PQerrorMessage(connection)) ?? "the connection to the database failed")
    }

    /// A libpq message on one line, without its trailing newline; `nil` when empty.
    private static func message(_ text: UnsafePointer<CChar>?) -> String? {
        guard let text else { return nil }
        let lines = String(cString: text).split(whereSeparator: \.isNewline).map { $0.drop(while: \.isWhitespace) }
        return lines.isEmpty ? nil : lines.joined(separator: "; ")
    }

    /// The parameters of a connection string or URI as libpq reads them (`PQconninfoParse`), the
    /// ones it sets only; or libpq's words for what is wrong with it.
    static func parse(_ text: String) -> Result<[String: String], FleetError> {
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(text, &error) else {
            defer { if let error { PQfreemem(error) } }
            return .failure(FleetError(.configuration, message(error) ?? "libpq cannot read it (out of memory)"))
        }
        defer { PQconninfoFree(options) }
        var parameters: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { parameters[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        return .success(parameters)
    }
}
