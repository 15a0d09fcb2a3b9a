import Foundation
import ObjectGraph

/// One field of an entity's form: the property it edits (by key path), its label and input,
/// how the property's value reads as text, and how typed text is applied.
///
/// The constructors below cover the usual kinds; whether the field is required, its length
/// limit and minimum are read from the model when the table is resolved (``FormTable``).
struct FormFieldSpec<Object: ManagedObject>: Sendable {
    /// How the field is typed in.
    enum Input: Sendable {
        /// An `<input>` of this type (`text`, `email`, `date`).
        case text(type: String)
        case textarea
        /// A `<select>`: its choices as (value, label), read on the form's scratchpad queue, and
        /// the first option's label when nothing is chosen yet.
        case select(choices: @Sendable (ManagedObjectContext) throws -> [(value: String, label: String)],
                    placeholder: String)
    }

    let keyPath: PartialKeyPath<Object> & Sendable
    let label: String
    let hint: String?
    let input: Input
    /// The value as the input shows it (on the object's queue).
    let read: @Sendable (Object) -> String
    /// Applies typed text to the object (on its queue); returns why it cannot be applied.
    let write: @Sendable (String, Object, ManagedObjectContext) -> String?
    /// What a refused save says when another object already has the value.
    let duplicateMessage: String?

    init(_ keyPath: PartialKeyPath<Object> & Sendable, label: String, hint: String? = nil, input: Input = .text(type: "text"),
         duplicateMessage: String? = nil, read: @escaping @Sendable (Object) -> String,
         write: @escaping @Sendable (String, Object, ManagedObjectContext) -> String?) {
        self.keyPath = keyPath
        self.label = label
        self.hint = hint
        self.input = input
        self.read = read
        self.write = write
        self.duplicateMessage = duplicateMessage
    }
}

extension FormFieldSpec {
    /// A string that cannot be nil: typed text, trimmed.
    static func text(_ keyPath: ReferenceWritableKeyPath<Object, String> & Sendable, label: String, hint: String? = nil,
                     duplicateMessage: String? = nil) -> Self {
        Self(keyPath, label: label, hint: hint, duplicateMessage: duplicateMessage, read: { $0[keyPath: keyPath] }) { text, object, _ in
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if object[keyPath: keyPath] != trimmed { object[keyPath: keyPath] = trimmed }
            return nil
        }
    }

    /// An optional string: blank text is nil. `normalize` runs on what is kept (lower-casing
    /// an address, say).
    static func optionalText(_ keyPath: ReferenceWritableKeyPath<Object, String?> & Sendable, label: String,
                             hint: String? = nil, input: Input = .text(type: "text"), duplicateMessage: String? = nil,
                             normalize: @escaping @Sendable (String) -> String = { $0 }) -> Self {
        Self(keyPath, label: label, hint: hint, input: input, duplicateMessage: duplicateMessage,
             read: { $0[keyPath: keyPath] ?? "" }) { text, object, _ in
            let value = FieldInput.optionalText(text).map(normalize)
            if object[keyPath: keyPath] != value { object[keyPath: keyPath] = value }
            return nil
        }
    }

    /// A calendar day, typed as 2025-03-14 (stored as midnight UTC).
    static func day(_ keyPath: ReferenceWritableKeyPath<Object, Date> & Sendable, label: String) -> Self {
        Self(keyPath, label: label, input: .text(type: "date"), read: { CalendarDay($0[keyPath: keyPath]).description }) {
            text, object, _ in
            switch FieldInput.day(text, property: "", label: label) {
            case .success(let day):
                if CalendarDay(object[keyPath: keyPath]) != day { object[keyPath: keyPath] = day.date }
                return nil
            case .failure(let error):
                return error.message
            }
        }
    }

    /// A to-one relationship chosen from the destination's objects, by primary key.
    static func choice<Destination: EditableEntity>(
        _ keyPath: ReferenceWritableKeyPath<Object, Destination?> & Sendable, label: String, placeholder: String,
        choices: @escaping @Sendable (ManagedObjectContext) throws -> [Destination]
    ) -> Self {
        let noun = Destination.formNoun
        let listed: @Sendable (ManagedObjectContext) throws -> [(value: String, label: String)] = { context in
            try choices(context).compactMap { object in object.objectID.primaryKey.map { (String($0), object.formTitle) } }
        }
        return Self(keyPath, label: label, input: .select(choices: listed, placeholder: placeholder),
                    read: { $0[keyPath: keyPath]?.objectID.primaryKey.map(String.init) ?? "" }) { text, object, context in
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard let pk = Int64(trimmed),
                  let id = context.persistentStoreCoordinator.managedObjectID(for: Destination.self, primaryKey: pk),
                  let destination = try? context.existingObject(with: id, as: Destination.self) else {
                return trimmed.isEmpty ? "\(label) is required: choose one."
                    : "\(label) \"\(trimmed)\" does not exist: choose a \(noun) from the list."
            }
            if object[keyPath: keyPath]?.objectID != destination.objectID { object[keyPath: keyPath] = destination }
            return nil
        }
    }
}
