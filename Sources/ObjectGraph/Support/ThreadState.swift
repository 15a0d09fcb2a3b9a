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
/// A value that points at the thread's fields: taking it costs no retain, and its accessors
/// no exclusivity check (the fields are confined to their thread by construction, and a
/// class's stored properties would be checked at every access, several times for every object
/// made or fetched).
struct ThreadState {
    enum Mode {
        /// A user-created object (`Client(context:)`): wrappers record their default values.
        case inserting
        /// A fault or fetched object: values come from the store; defaults are not evaluated.
        case materializing
        /// The model's prototype of an entity: wrappers record their declarations.
        case describing
    }

    private let fields: UnsafeMutablePointer<Fields>

    private struct Fields {
        var mode: Mode = .inserting
        var nextIndex = 0
        var defaults: [StoredValue] = []
        var declarations: [PropertyDeclaration] = []
        var recordedPath: [(entity: ObjectIdentifier, index: Int)]? = nil
        var activeContexts: [ObjectIdentifier] = []
        var probe: (prototype: ObjectIdentifier, index: Int, value: StoredValue)? = nil
        var recordingRegistry: PrototypeRegistry? = nil
    }

    private init(_ fields: UnsafeMutablePointer<Fields>) { self.fields = fields }

    var mode: Mode {
        get { fields.pointee.mode }
        nonmutating set { fields.pointee.mode = newValue }
    }
    var defaults: [StoredValue] {
        _read { yield fields.pointee.defaults }
        nonmutating _modify { yield &fields.pointee.defaults }
    }
    var declarations: [PropertyDeclaration] {
        _read { yield fields.pointee.declarations }
        nonmutating _modify { yield &fields.pointee.declarations }
    }
    /// Set while a key path is applied to a prototype: the properties it reads, in order.
    var recordedPath: [(entity: ObjectIdentifier, index: Int)]? {
        _read { yield fields.pointee.recordedPath }
        nonmutating _modify { yield &fields.pointee.recordedPath }
    }
    /// Contexts whose block runs on this thread right now (innermost last): a
    /// `performAndWait` inside another context's block runs on the same thread, and both
    /// contexts' objects may be used there.
    var activeContexts: [ObjectIdentifier] {
        _read { yield fields.pointee.activeContexts }
        nonmutating _modify { yield &fields.pointee.activeContexts }
    }
    /// While a key path is probed: the prototype and property whose reads return `value`.
    var probe: (prototype: ObjectIdentifier, index: Int, value: StoredValue)? {
        get { fields.pointee.probe }
        nonmutating set { fields.pointee.probe = newValue }
    }
    /// The registry recording `recordedPath`.
    var recordingRegistry: PrototypeRegistry? {
        get { fields.pointee.recordingRegistry }
        nonmutating set { fields.pointee.recordingRegistry = newValue }
    }

    func takeIndex() -> UInt16 {
        let nextIndex = fields.pointee.nextIndex
        fields.pointee.nextIndex = nextIndex + 1
        // A class with that many properties is a programming error, met when the model is built.
        guard let index = UInt16(exactly: nextIndex) else { preconditionFailure("an entity declares at most 65,535 properties") }
        return index
    }

    func reset() {
        fields.pointee.mode = .inserting
        fields.pointee.nextIndex = 0
        if !fields.pointee.defaults.isEmpty { fields.pointee.defaults.removeAll(keepingCapacity: true) }
        if !fields.pointee.declarations.isEmpty { fields.pointee.declarations.removeAll() }
    }

    /// This thread's state, created on first use and freed when the thread exits.
    static var current: ThreadState {
        let key = threadKey
        if let raw = pthread_getspecific(key) {
            return ThreadState(raw.assumingMemoryBound(to: Fields.self))
        }
        let fields = UnsafeMutablePointer<Fields>.allocate(capacity: 1)
        fields.initialize(to: Fields())
        pthread_setspecific(key, fields)
        return ThreadState(fields)
    }

    private static let threadKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { raw in
            #if canImport(Darwin)
            let fields: UnsafeMutableRawPointer? = raw
            #else
            let fields = raw
            #endif
            guard let fields = fields?.assumingMemoryBound(to: Fields.self) else { return }
            fields.deinitialize(count: 1)
            fields.deallocate()
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
