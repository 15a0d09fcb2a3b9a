/// A submitted form: its text fields and its uploaded files.
///
/// ```swift
/// let form = try request.form()
/// let name = form["name"] ?? ""
/// if let csv = form.file(named: "invoices") { importCSV(csv.bytes) }
/// ```
public struct FormData: Sendable {
    /// The text fields, in order, repeated names kept.
    public var fields: QueryParameters
    /// The uploaded files (multipart only), in order.
    public var files: [UploadedFile]

    public init(fields: QueryParameters = QueryParameters(), files: [UploadedFile] = []) {
        self.fields = fields
        self.files = files
    }

    /// The first value of the text field `name`.
    public subscript(name: String) -> String? { fields[name] }

    /// The first file uploaded under the field `name`.
    public func file(named name: String) -> UploadedFile? {
        files.first { $0.fieldName == name }
    }
}

/// A file uploaded in a `multipart/form-data` body.
public struct UploadedFile: Sendable, Hashable {
    /// The form field the file was sent under.
    public var fieldName: String
    /// The file name the client gave, without any directory part; never use it as a path as is.
    public var filename: String
    /// The client's `Content-Type` for the file (`application/octet-stream` when it gave none).
    public var contentType: String
    /// The file's bytes.
    public var bytes: [UInt8]

    public init(fieldName: String, filename: String, contentType: String, bytes: [UInt8]) {
        self.fieldName = fieldName
        self.filename = filename
        self.contentType = contentType
        self.bytes = bytes
    }
}
