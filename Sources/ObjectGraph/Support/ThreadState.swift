#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Per-thread state that ties a managed object's property wrappers to their object while the
/// object is being initialized.
///
/// Swift initializes a subclass's stored properties (the `@Attribute` and `@Relationship`
/// wrappers) before `ManagedObject.init` runs, in declaration order. Each wrapper takes the
/// next property index from this state, and, depending on `mode`, records its default value
/// or its whole declaration. `ManagedObject.init` then consumes the state and resets it. The
/// wrappers themselves store nothing but their index, so creating an object costs no
/// allocation per property.
///
/// The state is per thread (pthread-specific), so objects may be created on many queues at once.
final class ThreadState {
    enum Mode {
        /// A user-created object (`Client(context:)`): wrappers record their default values.
        case inserting
        /// A fault or fetched object: values come from the store; defaults are not evaluated.
        case materializing
        /// The model's prototype of an entity: wrappers record their declarations.
        case describing
    }

    var mode: Mode = .inserting
    var nextIndex = 0
    var defaults: [StoredValue] = []
    var declarations: [PropertyDeclaration] = []
    /// Set while a key path is applied to a prototype: the properties it reads, in order.
    var recordedPath: [(entity: ObjectIdentifier, index: Int)]? = nil
    /// Contexts whose block runs on this thread right now (innermost last): a
    /// `performAndWait` inside another context's block runs on the same thread, and both
    /// contexts' objects may be used there.
    var activeContexts: [ObjectIdentifier] = []
    /// While a key path is probed: the prototype and property whose reads return `value`.
    var probe: (prototype: ObjectIdentifier, index: Int, value: StoredValue)? = nil
    /// The registry recording `recordedPath`.
    var recordingRegistry: PrototypeRegistry? = nil

    func takeIndex() -> UInt16 {
        defer { nextIndex += 1 }
        // A class with that many properties is a programming error, met when the model is built.
        guard let index = UInt16(exactly: nextIndex) else { preconditionFailure("an entity declares at most 65,535 properties") }
        return index
    }

    func reset() {
        mode = .inserting
        nextIndex = 0
        if !defaults.isEmpty { defaults.removeAll(keepingCapacity: true) }
        if !declarations.isEmpty { declarations.removeAll() }
    }

    /// This thread's state, created on first use and released when the thread exits.
    static var current: ThreadState {
        let key = threadKey
        if let raw = pthread_getspecific(key) {
            return Unmanaged<ThreadState>.fromOpaque(raw).takeUnretainedValue()
        }
        let state = ThreadState()
        pthread_setspecific(key, Unmanaged.passRetained(state).toOpaque())
        return state
    }

    private static let threadKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { raw in
            #if canImport(Darwin)
            Unmanaged<ThreadState>.fromOpaque(raw).release()
            #else
            if let raw { Unmanaged<ThreadState>.fromOpaque(raw).release() }
            #endif
        }
        return key
    }()
}

/// What one wrapper declares, recorded on the entity's prototype.
enum PropertyDeclaration {
    case attribute(type: AttributeType, isOptional: Bool, defaultValue: StoredValue,
                   constraints: [AttributeConstraint])
    case relationship(destination: ManagedObject.Type, cardinality: RelationshipDescription.Cardinality,
                      inverse: AnyKeyPath?, deleteRule: DeleteRule, isRequired: Bool,
                      minCount: Int?, maxCount: Int?, recordsValuesInHistory: Bool)
}
