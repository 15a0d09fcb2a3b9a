import Synchronization

/// Shares expensive work among callers who ask at the same time, without ever handing a caller
/// a result older than its call: a caller joins the run that is waiting to start, or starts
/// one after the run under way. At most one run is under way and one waits.
///
/// For the inspector: ten readers of `/contexts` cost two snapshots, not ten, and each still
/// sees every change made before it asked.
///
/// `Sendable`: `state` is only touched while its mutex is held.
final class FreshCoalescer<Value: Sendable>: Sendable {
    private struct Run {
        let id: Int
        let task: Task<Value, Never>
    }
    private struct State {
        var running: Run?
        var waiting: Run?
        var nextID = 0
    }
    private let state = Mutex(State())

    /// The value of a run that starts after this call, shared with others who ask meanwhile.
    func value(_ make: @escaping @Sendable () async -> Value) async -> Value {
        let task = state.withLock { state -> Task<Value, Never> in
            if let waiting = state.waiting { return waiting.task }
            let id = state.nextID
            state.nextID += 1
            let previous = state.running?.task
            let task = Task { [self] () async -> Value in
                _ = await previous?.value
                self.state.withLock { state in
                    if state.waiting?.id == id { state.running = state.waiting; state.waiting = nil }
                }
                let value = await make()
                self.state.withLock { state in
                    if state.running?.id == id { state.running = nil }
                }
                return value
            }
            if previous == nil { state.running = Run(id: id, task: task) } else { state.waiting = Run(id: id, task: task) }
            return task
        }
        return await task.value
    }
}
