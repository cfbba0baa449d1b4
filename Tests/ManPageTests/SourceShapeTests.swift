import JobdTestKit
import Testing

/// Issue 37's bounds on the sources, kept true: no module over 4,000 lines (so that one module
/// stays something a reader can hold, and a split comes before it is forced), no function over
/// 100 lines but the text tables named below.
@Suite struct SourceShapeTests {
    static let sources = DaemonProcess.packageRoot() + "/Sources"
    static let moduleLimit = 4_000
    static let functionLimit = 100
    /// Functions that are one text per case of an enum (a table written as a switch): long by
    /// what they hold, not by what they do.
    static let textTables: Set<String> = ["JobdLogging/JobdCatalog.swift entry"]

    @Test func noModuleIsOver4000Lines() throws {
        let modules = try SourceShape.moduleLines(sources: Self.sources)
        #expect(modules.count > 20, "the sources were not found: \(modules)")
        for (module, lines) in modules.sorted(by: { $0.key < $1.key }) {
            #expect(lines <= Self.moduleLimit, "\(module) has \(lines) lines, over \(Self.moduleLimit): move a cohesive group of its files into a module of its own")
        }
    }

    @Test func noFunctionIsOver100LinesButTheTextTables() throws {
        let functions = try SourceShape.functions(sources: Self.sources)
        #expect(functions.count > 1_000, "the functions were not found: \(functions.count)")
        let long = functions.filter { $0.lines > Self.functionLimit && !Self.textTables.contains("\($0.file) \($0.name)") }
        for function in long {
            #expect(Bool(false), "\(function.file):\(function.line): \(function.name) has \(function.lines) lines, over \(Self.functionLimit): split it into named steps")
        }
        // The allow-list names text tables that exist: a renamed one must be renamed here too.
        for table in Self.textTables {
            #expect(functions.contains { "\($0.file) \($0.name)" == table }, "\(table) is no longer in the sources")
        }
    }

    /// The measure itself: a long body is found whatever its braces in strings and comments, and
    /// a requirement without a body is not a function.
    @Test func theMeasureCountsBodiesNotBracesInStringsOrComments() {
        let body = (1...99).map { "    let x\($0) = \"}\\(f(\"{\"))\" // }" }.joined(separator: "\n")
        let text = """
            protocol P {
                func required() -> Int
                init(x: Int)
            }
            struct S {
                /* func hidden() { */
                func long(
                    a: Int
                ) -> Int {
            \(body)
                }
                init() { let s = #"}"#; _ = s }
            }
            """
        let functions = SourceShape.functions(in: text, file: "S.swift")
        #expect(functions.map(\.name) == ["long", "init"])
        #expect(functions.first?.lines == 103)
        #expect(functions.last?.lines == 1)
    }
}
