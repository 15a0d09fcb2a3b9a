/// Declares a stored attribute of a managed object.
///
/// ```swift
/// final class Client: ManagedObject {
///     @Attribute(.required, .maxLength(120)) var name: String
///     @Attribute(.unique) var email: String?
///     @Attribute var createdAt: Date = Date()     // evaluated for each new object
/// }
/// ```
///
/// Reading or writing the property goes through the object's context: it fires a fault,
/// records the change and checks the calling queue. The wrapper itself only stores the
/// property's index; the declaration (type, default, constraints) is read once, when the
/// model is built.
@propertyWrapper
public struct Attribute<Value: AttributeValue> {
    // Two bytes: one per declared property of every object in memory.
    @usableFromInline let index: UInt16

    /// An attribute with a default value, evaluated for each new object.
    public init(wrappedValue: @autoclosure () -> Value) {
        index = Self.register(wrappedValue) { [] }
    }

    public init(wrappedValue: @autoclosure () -> Value,
                _ c1: @autoclosure () -> AttributeConstraint) {
        index = Self.register(wrappedValue) { [c1()] }
    }

    public init(wrappedValue: @autoclosure () -> Value,
                _ c1: @autoclosure () -> AttributeConstraint,
                _ c2: @autoclosure () -> AttributeConstraint) {
        index = Self.register(wrappedValue) { [c1(), c2()] }
    }

    public init(wrappedValue: @autoclosure () -> Value,
                _ c1: @autoclosure () -> AttributeConstraint,
                _ c2: @autoclosure () -> AttributeConstraint,
                _ c3: @autoclosure () -> AttributeConstraint) {
        index = Self.register(wrappedValue) { [c1(), c2(), c3()] }
    }

    public init(wrappedValue: @autoclosure () -> Value,
                _ c1: @autoclosure () -> AttributeConstraint,
                _ c2: @autoclosure () -> AttributeConstraint,
                _ c3: @autoclosure () -> AttributeConstraint,
                _ c4: @autoclosure () -> AttributeConstraint) {
        index = Self.register(wrappedValue) { [c1(), c2(), c3(), c4()] }
    }

    public init(wrappedValue: @autoclosure () -> Value,
                _ c1: @autoclosure () -> AttributeConstraint,
                _ c2: @autoclosure () -> AttributeConstraint,
                _ c3: @autoclosure () -> AttributeConstraint,
                _ c4: @autoclosure () -> AttributeConstraint,
                _ c5: @autoclosure () -> AttributeConstraint) {
        index = Self.register(wrappedValue) { [c1(), c2(), c3(), c4(), c5()] }
    }

    /// An attribute whose default is the type's (`""`, `0`, `false`, `nil`, ...).
    public init() {
        index = Self.register({ Value.defaultAttributeValue }) { [] }
    }

    public init(_ c1: @autoclosure () -> AttributeConstraint) {
        index = Self.register({ Value.defaultAttributeValue }) { [c1()] }
    }

    public init(_ c1: @autoclosure () -> AttributeConstraint,
                _ c2: @autoclosure () -> AttributeConstraint) {
        index = Self.register({ Value.defaultAttributeValue }) { [c1(), c2()] }
    }

    public init(_ c1: @autoclosure () -> AttributeConstraint,
                _ c2: @autoclosure () -> AttributeConstraint,
                _ c3: @autoclosure () -> AttributeConstraint) {
        index = Self.register({ Value.defaultAttributeValue }) { [c1(), c2(), c3()] }
    }

    public init(_ c1: @autoclosure () -> AttributeConstraint,
                _ c2: @autoclosure () -> AttributeConstraint,
                _ c3: @autoclosure () -> AttributeConstraint,
                _ c4: @autoclosure () -> AttributeConstraint) {
        index = Self.register({ Value.defaultAttributeValue }) { [c1(), c2(), c3(), c4()] }
    }

    public init(_ c1: @autoclosure () -> AttributeConstraint,
                _ c2: @autoclosure () -> AttributeConstraint,
                _ c3: @autoclosure () -> AttributeConstraint,
                _ c4: @autoclosure () -> AttributeConstraint,
                _ c5: @autoclosure () -> AttributeConstraint) {
        index = Self.register({ Value.defaultAttributeValue }) { [c1(), c2(), c3(), c4(), c5()] }
    }

    // Constraints are closures so that an ordinary object creation never evaluates them
    // (no array allocation per object): only the prototype does.
    private static func register(_ defaultValue: () -> Value,
                                 _ constraints: () -> [AttributeConstraint]) -> UInt16 {
        let state = ThreadState.current
        let index = state.takeIndex()
        switch state.mode {
        case .inserting:
            // Evaluated before the state is touched: a default may itself make objects.
            let value = defaultValue().storedValueBox.value
            state.defaults.append(value)
        case .materializing:
            break
        case .describing:
            let declaration = PropertyDeclaration.attribute(
                type: Value.attributeType, isOptional: Value.isOptional,
                defaultValue: defaultValue().storedValueBox.value,
                constraints: constraints())
            state.declarations.append(declaration)
        }
        return index
    }

    // Inlinable so that the accessors of a class in another module are specialized for
    // its types (no generic metadata look-ups on every property access).
    @inlinable
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Value {
        get {
            let stored = object._attributeValue(at: Int(object[keyPath: storageKeyPath].index))
            // A mismatch can only come from a store written by another model; the model hash
            // check refuses such stores, so fall back to the default rather than trap.
            return Value(storedValue: stored) ?? Value.defaultAttributeValue
        }
        set {
            object._setAttributeValue(newValue.storedValueBox, at: Int(object[keyPath: storageKeyPath].index))
        }
    }

    @available(*, unavailable, message: "@Attribute is only available on ManagedObject subclasses")
    public var wrappedValue: Value {
        get { fatalError("unavailable") }
        set { fatalError("unavailable") }
    }
}
