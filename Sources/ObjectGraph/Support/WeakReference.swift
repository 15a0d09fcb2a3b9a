/// A reference that does not keep its object alive: for registries of contexts (a parent's
/// children, the inspector's list) that must not outlive what they list.
public struct WeakReference<Object: AnyObject & Sendable>: Sendable {
    /// The object, or `nil` once nothing else holds it.
    public weak var object: Object?

    /// A reference to `object` that does not retain it.
    public init(_ object: Object) { self.object = object }
}
