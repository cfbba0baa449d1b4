/// Memory for a pthread mutex or condition: allocated once and never moved, as pthread requires
/// of an initialized object (a stored property of a class may move).
extension UnsafeMutablePointer {
    /// A new object, set up by `initialize` (such as `pthread_mutex_init`), whose failure is fatal.
    static func pthreadObject(_ empty: Pointee, _ name: StaticString, initialize: (Self) -> Int32) -> Self {
        let object = allocate(capacity: 1)
        object.initialize(to: empty)
        let result = initialize(object)
        precondition(result == 0, "\(name) failed: \(result)")
        return object
    }

    /// Ends the object with `destroy` (such as `pthread_mutex_destroy`) and frees its memory.
    func destroyPthreadObject(_ destroy: (Self) -> Int32) {
        _ = destroy(self)
        deinitialize(count: 1)
        deallocate()
    }
}
