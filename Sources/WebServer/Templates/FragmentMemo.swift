import Synchronization

/// Rendered fragments kept by name and key (see ``TemplateRenderer/fragment(_:_:key:)``).
final class FragmentMemo: Sendable {
    private let fragments = Mutex<[String: String]>([:])
    /// Fragments kept at most; past it the memo starts again (a bound against keys made from
    /// visitors' input).
    static let capacity = 1_024

    func fragment(_ key: String, render: () throws(TemplateRenderer.Error) -> String) throws(TemplateRenderer.Error) -> String {
        if let kept = fragments.withLock({ $0[key] }) { return kept }
        let rendered = try render()
        fragments.withLock { fragments in
            if fragments.count >= Self.capacity { fragments = [:] }
            fragments[key] = rendered
        }
        return rendered
    }
}
