/// An optional kept out of line: 8 bytes in its holder (an array that is empty, and allocates
/// nothing, while there is no value) instead of the whole value's room (issue 39). For what is
/// rarely set, or set only for part of its holder's life, in something jobd keeps many of: a run in
/// flight's spawn configuration (only before its spawn), outcome and mail (only after its end) and
/// adopted process; a job's history's handover pace (only until the next jobd takes it).
@propertyWrapper
package struct OutOfLine<Value> {
    private var storage: [Value] = []

    package init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    package var wrappedValue: Value? {
        get { storage.first }
        set { storage = newValue.map { [$0] } ?? [] }
    }
}

extension OutOfLine: Sendable where Value: Sendable {}
extension OutOfLine: Equatable where Value: Equatable {}
