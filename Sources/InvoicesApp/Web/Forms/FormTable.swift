import Foundation
import ObjectGraph

/// An editable entity's form, resolved against the model: each field with its property name,
/// and whether it is required and how long it may be as the model declares. Type-erased, so the
/// form routes work with any editable entity without knowing which.
struct FormTable: Sendable {
    struct Field: Sendable {
        let name: String
        let label: String
        let hint: String?
        let input: FormFieldSpec<ManagedObject>.Input
        /// The model says a value is needed: `.required`, a non-optional attribute, a required
        /// to-one relationship.
        let isRequired: Bool
        /// The model's other rules for the value, for the input's own attributes.
        let limits: FormField.Limits
        let duplicateMessage: String?
        let read: @Sendable (ManagedObject) -> String
        let write: @Sendable (String, ManagedObject, ManagedObjectContext) -> String?
    }

    /// A nested form section: destinations of `relationship` edited in forms of their own.
    struct Nested: Sendable {
        let relationship: String
        let destination: String
        /// The destination's property that points back at the owner (fixed in its form).
        let inverse: String
        let title: String
        let addLabel: String
    }

    let entityName: String
    let path: String
    let noun: String
    let fields: [Field]
    let nested: [Nested]
    /// The rows edited in the form itself (``EditableEntity/formRows``).
    let rows: FormRows?
    /// Inserts a new object in `context` and returns its ID (on the context's queue).
    let makeNew: @Sendable (ManagedObjectContext, [String: String]) -> ObjectID
    /// The ID of the object with this primary key, when it exists.
    let find: @Sendable (ManagedObjectContext, Int64) throws -> ObjectID?
    let title: @Sendable (ManagedObject) -> String
    let summary: @Sendable (ManagedObject) -> String
    /// ``EditableEntity/inputApplied(_:in:)``.
    let inputApplied: @Sendable (ManagedObject, ManagedObjectContext) -> Void
    /// Where a saved object is shown (``EditableEntity/pagePath(of:)``, else `/{path}/{pk}`).
    let pagePath: @Sendable (ManagedObject) -> String?

    init<T: EditableEntity>(_ type: T.Type, model: ManagedObjectModel) {
        entityName = model.entity(for: T.self)?.name ?? String(describing: T.self)
        path = T.formPath
        noun = T.formNoun
        fields = T.formFields.map { Self.field($0, model: model) }
        nested = T.nestedForms.compactMap { spec in
            guard case .relationship(let r)? = model.property(for: spec.relationship) else { return nil }
            return Nested(relationship: r.name, destination: r.destinationEntityName, inverse: r.inverseName,
                          title: spec.title, addLabel: spec.addLabel)
        }
        rows = T.formRows.map(FormRows.init)
        makeNew = { context, parameters in
            let object = T(context: context)
            T.prepareNew(object, parameters: parameters, in: context)
            return object.objectID
        }
        find = { context, pk in
            guard let id = context.persistentStoreCoordinator.managedObjectID(for: T.self, primaryKey: pk) else { return nil }
            do {
                return try context.existingObject(with: id, as: T.self).objectID
            } catch ContextError.objectNotFound {
                return nil
            }
        }
        title = { ($0 as? T)?.formTitle ?? "" }
        summary = { ($0 as? T)?.formSummary ?? "" }
        inputApplied = { object, context in
            if let object = object as? T { T.inputApplied(object, in: context) }
        }
        let path = T.formPath
        pagePath = { object in
            guard let typed = object as? T else { return nil }
            return T.pagePath(of: typed) ?? typed.objectID.primaryKey.map { "/\(path)/\($0)" }
        }
    }

    private static func field<T: EditableEntity>(_ spec: FormFieldSpec<T>, model: ManagedObjectModel) -> Field {
        let property = model.property(for: spec.keyPath)
        var isRequired = false, limits = FormField.Limits()
        switch property {
        case .attribute(let a)?:
            isRequired = !a.isOptional || a.constraints.contains(.required)
            limits = FormField.Limits(a.constraints)
        case .relationship(let r)?:
            isRequired = r.isRequired
        case nil:
            preconditionFailure("\(T.self)'s form names a property the model does not store: \(spec.label)")
        }
        let input: FormFieldSpec<ManagedObject>.Input
        switch spec.input {
        case .text(let type): input = .text(type: type)
        case .textarea: input = .textarea
        case .select(let choices, let placeholder): input = .select(choices: choices, placeholder: placeholder)
        }
        let read = spec.read, write = spec.write
        return Field(name: property?.name ?? spec.label, label: spec.label, hint: spec.hint, input: input,
                     isRequired: isRequired, limits: limits, duplicateMessage: spec.duplicateMessage,
                     read: { object in (object as? T).map(read) ?? "" },
                     write: { text, object, context in (object as? T).flatMap { write(text, $0, context) } })
    }

    // MARK: Using it

    func field(named name: String) -> Field? { fields.first { $0.name == name } }

    /// The label of a property (its own name, capitalized, when the form does not show it).
    func label(of property: String) -> String {
        field(named: property)?.label ?? (property.prefix(1).uppercased() + property.dropFirst())
    }

    /// The object's values as the inputs show them. On the object's queue.
    func values(of object: ManagedObject) -> [String: String] {
        var values: [String: String] = [:]
        for field in fields { values[field.name] = field.read(object) }
        if let rows { values.merge(rows.values(of: object)) { own, _ in own } }
        return values
    }

    /// The typed text of the form's inputs among submitted fields.
    func input(from submitted: (String) -> String?, skipping: Set<String> = []) -> [String: String] {
        var input: [String: String] = [:]
        for field in fields where !skipping.contains(field.name) {
            if let value = submitted(field.name) { input[field.name] = value }
        }
        if let rows { input.merge(rows.input(from: submitted)) { own, _ in own } }
        return input
    }

    /// Applies typed text (fields not submitted stay as they are), then a row button
    /// (`add-line`, …) when `action` is one and every input could be read; returns the inputs
    /// that could not be read, with the reason. On the object's queue.
    func apply(_ input: [String: String], to object: ManagedObject, in context: ManagedObjectContext,
               action: String = "") -> [FieldInputError] {
        var errors = fields.compactMap { field -> FieldInputError? in
            guard let text = input[field.name], let message = field.write(text, object, context) else { return nil }
            return FieldInputError(property: field.name, message: message)
        }
        if let rows {
            errors += rows.apply(input, to: object)
            if errors.isEmpty { _ = rows.perform(action, on: object, in: context) }
        }
        inputApplied(object, context)
        return errors
    }

    /// The choices of the select fields, read on the scratchpad's queue.
    func choices(in context: ManagedObjectContext) throws -> [String: [(value: String, label: String)]] {
        var all: [String: [(value: String, label: String)]] = [:]
        for field in fields {
            if case .select(let choices, _) = field.input { all[field.name] = try choices(context) }
        }
        return all
    }

    /// The page's fields for these values, errors and choices.
    func formFields(values: [String: String], errors: [String: String], choices: [String: [(value: String, label: String)]],
                    hiding hidden: Set<String> = []) -> [FormField] {
        fields.filter { !hidden.contains($0.name) }.map { field in
            let value = values[field.name] ?? ""
            switch field.input {
            case .text(let type):
                return FormField(name: field.name, label: field.label, type: type, value: value, error: errors[field.name],
                                 required: field.isRequired, hint: field.hint, limits: field.limits)
            case .textarea:
                return FormField(name: field.name, label: field.label, value: value, error: errors[field.name],
                                 required: field.isRequired, isTextarea: true, hint: field.hint, limits: field.limits)
            case .select(_, let placeholder):
                return FormField(name: field.name, label: field.label, value: value, error: errors[field.name],
                                 required: field.isRequired,
                                 options: Self.options(choices[field.name] ?? [], chosen: value, placeholder: placeholder),
                                 hint: field.hint)
            }
        }
    }

    /// The options of a select: always the placeholder first, with an empty value (HTML wants
    /// one as the first option of a required select, and it is what "nothing chosen" sends),
    /// then a value that is not among the choices (from an import, say) as an option of its own.
    static func options(_ choices: [(value: String, label: String)], chosen: String, placeholder: String) -> [SelectOption] {
        var options = choices.map { SelectOption(value: $0.value, label: $0.label, selected: $0.value == chosen) }
        if !chosen.isEmpty && !options.contains(where: \.selected) {
            options.insert(SelectOption(value: chosen, label: chosen, selected: true), at: 0)
        }
        options.insert(SelectOption(value: "", label: placeholder, selected: chosen.isEmpty), at: 0)
        return options
    }
}
