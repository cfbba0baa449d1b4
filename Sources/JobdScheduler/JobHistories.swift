/// Every job's history by job name, as a dictionary would keep them, but with the histories side
/// by side in one array and only their places in the hashed table.
///
/// Why not `[String: JobHistory]`: a dictionary's table has room for a third more entries than it
/// holds, rounded up to a power of two, and each slot is a whole history (312 bytes). A burst of
/// runs writes every job's history, so every page of that table became resident: 672 KiB for
/// 1,000 jobs, of which only the histories themselves (about 305 KiB) are state (issue 39: jobd's
/// RSS after a burst). Here the hashed table holds a name and a place (24 bytes a slot).
package struct JobHistories: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    private var places: [String: Int] = [:]
    private var entries: ContiguousArray<(name: String, history: JobHistory)> = []

    package init() {}

    package init(dictionaryLiteral elements: (String, JobHistory)...) {
        for (name, history) in elements { self[name] = history }
    }

    package subscript(name: String) -> JobHistory? {
        get { places[name].map { entries[$0].history } }
        set {
            switch (places[name], newValue) {
            case (let place?, let history?): entries[place].history = history
            case (nil, let history?):
                places[name] = entries.count
                entries.append((name, history))
            case (let place?, nil): remove(at: place)
            case (nil, nil): break
            }
        }
    }

    /// The job's history, or `defaultValue` as the one to change.
    package subscript(name: String, default defaultValue: @autoclosure () -> JobHistory) -> JobHistory {
        get { self[name] ?? defaultValue() }
        set { self[name] = newValue }
    }

    package var count: Int { entries.count }
    package var isEmpty: Bool { entries.isEmpty }

    /// The histories, in no particular order.
    package var values: some Collection<JobHistory> { entries.lazy.map(\.history) }

    /// Room for `count` jobs without growing, so that no table is grown (and left behind) during
    /// a burst of runs.
    package mutating func reserveCapacity(_ count: Int) {
        places.reserveCapacity(count)
        entries.reserveCapacity(count)
    }

    /// Adds the histories of `saved` whose jobs have none here; a history here wins.
    package mutating func addMissing(_ saved: [String: JobHistory]) {
        for (name, history) in saved where places[name] == nil { self[name] = history }
    }

    /// Each job's name and history, in no particular order.
    package func makeIterator() -> some IteratorProtocol<(key: String, value: JobHistory)> {
        entries.lazy.map { (key: $0.name, value: $0.history) }.makeIterator()
    }

    /// Equal when they hold the same histories for the same jobs, whatever their order.
    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.count == rhs.count && lhs.entries.allSatisfy { rhs[$0.name] == $0.history }
    }

    /// The last entry takes the removed one's place, so the array stays dense.
    private mutating func remove(at place: Int) {
        places[entries[place].name] = nil
        let last = entries.removeLast()
        guard place < entries.count else { return }
        entries[place] = last
        places[last.name] = place
    }
}
