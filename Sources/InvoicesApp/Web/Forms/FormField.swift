/// One field of an edit form as the template shows it: label, input, value, and the error
/// beside it (`aria-invalid`, `aria-describedby`).
struct FormField: Sendable {
    /// The input's `name`, which is also the model property's name.
    let name: String
    let label: String
    /// The `type` of an `<input>` (`text`, `email`, `date`).
    let type: String
    let value: String
    let error: String?
    let required: Bool
    let isTextarea: Bool
    let isSelect: Bool
    let options: [SelectOption]
    let hint: String?
    let maxLength: Int?

    init(name: String, label: String, type: String = "text", value: String, error: String?, required: Bool = false,
         isTextarea: Bool = false, options: [SelectOption]? = nil, hint: String? = nil, maxLength: Int? = nil) {
        self.name = name
        self.label = label
        self.type = type
        self.value = value
        self.error = error
        self.required = required
        self.isTextarea = isTextarea
        self.isSelect = options != nil
        self.options = options ?? []
        self.hint = hint
        self.maxLength = maxLength
    }
}

/// An error of the summary at the top of a form, linking to its field.
struct FieldError: Sendable, Hashable {
    let field: String
    let message: String
}
