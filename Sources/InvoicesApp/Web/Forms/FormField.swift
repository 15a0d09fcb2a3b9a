import ObjectGraph

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
    // The input's attributes from the model's rules (stored: templates read stored properties).
    let maxLength: Int?
    let minLength: Int?
    let pattern: String?
    /// `min` and `max` of a number or date input (other inputs take text).
    let minimum: String?
    let maximum: String?

    init(name: String, label: String, type: String = "text", value: String, error: String?, required: Bool = false,
         isTextarea: Bool = false, options: [SelectOption]? = nil, hint: String? = nil, limits: Limits = Limits()) {
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
        maxLength = limits.maxLength
        minLength = limits.minLength
        pattern = limits.pattern
        minimum = type == "number" ? limits.minimum : type == "date" ? limits.earliest : nil
        maximum = type == "number" ? limits.maximum : type == "date" ? limits.latest : nil
    }

    /// What the model declares about a value that an input can say too (`maxlength`,
    /// `minlength`, `pattern`, `min`, `max`), so the browser tells the user before a round trip;
    /// the server checks the same rules on save whatever the browser did.
    struct Limits: Sendable, Hashable {
        var maxLength: Int?
        var minLength: Int?
        var pattern: String?
        var minimum: String?
        var maximum: String?
        var earliest: String?
        var latest: String?

        init() {}

        init(_ constraints: [AttributeConstraint]) {
            for constraint in constraints {
                switch constraint {
                case .maxLength(let n): maxLength = n
                case .minLength(let n): minLength = n
                case .pattern(let regex): pattern = regex
                case .minimum(let value): minimum = "\(value)"
                case .maximum(let value): maximum = "\(value)"
                case .earliest(let date): earliest = CalendarDay(date).description
                case .latest(let date): latest = CalendarDay(date).description
                default: break
                }
            }
        }
    }
}

/// An error of the summary at the top of a form, linking to its field.
struct FieldError: Sendable, Hashable {
    let field: String
    let message: String
}
