/// An optional kept out of line: 8 bytes in its holder (an array that is empty, and allocates
/// nothing, while there is no value) instead of the whole value's room. For what a run in flight
/// holds only before its spawn or after its end, or only when adopted: `RunInProgress` stays a few
/// hundred bytes instead of nearly a kilobyte for every run in flight (issue 39).
@propertyWrapper
struct OutOfLine<Value> {
    private var storage: [Value] = []

    init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    var wrappedValue: Value? {
        get { storage.first }
        set { storage = newValue.map { [$0] } ?? [] }
    }
}
