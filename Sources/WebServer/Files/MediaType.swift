/// Content types of static files, by extension.
enum MediaType {
    static let byExtension: [String: String] = [
        "html": "text/html; charset=utf-8", "htm": "text/html; charset=utf-8",
        "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8",
        "mjs": "text/javascript; charset=utf-8", "json": "application/json",
        "map": "application/json", "txt": "text/plain; charset=utf-8",
        "md": "text/markdown; charset=utf-8", "csv": "text/csv; charset=utf-8",
        "xml": "application/xml", "svg": "image/svg+xml", "png": "image/png",
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
        "avif": "image/avif", "ico": "image/x-icon", "woff": "font/woff", "woff2": "font/woff2",
        "ttf": "font/ttf", "otf": "font/otf", "pdf": "application/pdf", "wasm": "application/wasm",
        "webmanifest": "application/manifest+json",
    ]

    /// The content type for `filename`; unknown extensions are served as opaque bytes.
    static func forFile(named filename: String) -> String {
        guard let dot = filename.lastIndex(of: ".") else { return "application/octet-stream" }
        return byExtension[filename[filename.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }
}
